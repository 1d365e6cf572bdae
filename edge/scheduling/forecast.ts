/**
 * @module When each waiting job is forecast to start: a list-scheduling simulation of the compute
 * slots, from the running jobs' expected ends and each waiting job's estimated run time.
 *
 * The slots are either the configured cap (production) or the number of jobs that were running
 * when compute last answered busy (the capacity seen; local dev and CI). A job that has overrun
 * its estimate is counted as ending soon rather than in the past, so a late job never makes the
 * line look shorter than it is.
 */

/** A running job is never forecast to end sooner than this from now. */
export const MIN_REMAINING_MS = 10_000;

export interface ForecastInput {
  now: number;
  /** Compute slots for jobs (≥ 1). */
  slots: number;
  /** Expected end (epoch ms) of each job handed to compute and not finished. */
  runningEnds: readonly number[];
  /** Estimated run time (ms) of each waiting job, in the order they will start. */
  waitingRunMs: readonly number[];
}

/** The forecast start (epoch ms) of each waiting job, in the same order. */
export function forecastStarts({ now, slots, runningEnds, waitingRunMs }: ForecastInput): number[] {
  const ends = runningEnds.map((end) => Math.max(end, now + MIN_REMAINING_MS)).sort((a, b) => a - b);
  // With more jobs running than slots (the capacity seen has dropped), a slot frees only when
  // the surplus has ended: the earliest ends free nothing.
  const freeAt = ends.slice(Math.max(0, ends.length - slots));
  while (freeAt.length < slots) freeAt.push(now);
  const starts: number[] = [];
  for (const runMs of waitingRunMs) {
    let soonest = 0;
    for (let slot = 1; slot < freeAt.length; slot++) if (freeAt[slot]! < freeAt[soonest]!) soonest = slot;
    const start = freeAt[soonest]!;
    starts.push(start);
    freeAt[soonest] = start + runMs;
  }
  return starts;
}
