/**
 * @module The one alarm of a ReconstructionObject, shared by the job watchdog and the tasks.
 *
 * The job's deadline is stored (every sign of life moves it); the alarm is set to the earlier of
 * that deadline and the tasks' next wake (a lease running out, a pending message to send again).
 * When the alarm fires, the job watchdog acts only if the deadline has passed, so a wake for a
 * task never re-dispatches the job. The watchdog's settings and its last word (TIMEOUT_FAILURE)
 * are here too.
 */
import { z } from "zod";
import type { FailureInfo } from "../../shared/records.js";

/** Watchdog settings, from optional Worker vars (seconds / count). */
export const WatchdogConfig = z.object({
  WATCHDOG_PENDING_SECONDS: z.coerce.number().positive().default(300),
  WATCHDOG_PROCESSING_SECONDS: z.coerce.number().positive().default(600),
  WATCHDOG_MAX_ATTEMPTS: z.coerce.number().int().min(1).default(3),
  /** While an attempt waits in the line, how often the object asks the line again (no attempt is used). */
  WATCHDOG_QUEUED_SECONDS: z.coerce.number().positive().default(600),
  /** Delay before retrying a failed AccountObject call (refund, outcome). */
  WATCHDOG_SETTLE_RETRY_SECONDS: z.coerce.number().positive().default(30),
});
export type WatchdogConfig = z.infer<typeof WatchdogConfig>;

/** The failure of a job whose last attempt missed its deadline. */
export const TIMEOUT_FAILURE: FailureInfo = {
  code: "processing_timeout",
  message: "The reconstruction did not finish: compute stopped responding on every attempt.",
  suggestion: "Submit the files again; your credit was refunded.",
};

const ALARM_SQL = `CREATE TABLE IF NOT EXISTS alarm_plan (
  singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
  job_deadline INTEGER,
  alarm_at INTEGER
);`;

interface AlarmPlanRow {
  job_deadline: number | null;
  alarm_at: number | null;
}

export class AlarmPlan {
  constructor(
    private readonly sql: SqlStorage,
    private readonly storage: DurableObjectStorage,
  ) {}

  /** The job watchdog fires at `at` (epoch ms) unless moved again; call `arm` after. */
  setJobDeadline(at: number): void {
    this.sql.exec(ALARM_SQL);
    this.sql.exec(`INSERT INTO alarm_plan (singleton, job_deadline) VALUES (1, ?) ON CONFLICT (singleton) DO UPDATE SET job_deadline = excluded.job_deadline`, at);
  }

  /**
   * The moment a firing alarm stands for: the time it was set for, or now when later. It never
   * fires before that time, so this is `now` in production; it keeps a clock a few ms behind the
   * alarm's, or an alarm run ahead of time (tests), from finding nothing due and re-arming itself.
   */
  firedAt(now: number): number {
    return Math.max(now, this.read()?.alarm_at ?? 0);
  }

  /** Objects created before the deadline was stored had the alarm as their deadline: absent means passed. */
  jobDeadlinePassed(at: number): boolean {
    const deadline = this.read()?.job_deadline ?? null;
    return deadline === null || deadline <= at;
  }

  /** Sets the alarm to the earlier of the job deadline and `taskWake` (null: no task needs it). */
  async arm(taskWake: number | null): Promise<void> {
    const candidates = [this.read()?.job_deadline ?? null, taskWake].filter((t): t is number => t !== null);
    if (candidates.length === 0) return this.disarm();
    const at = Math.min(...candidates);
    this.sql.exec(ALARM_SQL);
    this.sql.exec(`INSERT INTO alarm_plan (singleton, alarm_at) VALUES (1, ?) ON CONFLICT (singleton) DO UPDATE SET alarm_at = excluded.alarm_at`, at);
    await this.storage.setAlarm(at);
  }

  /** Nothing left to watch (the reconstruction settled). */
  async disarm(): Promise<void> {
    if (this.read()) this.sql.exec(`UPDATE alarm_plan SET job_deadline = NULL, alarm_at = NULL`);
    await this.storage.deleteAlarm();
  }

  private read(): AlarmPlanRow | undefined {
    const exists = this.sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alarm_plan'`).toArray().length > 0;
    if (!exists) return undefined;
    return this.sql.exec<{ job_deadline: number | null; alarm_at: number | null }>(`SELECT job_deadline, alarm_at FROM alarm_plan`).toArray()[0];
  }
}
