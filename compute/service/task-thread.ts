/**
 * @module One task in a worker thread of its own (started per task, ended after it), so its
 * numeric work never stalls the service's HTTP server or its heartbeats. The stage's own
 * worker pool (PatchMatch, feature detection with OpenCV.js, or pair matching) is started here.
 */
import { readFile, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { parentPort } from "node:worker_threads";
import type { TaskKind } from "../../shared/tasks.js";
import { encodeClusterResult, solveCluster } from "../stages/dense/index.js";
import type { ViewResult, ViewTask } from "../stages/dense/worker.js";
import { encodeFeatureBatch, runBatch } from "../stages/features/index.js";
import { encodePairResults, runPairBatch } from "../stages/matching/index.js";
import { WorkerPool } from "../util/pool.js";
import { decodeDensePayload } from "./dense-tasks.js";
import { decodeFeaturePayload } from "./feature-tasks.js";
import { decodeMatchingPayload } from "./matching-tasks.js";

export interface TaskThreadCommand {
  kind: TaskKind;
  payloadPath: string;
  /** ImageRef.index → local path of the downloaded photo. */
  photos: Array<[number, string]>;
  resultPath: string;
}

export type TaskThreadMessage = { type: "progress"; fraction: number } | { type: "done"; summary: string } | { type: "failed"; message: string };

const port = parentPort;
if (!port) throw new Error("task-thread: must run as a worker thread");

const progress = (fraction: number) => port!.postMessage({ type: "progress", fraction } satisfies TaskThreadMessage);

port.once("message", (command: TaskThreadCommand) => {
  const photos = new Map(command.photos);
  const photoOf = (imageIndex: number) => {
    const photo = photos.get(imageIndex);
    if (!photo) throw new Error(`task: photo ${imageIndex} was not downloaded`);
    return photo;
  };
  const work = command.kind === "dense-cluster" ? solveDense(command, photoOf) : command.kind === "matching-batch" ? matchPairs(command) : detectFeatures(command, photoOf);
  work.then(
    (summary) => port.postMessage({ type: "done", summary } satisfies TaskThreadMessage),
    (err: unknown) => port.postMessage({ type: "failed", message: err instanceof Error ? `${err.message}\n${err.stack ?? ""}` : String(err) } satisfies TaskThreadMessage),
  );
});

async function solveDense(command: TaskThreadCommand, photoOf: (imageIndex: number) => string): Promise<string> {
  const { job } = decodeDensePayload(await readFile(command.payloadPath, "utf8"));
  const pool = new WorkerPool<ViewTask, ViewResult>(new URL("../stages/dense/worker.ts", import.meta.url), { size: Math.min(availableParallelism(), job.views.length) });
  try {
    const result = await solveCluster(job, (i) => ({ path: photoOf(i) }), pool, { onProgress: progress });
    await writeFile(command.resultPath, encodeClusterResult(result));
    return `${result.cloud.count} points`;
  } finally {
    await pool.close();
  }
}

async function detectFeatures(command: TaskThreadCommand, photoOf: (imageIndex: number) => string): Promise<string> {
  const { images, options } = decodeFeaturePayload(await readFile(command.payloadPath, "utf8"));
  const batch = await runBatch(images.map((image) => ({ ...image, path: photoOf(image.index) })), options, (fraction) => progress(fraction));
  await writeFile(command.resultPath, encodeFeatureBatch(batch));
  return `${batch.features.reduce((sum, f) => sum + f.count, 0)} keypoints`;
}

async function matchPairs(command: TaskThreadCommand): Promise<string> {
  const { images, features, positions, pairs, options } = decodeMatchingPayload(new Uint8Array(await readFile(command.payloadPath)));
  const results = await runPairBatch(images, features, pairs, positions, options, (fraction) => progress(fraction));
  await writeFile(command.resultPath, encodePairResults(results));
  return `${results.filter((r) => r.pair).length} of ${results.length} pairs verified`;
}
