/** @module Messages between the job runner and its pipeline thread. */
import type { Format } from "../../shared/formats.js";
import type { JobMessage } from "../../shared/jobs.js";
import type { Stage } from "../../shared/records.js";

export interface PipelineThreadInput {
  /** The job as POST /jobs received and checked it, unchanged. */
  job: JobMessage;
  /** The job's inputs, downloaded: local paths with the names the client gave. */
  files: Array<{ path: string; name: string }>;
  workDir: string;
  outDir: string;
  /**
   * Set when the job's large stages go out as tasks (feature, matching and dense tasks); the
   * thread reaches the edge itself. `attempt` is the newest dispatch of the job when it started
   * (a repeated POST /jobs may have raised it above `job.attempt`).
   */
  tasks?: { edgeUrl: string; secret: string; attempt: number; pollMs: number; scratchDir: string; featureBatchImages: number; matchBatchPairs: number };
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
