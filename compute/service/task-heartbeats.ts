/**
 * @module The heartbeats of one leased task: one every HEARTBEAT_SECONDS keeps the lease, and one
 * soon after the task's fraction moves (at most one per TASK_PROGRESS_MS) carries it.
 *
 * Why both: the coordinator measures a stage's pace from the tasks' fractions in the task table
 * (ProgressTracker). With the fraction carried by the lease's 15-s heartbeat only, a task's
 * fraction reached the table up to 15 s late, and each task's at another moment, so the stage's
 * mean fraction moved in 15-s steps. This helps only with fractions that follow the task's time
 * (a dense cluster counts its views' sweeps: solve-cluster.ts); with a fraction that moved once
 * per pair of solved views it made no difference (docs/decisions.md, "Task heartbeats carry a
 * moved fraction").
 */

export interface TaskHeartbeats {
  /** The task's fraction moved: report it soon. */
  progressed(): void;
  stop(): void;
}

export interface TaskHeartbeatTiming {
  /** Between two heartbeats that keep the lease. */
  leaseMs: number;
  /** Least time between two heartbeats sent for a moved fraction. */
  progressMs: number;
}

/**
 * Calls `send` every `leaseMs`, and after `progressed()` at once or when `progressMs` has passed
 * since the last call; `send` reads the task's current fraction itself, so several moves within
 * `progressMs` make one report of the latest.
 */
export function startTaskHeartbeats(send: () => void, timing: TaskHeartbeatTiming, now: () => number = Date.now): TaskHeartbeats {
  let lastSentAt = Number.NEGATIVE_INFINITY;
  let progressTimer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  const beat = () => {
    if (stopped) return;
    lastSentAt = now();
    send();
  };
  const leaseTimer = setInterval(beat, timing.leaseMs);
  return {
    progressed() {
      if (stopped || progressTimer) return;
      const wait = Math.max(0, lastSentAt + timing.progressMs - now());
      progressTimer = setTimeout(() => {
        progressTimer = null;
        beat();
      }, wait);
    },
    stop() {
      stopped = true;
      clearInterval(leaseTimer);
      if (progressTimer) clearTimeout(progressTimer);
      progressTimer = null;
    },
  };
}
