/** @module Indices of a bundle-adjustment team's shared control words (team.ts, team-worker.ts). */
export const CONTROL = {
  /** Incremented by the solver's thread to post a kernel. */
  generation: 0,
  kernel: 1,
  /** Workers that finished the posted kernel. */
  done: 2,
  /** 1 once a worker failed; its message is in the error bytes. */
  error: 3,
  /** Workers that took a solve's arrays, or were released from it. */
  acks: 4,
  /** ready + t: 1 once worker t's module has loaded. */
  ready: 5,
} as const;

/**
 * Most workers a team starts. Each holds its own partial of a dense reduced system (8 · n²
 * bytes: 184 MB for 800 cameras), so 8 threads add at most 1.3 GB there; Cloudflare's largest
 * container has 4 vCPU.
 */
export const MAX_WORKERS = 7;
export const CONTROL_WORDS = CONTROL.ready + MAX_WORKERS + 1;
export const ERROR_BYTES = 2048;
