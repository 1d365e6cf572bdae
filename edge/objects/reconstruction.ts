/**
 * @module ReconstructionObject: one SQLite Durable Object per reconstruction (named by its id),
 * the source of truth for its state.
 *
 * Compute reports through RPC (`start`, `progress`, `heartbeat`, `complete`, `fail`); every
 * argument is parsed with the shared/jobs.ts schemas (a malformed one is refused), every report
 * names its dispatch `attempt`, and a report from an older attempt or one that does not fit the
 * state machine is refused without effect, so duplicated or late messages are harmless.
 *
 * The alarm is the watchdog: every sign of life moves the job's deadline, and when the deadline
 * has passed it re-dispatches the job with attempt + 1, up to a bounded number of attempts, and
 * finally fails the reconstruction with `processing_timeout` and refunds the credit.
 *
 * The owner may cancel (→ failed, `cancelled`) and delete (a tombstone: the id then answers as
 * unknown). Side effects on the AccountObject (refund, outcome, webhook events) are retried by
 * the alarm until they succeed; the AccountObject makes each of them idempotent per id.
 *
 * The task table of a large job (its verbs in reconstruction-task-verbs.ts, to which the task
 * RPC methods delegate) shares the alarm: it also wakes for a task lease that runs out
 * (reconstruction-alarm.ts), which sends that task again without touching the job or the other
 * tasks.
 */
import { DurableObject } from "cloudflare:workers";
import type { z } from "zod";
import type { Env } from "../env.js";
import { CompletionReport, FailureReport, ProgressReport } from "../../shared/jobs.js";
import type { FailureInfo, ReconstructionStatus, StatusRecord } from "../../shared/records.js";
import type { AddTasksRequest, TaskCompletion, TaskFailure, TaskHeartbeat, TaskLeaseAnswer, TaskLeaseRequest, TaskMessage, TaskRecord } from "../../shared/tasks.js";
import { ReconstructionInit, type ReconstructionRpc, type ReportOutcome, type TransitionRecord } from "./reconstruction-rpc.js";
import { Attempt, SCHEMA_SQL, canTransition, isTerminal, jobOf, readRow, refused, toStatusRecord, type ReconstructionRow, type Refusal } from "./reconstruction-state.js";
import { CANCELLED_FAILURE, TOMBSTONE_SQL, type CancelOutcome } from "./reconstruction-cancel.js";
import { emitOnce } from "./reconstruction-events.js";
import { AlarmPlan, TIMEOUT_FAILURE, WatchdogConfig } from "./reconstruction-alarm.js";
import { ReconstructionTasks } from "./reconstruction-task-verbs.js";
import { TaskConfig, invalidReason, type AddTasksOutcome, type TaskReportOutcome } from "./reconstruction-tasks.js";
import { linePlaceOf, markDispatched, markQueued, readDispatchState, runSecondsOf, withQueuePlace } from "./reconstruction-line.js";
import { settleTerminal } from "./reconstruction-settle.js";
import { schedulerStub } from "../scheduling/scheduler-object.js";
import type { LinePlace } from "../scheduling/waiting-line.js";

