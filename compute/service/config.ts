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
  /** Minimum interval between two progress reports to the edge (stage changes always go). */
  PROGRESS_INTERVAL_MS: z.coerce.number().int().nonnegative().default(1000),
  /** Start a pipeline thread (and its front workers) at start-up, so the first job finds them loaded. */
  PREWARM: z.enum(["0", "1"]).default("1"),
  /** Keep finished job folders (for debugging). */
  KEEP_WORK_DIRS: z.enum(["0", "1"]).default("0"),
});
export type ComputeConfig = z.infer<typeof ConfigSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ComputeConfig {
  const config = ConfigSchema.parse(env);
  config.EDGE_URL = config.EDGE_URL.replace(/\/+$/, "");
  return config;
}
