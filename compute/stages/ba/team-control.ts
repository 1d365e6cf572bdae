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

/** Most workers a team starts. */
export const MAX_WORKERS = 31;
export const CONTROL_WORDS = CONTROL.ready + MAX_WORKERS + 1;
export const ERROR_BYTES = 2048;
