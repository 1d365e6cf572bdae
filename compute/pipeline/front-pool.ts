/**
 * @module The worker threads of the front of the pipeline, features then matching.
 *
 * Why one pool for two stages: a worker thread spends about half a second of CPU before its
 * first task (the TypeScript loader, then OpenCV.js's 10 MB of JavaScript and WebAssembly).
 * Started before ingest, the threads initialise while the uploads decode; kept for matching,
 * the matching stage needs no threads of its own. On a 10-image job of 640-px photos that is
 * a few tenths of a second of a job of about six.
 */
import type { FeatureResult, FeatureTask } from "../stages/features/detect.js";
import type { PairResult, PairTask } from "../stages/matching/pair.js";
import { type TaskRunner, WorkerPool } from "../util/pool.js";

export type FrontTask = { stage: "features"; task: FeatureTask } | { stage: "matching"; task: PairTask };
export type FrontResult = FeatureResult | PairResult;

export interface FrontWorkers {
  features: TaskRunner<FeatureTask, FeatureResult>;
  matching: TaskRunner<PairTask, PairResult>;
  close(): Promise<void>;
}

/** Starts `count` front workers (at least one); they begin loading at once. */
export function startFrontWorkers(count: number): FrontWorkers {
  const pool = new WorkerPool<FrontTask, FrontResult>(new URL("./front-worker.ts", import.meta.url), { size: Math.max(1, count) });
  return {
    features: { size: pool.size, run: (task, transfer) => pool.run({ stage: "features", task }, transfer) as Promise<FeatureResult> },
    matching: { size: pool.size, run: (task, transfer) => pool.run({ stage: "matching", task }, transfer) as Promise<PairResult> },
    close: () => pool.close(),
  };
}
