/** @module Public records of docs/API.md ("Records") as zod schemas: the single statement of each shape. */
import { z } from "zod";
import { Format } from "./formats.js";

export const RECONSTRUCTION_STATUSES = ["pending", "processing", "completed", "failed"] as const;
export const ReconstructionStatus = z.enum(RECONSTRUCTION_STATUSES);
export type ReconstructionStatus = z.infer<typeof ReconstructionStatus>;

export const STAGES = ["ingest", "features", "matching", "sfm", "dense", "mesh", "texture", "export"] as const;
export const Stage = z.enum(STAGES);
export type Stage = z.infer<typeof Stage>;

/** `rec_` + 24 URL-safe random characters. */
export const ReconstructionId = z
  .string()
  .regex(/^rec_[A-Za-z0-9_-]{20,64}$/)
  .meta({ description: "Reconstruction id", example: "rec_3kq8Zp1mW0xY7bN2cD4eF6gH" });

const IsoTime = z.string().meta({ description: "ISO 8601 UTC time", example: "2026-11-22T10:00:00.000Z" });

export const CreationRecord = z
  .object({
    id: ReconstructionId,
    status: z.literal("pending"),
    created_at: IsoTime,
    estimated_completion: IsoTime,
    files_uploaded: z.number().int().nonnegative(),
    status_url: z.string().url(),
  })
  .meta({ id: "CreationRecord" });
export type CreationRecord = z.infer<typeof CreationRecord>;

export const FormatSize = z.object({ format: Format, file_size: z.number().int().nonnegative() });
export type FormatSize = z.infer<typeof FormatSize>;

/** Present on a georeferenced result: model coordinates plus `offset` are coordinates in `crs`. */
export const Georeference = z
  .object({
    crs: z.string().min(1).meta({ description: "The outputs' coordinate system: `EPSG:<code>`, or WKT where it has no EPSG code", example: "EPSG:32632" }),
    // An array of length 3 rather than a tuple: Durable Object RPC types turn tuples into arrays.
    offset: z
      .array(z.number().finite())
      .length(3)
      .meta({ description: "Added to model coordinates to give coordinates in crs; it keeps the models' float32 coordinates small", example: [500000, 5000000, 0] }),
  })
  .strict()
  .meta({ id: "Georeference", description: "Model coordinates plus offset are coordinates in crs." });
export type Georeference = z.infer<typeof Georeference>;

export const FailureInfo = z.object({
  code: z.string(),
  message: z.string(),
  suggestion: z.string(),
});
export type FailureInfo = z.infer<typeof FailureInfo>;

/**
 * Where a pending reconstruction stands before compute has started it: waiting its turn
 * (`queued`, with its place and the forecast start), or handed to compute and starting.
 */
export const QueuePlace = z
  .object({
    reason: z.enum(["queued", "starting"]).meta({ description: "`queued`: every compute slot is taken and the job waits its turn, in the order of the fairness rule; `starting`: compute has accepted it and is about to start." }),
    position: z.number().int().nonnegative().meta({ description: "1 for the next job to start; 0 once handed to compute." }),
    estimated_start: IsoTime.meta({ description: "When compute is forecast to start the job, from the running jobs' and the earlier jobs' estimates." }),
  })
  .meta({ id: "QueuePlace" });
export type QueuePlace = z.infer<typeof QueuePlace>;


export const StatusRecord = z
  .object({
    id: ReconstructionId,
    status: ReconstructionStatus,
    progress: z.number().int().min(0).max(100),
    created_at: IsoTime,
    started_at: IsoTime.nullable(),
    estimated_completion: IsoTime,
    files_processed: z.number().int().nonnegative(),
    total_files: z.number().int().nonnegative(),
    stage: Stage.nullable(),
    completed_at: IsoTime.nullable(),
    formats: z.array(FormatSize).optional(),
    error: FailureInfo.optional(),
    georeference: Georeference.optional().meta({ description: "Only when completed with georeferenced outputs (ground control points, or an output_crs): model coordinates plus offset are coordinates in crs." }),
    credit_refunded: z.boolean(),
    queue: QueuePlace.optional().meta({ description: "Present while the status is `pending`: why it has not started yet, its place and the forecast start. `estimated_completion` includes the wait." }),
  })
  .meta({ id: "StatusRecord" });
export type StatusRecord = z.infer<typeof StatusRecord>;

export const DownloadRecord = z
  .object({
    download_url: z.string().url(),
    expires_at: IsoTime,
    file_size: z.number().int().nonnegative(),
    format: Format,
  })
  .meta({ id: "DownloadRecord" });
export type DownloadRecord = z.infer<typeof DownloadRecord>;

export const AccountRecord = z
  .object({
    account_id: z.string(),
    balance: z.number().int(),
    trial: z.boolean(),
    created_at: IsoTime,
    usage: z.object({
      reconstructions: z.number().int().nonnegative(),
      completed: z.number().int().nonnegative(),
      failed: z.number().int().nonnegative(),
    }),
  })
  .meta({ id: "AccountRecord" });
export type AccountRecord = z.infer<typeof AccountRecord>;
