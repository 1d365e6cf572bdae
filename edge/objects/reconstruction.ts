/**
 * @module ReconstructionObject: one SQLite Durable Object per reconstruction (named by its id),
 * the source of truth for its state.
 *
 * Compute reports through RPC (`start`, `progress`, `heartbeat`, `complete`, `fail`); every
 * argument is parsed with the shared/jobs.ts schemas (a malformed one is refused), every report names its dispatch
 * `attempt`, and a report from an older attempt or one that does not fit the state machine is
 * refused without effect, so duplicated or late messages are harmless.
 *
 * The alarm is the watchdog: every sign of life moves the job's deadline, and when the deadline
 * has passed it re-dispatches the job with attempt + 1, up to a bounded number of attempts, and
 * finally fails the reconstruction with `processing_timeout` and refunds the credit.
 *
 * The owner may cancel (→ failed, `cancelled`) and delete (a tombstone: the id then
 * answers as unknown). Side effects on the AccountObject (refund, outcome, webhook events) are retried by the alarm until
 * they succeed; the AccountObject makes each of them idempotent per reconstruction id.
 *
 * A job's coordinator may spread work over other containers as tasks (shared/tasks.ts): the
 * object keeps their table and leases (reconstruction-task-board.ts). The same alarm also wakes
 * for a task lease that runs out (reconstruction-alarm.ts), which sends that task again without
 * touching the job or the other tasks. Task reports name the job attempt too: a newer attempt
 * makes the older attempt's tasks stale (no lease, no new delivery, no registration), though a
 * container still running one may beat and complete it, and the current attempt's task with the
 * same content digest takes that result; a finished job's tasks are refused.
 */
import { DurableObject } from "cloudflare:workers";
import { z } from "zod";
import type { Env } from "../env.js";
import { CompletionReport, FailureReport, JobMessage, ProgressReport } from "../../shared/jobs.js";
import { StatusRecord, type FailureInfo, type ReconstructionStatus } from "../../shared/records.js";
import { ReconstructionInit, type ReconstructionRpc, type ReportOutcome, type TransitionRecord } from "./reconstruction-rpc.js";
import { SCHEMA_SQL, canTransition, isTerminal, type ReconstructionRow } from "./reconstruction-state.js";
import { CANCELLED_FAILURE, TOMBSTONE_SQL, type CancelOutcome } from "./reconstruction-cancel.js";
import { emitOnce } from "./reconstruction-events.js";
import { AlarmPlan } from "./reconstruction-alarm.js";
import { TaskBoard } from "./reconstruction-task-board.js";
import { TaskConfig, deleteWorkOnce, invalidReason, refusedTask, taskArgs, type AddTasksOutcome, type TaskReportOutcome } from "./reconstruction-tasks.js";
import { markDispatched, markQueued, readDispatchState, runSecondsOf, withQueuePlace } from "./reconstruction-line.js";
import { schedulerStub } from "../scheduling/scheduler-object.js";
import type { LinePlace } from "../scheduling/waiting-line.js";
import { AddTasksRequest, TaskCompletion, TaskFailure, TaskHeartbeat, TaskLeaseRequest, TaskMessage, type TaskLeaseAnswer, type TaskRecord } from "../../shared/tasks.js";

const Attempt = z.number().int().min(1);

/** Watchdog settings, from optional Worker vars (seconds / count). */
const WatchdogConfig = z.object({
  WATCHDOG_PENDING_SECONDS: z.coerce.number().positive().default(300),
  WATCHDOG_PROCESSING_SECONDS: z.coerce.number().positive().default(600),
  WATCHDOG_MAX_ATTEMPTS: z.coerce.number().int().min(1).default(3),
  /** While an attempt waits in the line, how often the object asks the line again (no attempt is used). */
  WATCHDOG_QUEUED_SECONDS: z.coerce.number().positive().default(600),
  /** Delay before retrying a failed AccountObject call (refund, outcome). */
  WATCHDOG_SETTLE_RETRY_SECONDS: z.coerce.number().positive().default(30),
});
type WatchdogConfig = z.infer<typeof WatchdogConfig>;

