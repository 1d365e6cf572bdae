/**
 * @module The scheduler's tables: jobs waiting for compute, jobs handed to it, and what compute
 * last answered. Plain SQL on the Durable Object's SQLite, kept apart from the object so the
 * fairness rule reads in one place.
 *
 * Fairness rule (start-time fair queuing, one job per account per round): each job joins the line
 * with a round number, one more than its account's previous job's, but never below the round the
 * line has reached (the round of the last job started). Lower rounds start first; within a round,
 * older reconstructions first. So one account's batch of hundreds takes one slot per round,
 * another account's single upload joins the current round and goes ahead of the rest of the
 * batch, and an account that arrives late with a batch of its own is interleaved from the
 * current round on rather than served first. With one account only, it is creation order. A job
 * sent again after its container died joins the current round, so it goes back near the front.
 */
import type { JobMessage } from "../../shared/jobs.js";

export const SCHEDULER_SQL = `
CREATE TABLE IF NOT EXISTS waiting (
  reconstruction_id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  enqueued_at INTEGER NOT NULL,
  run_seconds REAL NOT NULL,
  job TEXT NOT NULL,
  round INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS waiting_order ON waiting (round, created_at, reconstruction_id);
CREATE TABLE IF NOT EXISTS account_rounds (
  account_id TEXT PRIMARY KEY,
  last_round INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS running (
  reconstruction_id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  dispatched_at INTEGER NOT NULL,
  expected_end INTEGER NOT NULL,
  slot INTEGER
);
CREATE TABLE IF NOT EXISTS compute_health (
  singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
  healthy_at INTEGER,
  busy_at INTEGER,
  errors INTEGER NOT NULL DEFAULT 0,
  slots INTEGER NOT NULL DEFAULT 1,
  current_round INTEGER NOT NULL DEFAULT 0,
  run_ratio REAL NOT NULL DEFAULT 1
);
INSERT OR IGNORE INTO compute_health (singleton) VALUES (1);`;

export interface WaitingJob {
  reconstruction_id: string;
  account_id: string;
  attempt: number;
  created_at: string;
  /** Epoch ms when this attempt joined the line. */
  enqueued_at: number;
  run_seconds: number;
  /** JobMessage as JSON. */
  job: string;
  /** Its round in the fairness rule. */
  round: number;
}

export interface ComputeHealth {
  /** Last time compute answered at all sensibly (accepted or busy), epoch ms. */
  healthy_at: number | null;
  /** Last busy answer, epoch ms. */
  busy_at: number | null;
  /** Error answers in a row (unreachable, 5xx). */
  errors: number;
  /** Jobs running when compute last answered busy: the capacity seen. */
  slots: number;
  /** Real over estimated run time of the jobs that completed lately (moving average): the forecasts' correction. */
  run_ratio: number;
}

/** Where a job is in the scheduler. */
export type LinePlace =
  | { state: "queued"; position: number; estimated_start: number; estimated_end: number }
  | { state: "running"; attempt: number; dispatched_at: number }
  | { state: "absent" };

const FAIR_ORDER_SQL = `SELECT * FROM waiting ORDER BY round, created_at, reconstruction_id`;

