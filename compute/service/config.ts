/** @module Compute service configuration from the environment, checked once at start-up. */
import { z } from "zod";

const ConfigSchema = z.object({
  HOST: z.string().default("127.0.0.1"),
  PORT: z.coerce.number().int().min(0).max(65535).default(8788),
  /** Shared secret: the edge authenticates to compute with it, and compute to the edge's internal API. */
  COMPUTE_SECRET: z.string().min(8).default("dev-compute-secret"),
  /** The edge Worker's base URL, for inputs, outputs and reports (internal API). */
  EDGE_URL: z.string().url().default("http://127.0.0.1:8787"),
  MAX_CONCURRENT_JOBS: z.coerce.number().int().min(1).default(1),
  /** Where jobs unpack their inputs and write outputs; each job gets its own folder, removed afterwards. */
  WORK_DIR: z.string().optional(),
  HEARTBEAT_SECONDS: z.coerce.number().positive().default(15),
  /** Least time between two task heartbeats sent because the task's fraction moved (task-heartbeats.ts). */
  TASK_PROGRESS_MS: z.coerce.number().int().positive().default(2000),
  /** Minimum interval between two progress reports to the edge (stage changes always go). */
  PROGRESS_INTERVAL_MS: z.coerce.number().int().nonnegative().default(1000),
  /** Start a pipeline thread (and its front workers) at start-up, so the first job finds them loaded. */
  PREWARM: z.enum(["0", "1"]).default("1"),
  /** Tasks of large jobs (shared/tasks.ts) this process runs at once, beside its jobs. */
  MAX_CONCURRENT_TASKS: z.coerce.number().int().min(1).default(1),
  /**
   * Spread large jobs over containers as tasks: feature detection by batches of
   * FEATURE_BATCH_IMAGES when there are more images than that, matching by batches of
   * MATCH_BATCH_PAIRS pairs when there are more pairs than that, dense reconstruction by cluster
   * when there is more than one ("0": everything in the job's process).
   */
  DISTRIBUTE_TASKS: z.enum(["0", "1"]).default("1"),
  /** Images per feature-detection task. */
  FEATURE_BATCH_IMAGES: z.coerce.number().int().min(1).default(100),
  /**
   * Image pairs per matching task. A pair takes 50–200 ms of CPU at the standard preset, so a
   * batch of 2,000 is minutes on one container; its payload carries the features of the images
   * its pairs name (about 0.6 MB per image at 8,000 keypoints).
   */
  MATCH_BATCH_PAIRS: z.coerce.number().int().min(1).default(2000),
  /** Most views per dense cluster (one task), overriding the quality preset's; bounds a task's memory. */
  DENSE_CLUSTER_VIEWS: z.coerce.number().int().min(2).optional(),
  /** How often a coordinator reads its job's task table. */
  TASK_POLL_MS: z.coerce.number().int().positive().default(1000),
  /** This process in the edge's task table (lease holder); default host:port:pid. */
  WORKER_ID: z.string().min(1).max(200).optional(),
  /** Keep finished job folders (for debugging). */
  KEEP_WORK_DIRS: z.enum(["0", "1"]).default("0"),
});
export type ComputeConfig = z.infer<typeof ConfigSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ComputeConfig {
  const config = ConfigSchema.parse(env);
  config.EDGE_URL = config.EDGE_URL.replace(/\/+$/, "");
  return config;
}
