/** @module Messages between the job runner and its pipeline thread. */
import type { Format } from "../../shared/formats.js";
import type { Quality } from "../../shared/jobs.js";
import type { Stage } from "../../shared/records.js";

export interface PipelineThreadInput {
  files: Array<{ path: string; name: string }>;
  workDir: string;
  outDir: string;
  quality: Quality;
  /** Set when the job's large stages go out as tasks (feature, matching and dense tasks); the thread reaches the edge itself. */
  tasks?: { edgeUrl: string; secret: string; reconstructionId: string; attempt: number; pollMs: number; scratchDir: string; featureBatchImages: number; matchBatchPairs: number };
  /** Most views per dense cluster (compute config DENSE_CLUSTER_VIEWS). */
  denseClusterViews?: number;
}

/** To the thread: run one job; `job` tags its answers. (The owner ends a thread by terminating it, its front workers with it.) */
export type PipelineThreadCommand = { type: "run"; job: string; input: PipelineThreadInput };

/** From the thread; every answer about a job names it. */
export type PipelineThreadMessage =
  | { type: "progress"; job: string; stage: Stage; progress: number; filesProcessed: number; remainingMs?: number }
  | { type: "done"; job: string; outputs: Array<{ format: Format; path: string; bytes: number }> }
  | { type: "failed"; job: string; code: string; message: string; suggestion: string }
  | { type: "crashed"; job: string; message: string };