export const TIMEOUT_FAILURE: FailureInfo = {
  code: "processing_timeout",
  message: "The reconstruction did not finish: compute stopped responding on every attempt.",
  suggestion: "Submit the files again; your credit was refunded.",
};

export class ReconstructionObject extends DurableObject<Env> implements ReconstructionRpc {
  private readonly sql: SqlStorage;
  private readonly watchdog: WatchdogConfig;
  private readonly taskConfig: TaskConfig;
  private readonly alarmPlan: AlarmPlan;
  /** Tables exist; they are created by `create` only, so reading an unknown id stores nothing. */
  private hasSchema = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.watchdog = WatchdogConfig.parse(env);
    this.taskConfig = TaskConfig.parse(env);
    this.alarmPlan = new AlarmPlan(this.sql, ctx.storage);
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
    this.sql.exec(
      `INSERT INTO reconstruction (id, account_id, status, quality, created_at, estimated_completion, total_files, inputs, last_seen_at)
       VALUES (?, ?, 'pending', ?, ?, ?, ?, ?, ?)`,
      data.id, data.account_id, data.quality, data.created_at, data.estimated_completion, data.inputs.length, JSON.stringify(data.inputs), now,
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
      `UPDATE reconstruction SET status = 'completed', progress = 100, stage = NULL, files_processed = total_files, formats = ?, completed_at = ?, estimated_completion = ?, last_seen_at = ? WHERE id = ?`,
      JSON.stringify(data.formats), now, now, now, row.id,
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
    return withQueuePlace(record, state, state?.state === "queued" ? await this.linePlace(row.id) : undefined);
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

  /** The coordinator registers its attempt's tasks (a pending job starts); keys already known are left as they are. */
  async addTasks(request: AddTasksRequest): Promise<AddTasksOutcome> {
    const parsed = AddTasksRequest.safeParse(request);
    if (!parsed.success) return { accepted: false, added: 0, reason: invalidReason(parsed.error) };
    const job = await this.startIfPending(parsed.data.attempt);
    if ("reason" in job) return { accepted: false, added: 0, reason: job.reason };
    const outcome = await this.taskBoard(job).add(parsed.data.tasks, Date.now());
    // The coordinator spoke: a sign of life for the job, and the alarm now also follows the tasks.
    if (outcome.accepted) await this.touch(job, "tasks added");
    return outcome;
  }

  /** A container takes a task it was sent (pending, or running on a lease that ran out). */
  async leaseTask(key: string, request: TaskLeaseRequest): Promise<TaskLeaseAnswer> {
    const args = taskArgs(key, TaskLeaseRequest, request);
    if ("reason" in args) return { granted: false, reason: args.reason };
    return this.onLiveJob<TaskLeaseAnswer>(args.body.attempt, (reason) => ({ granted: false, reason }), (board) => board.lease(args.key, args.body, Date.now()));
  }

  /**
   * The lease holder is alive. Not a sign of life for the job: the coordinator heartbeats the job
   * itself, and a dead coordinator must not be hidden for as long as its tasks run. A task of an
   * earlier attempt that was running when the watchdog moved on may go on (see completeTask).
   */
  async taskHeartbeat(key: string, beat: TaskHeartbeat): Promise<TaskReportOutcome> {
    const args = taskArgs(key, TaskHeartbeat, beat);
    if ("reason" in args) return { accepted: false, reason: args.reason };
    return this.onLiveOrEarlierAttempt(args.body.attempt, (board) => board.heartbeat(args.key, args.body, Date.now()));
  }

  /**
   * The holder's result is in R2. A task of an earlier attempt, still running on its lease when
   * the watchdog dispatched the job again, is recorded too: the current attempt's task with the
   * same key and content digest takes its result at once, or will when it is registered.
   */
  async completeTask(key: string, completion: TaskCompletion): Promise<TaskReportOutcome> {
    const args = taskArgs(key, TaskCompletion, completion);
    if ("reason" in args) return { accepted: false, reason: args.reason };
    return this.onLiveOrEarlierAttempt(args.body.attempt, (board, current) => {
      const now = Date.now();
      const outcome = board.complete(args.key, args.body, now);
      if (outcome.accepted && current !== board) current.adoptEarlierResult(args.key, now);
      return outcome;
    });
  }

  async failTask(key: string, failure: TaskFailure): Promise<TaskReportOutcome> {
    const args = taskArgs(key, TaskFailure, failure);
    if ("reason" in args) return { accepted: false, reason: args.reason };
    return this.onLiveJob(args.body.attempt, refusedTask, (board) => board.fail(args.key, args.body, Date.now()));
  }

  /** The attempt's tasks ordered by key; none for an unknown or deleted reconstruction. */
  async tasks(attempt: number): Promise<TaskRecord[]> {
    const parsed = Attempt.safeParse(attempt);
    const row = this.row();
    if (!parsed.success || !row || this.isDeleted()) return [];
    return this.taskBoard(row, parsed.data).list();
  }

  /** For the task queue's consumer: whether this delivery should still go to a container. */
  async taskWanted(message: TaskMessage): Promise<boolean> {
    const parsed = TaskMessage.safeParse(message);
    if (!parsed.success) return false;
    return this.onLiveJob(parsed.data.attempt, () => false, (board) => board.wanted(parsed.data, Date.now()));
  }

  /** For the task queue's consumer when every container is busy: this object sends the delivery again after `seconds`. */
  async deferTask(message: TaskMessage, seconds: number): Promise<boolean> {
    const parsed = TaskMessage.safeParse(message);
    const delay = z.number().min(1).max(3600).safeParse(seconds);
    if (!parsed.success || !delay.success) return false;
    return this.onLiveJob(parsed.data.attempt, () => false, (board) => board.defer(parsed.data, delay.data, Date.now()));
  }

  /** For the task dead-letter queue: the delivery could not be handed to compute; its task fails if it is still current. */
  async abandonTask(message: TaskMessage, reason: string): Promise<TaskReportOutcome> {
    const parsed = TaskMessage.safeParse(message);
    if (!parsed.success) return { accepted: false, reason: invalidReason(parsed.error) };
    const why = z.string().min(1).max(2000).catch("the task queue gave up on this delivery").parse(reason);
    return this.onLiveJob(parsed.data.attempt, refusedTask, (board) => board.abandon(parsed.data, why, Date.now()));
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
      await this.taskBoard(row).onAlarm(at);
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

  /** Runs a task verb when `attempt` is the job's current one and the job is still running; the alarm follows what changed. */
  private async onLiveJob<T>(attempt: number, refuse: (reason: string) => T, run: (board: TaskBoard) => T | Promise<T>): Promise<T> {
    const row = this.currentAttemptRow(attempt);
    if ("reason" in row) return refuse(row.reason);
    if (isTerminal(row.status) || this.isDeleted()) return refuse(`the reconstruction is already ${row.status}`);
    const answer = await run(this.taskBoard(row));
    await this.scheduleAlarm();
    return answer;
  }

  /**
   * A heartbeat or a completion, for the current attempt as onLiveJob, or for an earlier attempt of
   * a job still running (its own board; nothing is sent for it). `run` gets that board and the
   * current attempt's (the same object for the current attempt).
   */
  private async onLiveOrEarlierAttempt(attempt: number, run: (board: TaskBoard, current: TaskBoard) => TaskReportOutcome | Promise<TaskReportOutcome>): Promise<TaskReportOutcome> {
    const row = this.row();
    if (!row || attempt >= row.attempt) return this.onLiveJob(attempt, refusedTask, (board) => run(board, board));
    if (isTerminal(row.status) || this.isDeleted()) return refusedTask(`the reconstruction is already ${row.status}`);
    const answer = await run(this.taskBoard(row, attempt), this.taskBoard(row));
    await this.scheduleAlarm();
    return answer;
  }

  private taskBoard(row: ReconstructionRow, attempt = row.attempt): TaskBoard {
    return new TaskBoard(this.sql, this.env.TASKS, row.id, attempt, this.taskConfig);
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
    return this.sql.exec<Record<string, SqlStorageValue>>(`SELECT * FROM reconstruction LIMIT 1`).toArray()[0] as unknown as ReconstructionRow | undefined;
  }

  /** The row when `attempt` is the current one; otherwise a refusal. */
  private currentAttemptRow(attempt: number): ReconstructionRow | ReportOutcome & { reason: string } {
    const row = this.row();
    if (!row) return { accepted: false, reason: "unknown reconstruction" };
    if (attempt !== row.attempt) return refused(row, `attempt ${attempt} is not the current attempt ${row.attempt}`);
    return row;
  }

  private async startIfPending(attempt: number): Promise<ReconstructionRow | ReportOutcome & { reason: string }> {
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

  /**
   * Tells the AccountObject about a terminal state: refund (failed only) and outcome. The state
   * is stored first, so a crash here is finished by the alarm, and the AccountObject ignores
   * repeats for the same id.
   */
  private async settle(): Promise<void> {
    const row = this.row();
    if (!row || !isTerminal(row.status)) return;
    const account = this.env.ACCOUNTS.get(this.env.ACCOUNTS.idFromName(row.account_id));
    try {
      if (row.status === "failed" && !row.credit_refunded) {
        const code = row.error ? (JSON.parse(row.error) as FailureInfo).code : "failed";
        // Any answer without an exception means the id's credit is back (now or on an earlier call).
        await account.refund(row.id, code);
        this.sql.exec(`UPDATE reconstruction SET credit_refunded = 1 WHERE id = ?`, row.id);
      }
      if (!row.outcome_recorded) {
        await account.recordOutcome(row.id, row.status === "completed" ? "completed" : "failed");
        this.sql.exec(`UPDATE reconstruction SET outcome_recorded = 1 WHERE id = ?`, row.id);
      }
      // After the refund, so a failed event's data says credit_refunded: true.
      const type = row.status === "completed" ? "reconstruction.completed" : "reconstruction.failed";
      await emitOnce(this.sql, this.env, row.account_id, type, toStatusRecord(this.row()!));
      // Its place in the line (or its slot on compute) goes to the next job.
      await schedulerStub(this.env).withdraw(row.id, row.status === "completed");
      // Task inputs and results are of no use once the job has ended.
      await deleteWorkOnce(this.sql, this.env.BUCKET, row.id);
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
    const message = JobMessage.parse({
      version: 1,
      reconstruction_id: row.id,
      account_id: row.account_id,
      attempt: row.attempt,
      quality: row.quality,
      inputs: JSON.parse(row.inputs) as unknown,
      created_at: row.created_at,
    });
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

  /** The line's answer for this job; undefined when it cannot be asked (the record then has no `queue`). */
  private async linePlace(id: string): Promise<LinePlace | undefined> {
    try {
      return await schedulerStub(this.env).place(id);
    } catch (err) {
      console.error(JSON.stringify({ level: "error", reconstruction_id: id, msg: "waiting line unreachable", error: String(err) }));
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
    const taskWake = row && !isTerminal(row.status) ? this.taskBoard(row).nextWake() : null;
    await this.alarmPlan.arm(taskWake);
  }

  private log(from: ReconstructionStatus, to: ReconstructionStatus, attempt: number, note: string): void {
    this.sql.exec(`INSERT INTO transitions (at, from_status, to_status, attempt, note) VALUES (?, ?, ?, ?, ?)`, new Date().toISOString(), from, to, attempt, note);
  }
}

function refused(row: ReconstructionRow, reason: string): ReportOutcome & { reason: string } {
  return { accepted: false, status: row.status, reason };
}

function toStatusRecord(row: ReconstructionRow): StatusRecord {
  const record: StatusRecord = {
    id: row.id,
    status: row.status,
    progress: row.progress,
    created_at: row.created_at,
    started_at: row.started_at,
    estimated_completion: row.estimated_completion,
    files_processed: row.files_processed,
    total_files: row.total_files,
    stage: row.status === "processing" ? (row.stage as StatusRecord["stage"]) : null,
    completed_at: row.completed_at,
    credit_refunded: row.credit_refunded === 1,
  };
  if (row.status === "completed" && row.formats) record.formats = JSON.parse(row.formats) as StatusRecord["formats"];
  if (row.status === "failed" && row.error) record.error = JSON.parse(row.error) as FailureInfo;
  return StatusRecord.parse(record);
}
