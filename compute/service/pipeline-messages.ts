/** @module Messages between the job runner and its pipeline thread. */
import type { Format } from "../../shared/formats.js";
import type { Quality } from "../../shared/jobs.js";
import type { Stage } from "../../shared/records.js";

export interface PipelineThreadInput {
  files: Array<{ path: string; name: string }>;
  workDir: string;
  outDir: string;
  quality: Quality;
}

export type PipelineThreadMessage =
  | { type: "progress"; stage: Stage; progress: number; filesProcessed: number }
  | { type: "done"; outputs: Array<{ format: Format; path: string; bytes: number }> }
  | { type: "failed"; code: string; message: string; suggestion: string }
  | { type: "crashed"; message: string };
