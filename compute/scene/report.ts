/** @module The report every stage returns; the pipeline collects them into report.json. */

export interface StageReport {
  stage: string;
  wallMs: number;
  /** Counts and figures particular to the stage (images, keypoints, points, faces...). */
  counts: Record<string, number>;
  /** Per-image notes (e.g. registered or not and why). */
  perImage?: Array<{ name: string; [key: string]: unknown }>;
  warnings: string[];
}

/** Progress callback a stage calls as it works: fraction in [0, 1] of this stage, and a count of images done. */
export type ProgressFn = (fraction: number, imagesDone?: number) => void;

/** A pipeline error with a failure code of docs/API.md ("Failure codes"), message and suggestion for the client. */
export class PipelineError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly suggestion: string,
  ) {
    super(message);
  }
}