export class WaitingLine {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(SCHEDULER_SQL);
  }

  /** Every waiting job, in the order they will start (the fairness rule above). */
  inOrder(limit = -1): WaitingJob[] {
    return this.sql.exec<Record<string, SqlStorageValue>>(`${FAIR_ORDER_SQL} LIMIT ?`, limit).toArray() as unknown as WaitingJob[];
  }

  waitingCount(): number {
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM waiting`).one().n;
  }

  runningCount(): number {
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM running`).one().n;
  }

  runningRows(): Array<{ dispatched_at: number; expected_end: number }> {
    return this.sql.exec<{ dispatched_at: number; expected_end: number }>(`SELECT dispatched_at, expected_end FROM running`).toArray();
  }

  waitingAttempt(id: string): number | undefined {
    return this.sql.exec<{ attempt: number }>(`SELECT attempt FROM waiting WHERE reconstruction_id = ?`, id).toArray()[0]?.attempt;
  }

  running(id: string): { attempt: number; dispatched_at: number } | undefined {
    return this.sql.exec<{ attempt: number; dispatched_at: number }>(`SELECT attempt, dispatched_at FROM running WHERE reconstruction_id = ?`, id).toArray()[0];
  }

  /**
   * Puts this attempt in the line; an entry of an earlier attempt (waiting or running) gives way.
   * False when the same or a newer attempt is already there (a repeat changes nothing).
   */
  add(job: JobMessage, runSeconds: number, now: number): boolean {
    const waiting = this.waitingAttempt(job.reconstruction_id);
    const running = this.running(job.reconstruction_id);
    if ((waiting ?? 0) >= job.attempt || (running?.attempt ?? 0) >= job.attempt) return false;
    this.sql.exec(`DELETE FROM running WHERE reconstruction_id = ?`, job.reconstruction_id);
    const round = job.attempt > 1 ? this.currentRound() : this.nextRound(job.account_id);
    this.sql.exec(
      `INSERT INTO waiting (reconstruction_id, account_id, attempt, created_at, enqueued_at, run_seconds, job, round) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (reconstruction_id) DO UPDATE SET attempt = excluded.attempt, enqueued_at = excluded.enqueued_at, job = excluded.job`,
      job.reconstruction_id, job.account_id, job.attempt, job.created_at, now, runSeconds, JSON.stringify(job), round,
    );
    return true;
  }

  /** The round the line has reached: that of the last job started. */
  private currentRound(): number {
    return this.sql.exec<{ current_round: number }>(`SELECT current_round FROM compute_health`).one().current_round;
  }

  /**
   * One more than the account's previous job's round while it has jobs waiting, never below the
   * current round; the current round when it has none (a cancelled backlog leaves no debt). Recorded.
   */
  private nextRound(accountId: string): number {
    const last = this.sql.exec<{ last_round: number }>(`SELECT last_round FROM account_rounds WHERE account_id = ?`, accountId).toArray()[0]?.last_round;
    const backlog = this.sql.exec(`SELECT 1 FROM waiting WHERE account_id = ? LIMIT 1`, accountId).toArray().length > 0;
    const round = backlog && last !== undefined ? Math.max(last + 1, this.currentRound()) : this.currentRound();
    this.sql.exec(`INSERT INTO account_rounds (account_id, last_round) VALUES (?, ?) ON CONFLICT (account_id) DO UPDATE SET last_round = excluded.last_round`, accountId, round);
    return round;
  }

  /**
   * Compute accepted the job: from waiting to running. False when it left the line meanwhile (it
   * was withdrawn while the POST was on its way); compute then learns from the refusal of its
   * first report that the job has ended.
   */
  markRunning(job: WaitingJob, now: number, slot: number | null): boolean {
    const removed = this.sql.exec(`DELETE FROM waiting WHERE reconstruction_id = ? AND attempt = ?`, job.reconstruction_id, job.attempt).rowsWritten;
    if (removed === 0) return false;
    this.sql.exec(`UPDATE compute_health SET current_round = MAX(current_round, ?)`, job.round);
    this.sql.exec(
      `INSERT OR REPLACE INTO running (reconstruction_id, account_id, attempt, dispatched_at, expected_end, slot) VALUES (?, ?, ?, ?, ?, ?)`,
      job.reconstruction_id, job.account_id, job.attempt, now, now + job.run_seconds * 1000, slot,
    );
    return true;
  }

  /** The lowest slot below `cap` that no running job holds (null if all are taken). */
  freeSlot(cap: number): number | null {
    const taken = new Set(this.sql.exec<{ slot: number | null }>(`SELECT slot FROM running WHERE slot IS NOT NULL`).toArray().map((r) => r.slot));
    for (let slot = 0; slot < cap; slot++) if (!taken.has(slot)) return slot;
    return null;
  }

  /**
   * A job completed on compute: its real run time over its estimate moves the forecasts'
   * correction (a moving average over about the last five jobs, kept within 0.2–5).
   */
  learnRunTime(id: string, now: number): void {
    const row = this.sql.exec<{ dispatched_at: number; expected_end: number }>(`SELECT dispatched_at, expected_end FROM running WHERE reconstruction_id = ?`, id).toArray()[0];
    if (!row || !(row.expected_end > row.dispatched_at)) return;
    const ratio = Math.min(5, Math.max(0.2, (now - row.dispatched_at) / (row.expected_end - row.dispatched_at)));
    this.sql.exec(`UPDATE compute_health SET run_ratio = 0.8 * run_ratio + 0.2 * ?`, ratio);
  }

  /** The job ended (or failed to be handed over): it leaves the line. */
  remove(id: string): void {
    this.sql.exec(`DELETE FROM waiting WHERE reconstruction_id = ?`, id);
    this.sql.exec(`DELETE FROM running WHERE reconstruction_id = ?`, id);
  }

  health(): ComputeHealth {
    return this.sql.exec<Record<string, SqlStorageValue>>(`SELECT healthy_at, busy_at, errors, slots, run_ratio FROM compute_health`).one() as unknown as ComputeHealth;
  }

  recordAccepted(now: number): void {
    this.sql.exec(`UPDATE compute_health SET healthy_at = ?, errors = 0, slots = MAX(slots, ?)`, now, this.runningCount());
  }

  recordBusy(now: number): void {
    this.sql.exec(`UPDATE compute_health SET healthy_at = ?, busy_at = ?, errors = 0, slots = ?`, now, now, Math.max(1, this.runningCount()));
  }

  /** Returns the errors in a row, this one included. */
  recordError(): number {
    return this.sql.exec<{ errors: number }>(`UPDATE compute_health SET errors = errors + 1 RETURNING errors`).one().errors;
  }
}