export class ReconstructionObject extends DurableObject<Env> implements ReconstructionRpc {
  private readonly sql: SqlStorage;
  private readonly watchdog: WatchdogConfig;
  private readonly alarmPlan: AlarmPlan;
  /** The task table's verbs (reconstruction-task-verbs.ts). */
  private readonly taskTable: ReconstructionTasks;
  /** Tables exist; they are created by `create` only, so reading an unknown id stores nothing. */
  private hasSchema = false;
  /** The table has every column of this version (an older object's gets them on first read, reconstruction-state.ts ADDED_COLUMNS). */
  private columnsChecked = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.watchdog = WatchdogConfig.parse(env);
    this.alarmPlan = new AlarmPlan(this.sql, ctx.storage);
    this.taskTable = new ReconstructionTasks(this.sql, () => this.env.TASKS, TaskConfig.parse(env), {
      row: () => this.row(),
      isDeleted: () => this.isDeleted(),
      currentAttemptRow: (attempt) => this.currentAttemptRow(attempt),
      startIfPending: (attempt) => this.startIfPending(attempt),
      touch: (row, reason) => this.touch(row, reason),
      scheduleAlarm: () => this.scheduleAlarm(),
    });
  }

  /**
   * Creates the record in `pending` and puts attempt 1 in the waiting line. Idempotent for the
   * same id. The answer's `estimated_completion` includes the forecast wait.
   */
  async create(init: ReconstructionInit): Promise<{ created: boolean; estimated_completion: string }> {
    const data = ReconstructionInit.parse(init);
    const existing = this.row();
    if (existing) return { created: false, estimated_completion: existing.estimated_completion };
    this.sql.exec(SCHEMA_SQL);
    this.hasSchema = true;
    const now = new Date().toISOString();
    const survey = data.control_points || data.output_crs ? JSON.stringify({ control_points: data.control_points, output_crs: data.output_crs }) : null;
    this.sql.exec(
      `INSERT INTO reconstruction (id, account_id, status, quality, created_at, estimated_completion, total_files, inputs, last_seen_at, survey)
       VALUES (?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?)`,
      data.id, data.account_id, data.quality, data.created_at, data.estimated_completion, data.inputs.length, JSON.stringify(data.inputs), now, survey,
    );
    this.log("pending", "pending", 1, "created");
    markQueued(this.sql, 1, runSecondsOf(data.created_at, data.estimated_completion));
    const place = await this.dispatch();
    const record = withQueuePlace(toStatusRecord(this.row()!), readDispatchState(this.sql), place);
    if (record.estimated_completion !== data.estimated_completion) {
      this.sql.exec(`UPDATE reconstruction SET estimated_completion = ? WHERE id = ?`, record.estimated_completion, data.id);
    }
    return { created: true, estimated_completion: record.estimated_completion };
  }

  /**
   * Puts this attempt in the waiting line if it is current, pending and not yet with compute
   * (for job-queue messages sent before the line existed); otherwise nothing.
   */
  async joinLine(attempt: number): Promise<ReportOutcome> {
    const parsed = Attempt.safeParse(attempt);
    if (!parsed.success) return this.invalid(parsed.error);
    const row = this.currentAttemptRow(parsed.data);
    if ("reason" in row) return row;
    if (row.status !== "pending") return refused(row, `already ${row.status}`);
    const state = readDispatchState(this.sql);
    if (state?.state === "dispatched") return refused(row, "already with compute");
    if (!state) markQueued(this.sql, row.attempt, runSecondsOf(row.created_at, row.estimated_completion));
    await this.dispatch();
    return { accepted: true, status: row.status };
  }

  /**
   * The waiting line handed this attempt to compute: the pending watchdog starts now (compute
   * must start it within WATCHDOG_PENDING_SECONDS). A repeat, or a report for an older attempt,
   * changes nothing.
   */
  async dispatched(attempt: number): Promise<ReportOutcome> {
    const parsed = Attempt.safeParse(attempt);
    if (!parsed.success) return this.invalid(parsed.error);
    const row = this.currentAttemptRow(parsed.data);
    if ("reason" in row) return row;
    if (isTerminal(row.status)) return refused(row, `already ${row.status}`);
    if (!markDispatched(this.sql, row.attempt, new Date().toISOString())) return refused(row, "already dispatched");
    if (row.status === "pending") await this.armWatchdog(this.watchdog.WATCHDOG_PENDING_SECONDS);
    return { accepted: true, status: row.status };
  }

  /** Compute picked the job up: pending → processing. */
  async start(attempt: number): Promise<ReportOutcome> {
    const parsed = Attempt.safeParse(attempt);
    if (!parsed.success) return this.invalid(parsed.error);
    const row = this.currentAttemptRow(parsed.data);
    if ("reason" in row) return row;
    if (row.status === "processing") return this.touch(row, "already processing");
    if (!canTransition(row.status, "processing")) return refused(row, `cannot start from ${row.status}`);
    const now = new Date().toISOString();
    // Compute reports before the line's own word may arrive: it has the job all the same.
    markDispatched(this.sql, row.attempt, now);
    this.sql.exec(`UPDATE reconstruction SET status = 'processing', started_at = COALESCE(started_at, ?), last_seen_at = ? WHERE id = ?`, now, now, row.id);
    this.log(row.status, "processing", row.attempt, "started");
    await this.armWatchdog(this.watchdog.WATCHDOG_PROCESSING_SECONDS);
    await this.emitProcessing();
    return { accepted: true, status: "processing" };
  }

  /** Stage and percentage; progress and files_processed never decrease. */
  async progress(report: ProgressReport): Promise<ReportOutcome> {
    const parsed = ProgressReport.safeParse(report);
    if (!parsed.success) return this.invalid(parsed.error);
    const data = parsed.data;
    const started = await this.startIfPending(data.attempt);
    if ("reason" in started) return started;
    const row = this.row()!;
    const estimate = data.estimated_completion !== undefined && !Number.isNaN(Date.parse(data.estimated_completion))
      ? new Date(data.estimated_completion).toISOString()
      : row.estimated_completion;
    markDispatched(this.sql, row.attempt, new Date().toISOString());
    this.sql.exec(
      `UPDATE reconstruction SET progress = MAX(progress, ?), files_processed = MAX(files_processed, ?), stage = ?, estimated_completion = ?, last_seen_at = ? WHERE id = ?`,
      data.progress, Math.min(data.files_processed, row.total_files), data.stage, estimate, new Date().toISOString(), row.id,
    );
    await this.armWatchdog(this.watchdog.WATCHDOG_PROCESSING_SECONDS);
    await this.emitProcessing(); // a no-op once emitted; retries one that failed at start
    return { accepted: true, status: "processing" };
  }

  /** A sign of life without news; re-arms the watchdog. */
  async heartbeat(attempt: number): Promise<ReportOutcome> {
    const parsed = Attempt.safeParse(attempt);
    if (!parsed.success) return this.invalid(parsed.error);
    const row = this.currentAttemptRow(parsed.data);
    if ("reason" in row) return row;
    if (isTerminal(row.status)) return refused(row, `already ${row.status}`);
    return this.touch(row, "heartbeat");
  }

  /** Outputs are in R2: processing → completed. */
  async complete(report: CompletionReport): Promise<ReportOutcome> {
    const parsed = CompletionReport.safeParse(report);
    if (!parsed.success) return this.invalid(parsed.error);
    const data = parsed.data;
    const current = this.row();
    if (current?.status === "completed") return refused(current, "already completed");
    const started = await this.startIfPending(data.attempt);
    if ("reason" in started) return started;
    const row = this.row()!;
    const now = new Date().toISOString();
    this.sql.exec(
      `UPDATE reconstruction SET status = 'completed', progress = 100, stage = NULL, files_processed = total_files, formats = ?, georeference = ?, completed_at = ?, estimated_completion = ?, last_seen_at = ? WHERE id = ?`,
      JSON.stringify(data.formats), data.georeference ? JSON.stringify(data.georeference) : null, now, now, now, row.id,
    );
    this.log(row.status, "completed", row.attempt, `formats ${data.formats.map((f) => f.format).join(",")}`);
    await this.settle();
    return { accepted: true, status: "completed" };
  }

  /** Compute gave up with a reason: → failed, credit refunded once. */
  async fail(report: FailureReport): Promise<ReportOutcome> {
    const parsed = FailureReport.safeParse(report);
    if (!parsed.success) return this.invalid(parsed.error);
    const data = parsed.data;
    const row = this.currentAttemptRow(data.attempt);
    if ("reason" in row) return row;
    if (!canTransition(row.status, "failed")) return refused(row, `cannot fail from ${row.status}`);
    await this.failNow(row, { code: data.code, message: data.message, suggestion: data.suggestion });
    return { accepted: true, status: "failed" };
  }

  /** The public record for its owner; null for anyone else (the route answers 404 either way). */
  async status(accountId: string): Promise<StatusRecord | null> {
    const row = this.ownedRow(accountId);
    if (!row) return null;
    const record = toStatusRecord(row);
    if (row.status !== "pending") return record;
    const state = readDispatchState(this.sql);
    return withQueuePlace(record, state, state?.state === "queued" ? await linePlaceOf(this.env, row.id) : undefined);
  }

  /**
   * The owner stops the job: pending or processing → failed (`cancelled`), credit refunded once
   * by settle(). Compute learns it from the refusal of its next heartbeat or progress report.
   */
  async cancel(accountId: string): Promise<CancelOutcome> {
    const row = this.ownedRow(accountId);
    if (!row) return { kind: "not_found" };
    if (isTerminal(row.status)) return { kind: "already_terminal", record: toStatusRecord(row) };
    await this.failNow(row, CANCELLED_FAILURE);
    return { kind: "cancelled", record: toStatusRecord(this.row()!) };
  }

  /** Marks a terminal reconstruction deleted: it answers as unknown from now on. False if not the owner's or not terminal. */
  async markDeleted(accountId: string): Promise<boolean> {
    const row = this.ownedRow(accountId);
    if (!row || !isTerminal(row.status)) return false;
    this.sql.exec(TOMBSTONE_SQL);
    this.sql.exec(`INSERT OR IGNORE INTO tombstone (singleton, deleted_at) VALUES (1, ?)`, new Date().toISOString());
    this.log(row.status, row.status, row.attempt, "deleted by its owner");
    return true;
  }

  /** Whether compute may still write outputs: only while the job can still complete. */
  async acceptsOutputs(): Promise<boolean> {
    const row = this.row();
    return !!row && !isTerminal(row.status) && !this.isDeleted();
  }

  // The task table of a large job: each verb is documented where it runs (reconstruction-task-verbs.ts).

  addTasks(request: AddTasksRequest): Promise<AddTasksOutcome> {
    return this.taskTable.add(request);
  }

  leaseTask(key: string, request: TaskLeaseRequest): Promise<TaskLeaseAnswer> {
    return this.taskTable.lease(key, request);
  }

  taskHeartbeat(key: string, beat: TaskHeartbeat): Promise<TaskReportOutcome> {
    return this.taskTable.heartbeat(key, beat);
  }

  completeTask(key: string, completion: TaskCompletion): Promise<TaskReportOutcome> {
    return this.taskTable.complete(key, completion);
  }

  failTask(key: string, failure: TaskFailure): Promise<TaskReportOutcome> {
    return this.taskTable.fail(key, failure);
  }

  tasks(attempt: number): Promise<TaskRecord[]> {
    return this.taskTable.list(attempt);
  }

  taskWanted(message: TaskMessage): Promise<boolean> {
    return this.taskTable.wanted(message);
  }

  deferTask(message: TaskMessage, seconds: number): Promise<boolean> {
    return this.taskTable.defer(message, seconds);
  }

  abandonTask(message: TaskMessage, reason: string): Promise<TaskReportOutcome> {
    return this.taskTable.abandon(message, reason);
  }

  /** The job watchdog when its deadline has passed, otherwise the tasks' wake (see the module comment). */
  override async alarm(): Promise<void> {
    const row = this.row();
    if (!row) return;
    if (isTerminal(row.status)) {
      await this.settle();
      return;
    }
    const at = this.alarmPlan.firedAt(Date.now());
    if (!this.alarmPlan.jobDeadlinePassed(at)) {
      // A wake for the tasks: leases that ran out, messages to send again. The job is on time.
      await this.taskTable.board(row).onAlarm(at);
      await this.scheduleAlarm();
      return;
    }
    // Still waiting in the line: not a missed deadline, only time to make sure the line has it.
    const line = readDispatchState(this.sql);
    if (line?.state === "queued" && line.attempt === row.attempt) {
      await this.dispatch();
      return;
    }
    // The job's deadline passed: a re-dispatch makes this attempt's tasks stale, a failure ends them.
    if (row.attempt < this.watchdog.WATCHDOG_MAX_ATTEMPTS) {
      this.sql.exec(`UPDATE reconstruction SET attempt = attempt + 1, last_seen_at = ? WHERE id = ?`, new Date().toISOString(), row.id);
      this.log(row.status, row.status, row.attempt + 1, `watchdog: no sign of life from attempt ${row.attempt}, re-dispatching`);
      markQueued(this.sql, row.attempt + 1, runSecondsOf(row.created_at, row.estimated_completion));
      await this.dispatch();
      return;
    }
    this.log(row.status, row.status, row.attempt, `watchdog: attempt ${row.attempt} of ${this.watchdog.WATCHDOG_MAX_ATTEMPTS} timed out`);
    await this.failNow(row, TIMEOUT_FAILURE);
  }

  /** The transition log (oldest first), for operators and tests. */
  async history(): Promise<TransitionRecord[]> {
    if (!this.row()) return [];
    return this.sql.exec<TransitionRecord>(
      `SELECT at, from_status, to_status, attempt, note FROM transitions ORDER BY seq`,
    ).toArray();
  }

  /** The `reconstruction.processing` webhook event, once; a failure is logged and retried by the next progress report. */
  private async emitProcessing(): Promise<void> {
    const row = this.row()!;
    await emitOnce(this.sql, this.env, row.account_id, "reconstruction.processing", toStatusRecord(row)).catch((err: unknown) =>
      console.error(JSON.stringify({ level: "error", reconstruction_id: row.id, msg: "webhook event not emitted", error: String(err) })),
    );
  }

  /** A malformed report is refused as data, not thrown: errors cross boundaries as values. */
  private invalid(error: z.ZodError): ReportOutcome {
    return { accepted: false, status: this.row()?.status, reason: invalidReason(error) };
  }

  /** The row when it exists, belongs to `accountId` and is not deleted. */
  private ownedRow(accountId: string): ReconstructionRow | undefined {
    const row = this.row();
    if (!row || row.account_id !== accountId || this.isDeleted()) return undefined;
    return row;
  }

  private isDeleted(): boolean {
    return this.sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tombstone'`).toArray().length > 0;
  }

  private row(): ReconstructionRow | undefined {
    this.hasSchema ||= this.sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'reconstruction'`).toArray().length > 0;
    if (!this.hasSchema) return undefined;
    const row = readRow(this.sql, !this.columnsChecked);
    this.columnsChecked ||= row !== undefined;
    return row;
  }

  /** The row when `attempt` is the current one; otherwise a refusal. */
  private currentAttemptRow(attempt: number): ReconstructionRow | Refusal {
    const row = this.row();
    if (!row) return { accepted: false, reason: "unknown reconstruction" };
    if (attempt !== row.attempt) return refused(row, `attempt ${attempt} is not the current attempt ${row.attempt}`);
    return row;
  }

  private async startIfPending(attempt: number): Promise<ReconstructionRow | Refusal> {
    const row = this.currentAttemptRow(attempt);
    if ("reason" in row) return row;
    if (row.status === "pending") {
      const outcome = await this.start(attempt);
      if (!outcome.accepted) return { ...outcome, reason: outcome.reason ?? "not started" };
      return this.row()!;
    }
    if (row.status !== "processing") return refused(row, `already ${row.status}`);
    return row;
  }

  private async touch(row: ReconstructionRow, reason: string): Promise<ReportOutcome> {
    const now = new Date().toISOString();
    markDispatched(this.sql, row.attempt, now); // a report of this attempt: compute has it
    this.sql.exec(`UPDATE reconstruction SET last_seen_at = ? WHERE id = ?`, now, row.id);
    const seconds = row.status === "pending" ? this.watchdog.WATCHDOG_PENDING_SECONDS : this.watchdog.WATCHDOG_PROCESSING_SECONDS;
    await this.armWatchdog(seconds);
    return { accepted: true, status: row.status, reason };
  }

  private async failNow(row: ReconstructionRow, error: FailureInfo): Promise<void> {
    const now = new Date().toISOString();
    this.sql.exec(
      `UPDATE reconstruction SET status = 'failed', stage = NULL, error = ?, completed_at = ?, estimated_completion = ? WHERE id = ?`,
      JSON.stringify(error), now, now, row.id,
    );
    this.log(row.status, "failed", row.attempt, error.code);
    await this.settle();
  }

  /** A terminal state's side effects (reconstruction-settle.ts); the alarm retries them until they went through. */
  private async settle(): Promise<void> {
    const row = this.row();
    if (!row || !isTerminal(row.status)) return;
    try {
      await settleTerminal(this.sql, this.env, row, () => toStatusRecord(this.row()!));
      await this.alarmPlan.disarm();
    } catch (err) {
      console.error(JSON.stringify({ level: "error", reconstruction_id: row.id, msg: "account settlement failed, retrying", error: String(err) }));
      await this.armWatchdog(this.watchdog.WATCHDOG_SETTLE_RETRY_SECONDS);
    }
  }

  /**
   * Puts the current attempt in the waiting line (a repeat keeps its place) and arms the check
   * that asks the line again. When the line says compute already has it, the pending watchdog
   * starts. Undefined when the line could not be reached: the alarm tries again.
   */
  private async dispatch(): Promise<LinePlace | undefined> {
    const row = this.row()!;
    const message = jobOf(row);
    const state = readDispatchState(this.sql);
    await this.armWatchdog(this.watchdog.WATCHDOG_QUEUED_SECONDS);
    try {
      const place = await schedulerStub(this.env).enqueue({ job: message, run_seconds: state?.run_seconds ?? runSecondsOf(row.created_at, row.estimated_completion) });
      if (place.state === "running" && place.attempt === row.attempt) await this.dispatched(row.attempt);
      return place;
    } catch (err) {
      // The alarm asks again soon; the line being unreachable must not lose the job.
      console.error(JSON.stringify({ level: "error", reconstruction_id: row.id, msg: "waiting line unreachable", error: String(err) }));
      await this.armWatchdog(this.watchdog.WATCHDOG_SETTLE_RETRY_SECONDS);
      return undefined;
    }
  }

  /** Moves the job's deadline; the alarm follows the earlier of it and the tasks' next wake. */
  private async armWatchdog(seconds: number): Promise<void> {
    this.alarmPlan.setJobDeadline(Date.now() + seconds * 1000);
    await this.scheduleAlarm();
  }

  /** After any change to the deadline or the tasks. A finished job's tasks need no alarm. */
  private async scheduleAlarm(): Promise<void> {
    const row = this.row();
    const taskWake = row && !isTerminal(row.status) ? this.taskTable.board(row).nextWake() : null;
    await this.alarmPlan.arm(taskWake);
  }

  private log(from: ReconstructionStatus, to: ReconstructionStatus, attempt: number, note: string): void {
    this.sql.exec(`INSERT INTO transitions (at, from_status, to_status, attempt, note) VALUES (?, ?, ?, ?, ?)`, new Date().toISOString(), from, to, attempt, note);
  }
}
