/**
 * @module The job as it travels from the edge to compute, and compute's reports back to the edge.
 *
 * JobMessage is the one shape of a job between the processes: the ReconstructionObject builds it
 * from its row and checks it once (edge/objects/reconstruction-state.ts `jobOf`); it is checked
 * again only where it enters another process (the waiting line's `enqueue`, the old job queue's
 * consumer, compute's POST /jobs), and compute hands it to the pipeline thread unchanged. The
 * pipeline's own input takes the job's options (JobOptions) as they are.
 */
import { z } from "zod";
import { ControlPoints } from "./control-points.js";
import { Format } from "./formats.js";
import { Georeference, ReconstructionId, Stage } from "./records.js";

export const InputKind = z.enum(["jpeg", "png", "heic", "mp4", "mov"]);
export type InputKind = z.infer<typeof InputKind>;

export const JobInput = z.object({
  key: z.string(),
  name: z.string(),
  kind: InputKind,
  size: z.number().int().nonnegative(),
});
export type JobInput = z.infer<typeof JobInput>;

export const Quality = z.enum(["preview", "standard", "high"]);
export type Quality = z.infer<typeof Quality>;

/** What the client chose for the job: all the pipeline takes of it besides its files (compute/pipeline PipelineInput). */
export const JobOptions = z.object({
  quality: Quality,
  /** Ground control points and checkpoints (docs/API.md "Control points"); absent for an ordinary job. */
  control_points: ControlPoints.optional(),
  /** `EPSG:<code>` of a projected system in metres for the outputs, checked by the edge; absent: compute chooses. */
  output_crs: z.string().min(1).optional(),
});
export type JobOptions = z.infer<typeof JobOptions>;

/** One message per reconstruction attempt; `attempt` makes compute's reports idempotent. */
export const JobMessage = z.object({
  version: z.literal(1),
  reconstruction_id: ReconstructionId,
  account_id: z.string(),
  attempt: z.number().int().min(1),
  ...JobOptions.shape,
  inputs: z.array(JobInput).min(1),
  created_at: z.string(),
});
export type JobMessage = z.infer<typeof JobMessage>;

/** The job's options, as they are (no field is named here: a new option travels by itself). */
export function jobOptionsOf(job: JobMessage): JobOptions {
  // An absent optional field stays absent rather than becoming `key: undefined`.
  return Object.fromEntries(JobOptions.keyof().options.flatMap((key) => (job[key] === undefined ? [] : [[key, job[key]]]))) as JobOptions;
}

export const ProgressReport = z.object({
  attempt: z.number().int().min(1),
  stage: Stage,
  progress: z.number().int().min(0).max(100),
  files_processed: z.number().int().nonnegative(),
  estimated_completion: z.string().optional(),
});
export type ProgressReport = z.infer<typeof ProgressReport>;

export const CompletionReport = z.object({
  attempt: z.number().int().min(1),
  formats: z.array(z.object({ format: Format, file_size: z.number().int().nonnegative() })).min(1),
  /** Present when the outputs are georeferenced: model coordinates plus `offset` are coordinates in `crs`. */
  georeference: Georeference.optional(),
});
export type CompletionReport = z.infer<typeof CompletionReport>;

export const FailureReport = z.object({
  attempt: z.number().int().min(1),
  code: z.string(),
  message: z.string(),
  suggestion: z.string(),
});
export type FailureReport = z.infer<typeof FailureReport>;
