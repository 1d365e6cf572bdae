/**
 * @module The task table's verbs of a ReconstructionObject, which delegates its task RPC methods
 * here (reconstruction.ts keeps the job's lifecycle).
 *
 * A job's coordinator may spread work over other containers as tasks (shared/tasks.ts): the
 * object keeps their table and leases (reconstruction-task-board.ts, one attempt's table;
 * reconstruction-tasks.ts, its schema and rules). Each verb parses its arguments, checks the job
 * (through TaskJob), runs on the board and has the alarm follow what changed. Task reports name
 * the job attempt too: a newer attempt makes the older attempt's tasks stale (no lease, no new
 * delivery, no registration), though a container still running one may beat and complete it,
 * and the current attempt's task with the same content digest takes that result; a finished
 * job's tasks are refused.
 */
import { z } from "zod";
import { AddTasksRequest, TaskCompletion, TaskFailure, TaskHeartbeat, TaskLeaseRequest, TaskMessage, type TaskLeaseAnswer, type TaskRecord } from "../../shared/tasks.js";
import type { ReportOutcome } from "./reconstruction-rpc.js";
import { Attempt, isTerminal, type ReconstructionRow, type Refusal } from "./reconstruction-state.js";
import { TaskBoard } from "./reconstruction-task-board.js";
import { invalidReason, refusedTask, taskArgs, type AddTasksOutcome, type TaskConfig, type TaskReportOutcome } from "./reconstruction-tasks.js";

/** What the task verbs need of the job (the ReconstructionObject). */
export interface TaskJob {
  row(): ReconstructionRow | undefined;
  isDeleted(): boolean;
  /** The row when `attempt` is the current one; otherwise a refusal. */
  currentAttemptRow(attempt: number): ReconstructionRow | Refusal;
  /** As currentAttemptRow, and a pending job starts. */
  startIfPending(attempt: number): Promise<ReconstructionRow | Refusal>;
  /** A sign of life for the job: moves its watchdog. */
  touch(row: ReconstructionRow, reason: string): Promise<ReportOutcome>;
  /** Sets the alarm to the earlier of the job's deadline and the tasks' next wake. */
  scheduleAlarm(): Promise<void>;
}

export class ReconstructionTasks {
  constructor(
    private readonly sql: SqlStorage,
    /** The TASKS binding, read at each use (tests swap the object's env for a recorder). */
    private readonly queue: () => Queue<TaskMessage>,
    private readonly config: TaskConfig,
    private readonly job: TaskJob,
  ) {}

  /** One attempt's table (the current attempt's by default). */
  board(row: ReconstructionRow, attempt = row.attempt): TaskBoard {
    return new TaskBoard(this.sql, this.queue(), row.id, attempt, this.config);
  }

  /** The coordinator registers its attempt's tasks (a pending job starts); keys already known are left as they are. */
  async add(request: AddTasksRequest): Promise<AddTasksOutcome> {
    const parsed = AddTasksRequest.safeParse(request);
    if (!parsed.success) return { accepted: false, added: 0, reason: invalidReason(parsed.error) };
    const row = await this.job.startIfPending(parsed.data.attempt);
    if ("reason" in row) return { accepted: false, added: 0, reason: row.reason };
    const outcome = await this.board(row).add(parsed.data.tasks, Date.now());
    // The coordinator spoke: a sign of life for the job, and the alarm now also follows the tasks.
    if (outcome.accepted) await this.job.touch(row, "tasks added");
    return outcome;
  }

  /** A container takes a task it was sent (pending, or running on a lease that ran out). */
  async lease(key: string, request: TaskLeaseRequest): Promise<TaskLeaseAnswer> {
    const args = taskArgs(key, TaskLeaseRequest, request);
    if ("reason" in args) return { granted: false, reason: args.reason };
    return this.onLiveJob<TaskLeaseAnswer>(args.body.attempt, (reason) => ({ granted: false, reason }), (board) => board.lease(args.key, args.body, Date.now()));
  }

  /**
   * The lease holder is alive. Not a sign of life for the job: the coordinator heartbeats the job
   * itself, and a dead coordinator must not be hidden for as long as its tasks run. A task of an
   * earlier attempt that was running when the watchdog moved on may go on (see complete).
   */
  async heartbeat(key: string, beat: TaskHeartbeat): Promise<TaskReportOutcome> {
    const args = taskArgs(key, TaskHeartbeat, beat);
    if ("reason" in args) return { accepted: false, reason: args.reason };
    return this.onLiveOrEarlierAttempt(args.body.attempt, (board) => board.heartbeat(args.key, args.body, Date.now()));
  }

  /**
   * The holder's result is in R2. A task of an earlier attempt, still running on its lease when
   * the watchdog dispatched the job again, is recorded too: the current attempt's task with the
   * same key and content digest takes its result at once, or will when it is registered.
   */
  async complete(key: string, completion: TaskCompletion): Promise<TaskReportOutcome> {
    const args = taskArgs(key, TaskCompletion, completion);
    if ("reason" in args) return { accepted: false, reason: args.reason };
    return this.onLiveOrEarlierAttempt(args.body.attempt, (board, current) => {
      const now = Date.now();
      const outcome = board.complete(args.key, args.body, now);
      if (outcome.accepted && current !== board) current.adoptEarlierResult(args.key, now);
      return outcome;
    });
  }

  async fail(key: string, failure: TaskFailure): Promise<TaskReportOutcome> {
    const args = taskArgs(key, TaskFailure, failure);
    if ("reason" in args) return { accepted: false, reason: args.reason };
    return this.onLiveJob(args.body.attempt, refusedTask, (board) => board.fail(args.key, args.body, Date.now()));
  }

  /** The attempt's tasks ordered by key; none for an unknown or deleted reconstruction. */
  async list(attempt: number): Promise<TaskRecord[]> {
    const parsed = Attempt.safeParse(attempt);
    const row = this.job.row();
    if (!parsed.success || !row || this.job.isDeleted()) return [];
    return this.board(row, parsed.data).list();
  }

  /** For the task queue's consumer: whether this delivery should still go to a container. */
  async wanted(message: TaskMessage): Promise<boolean> {
    const parsed = TaskMessage.safeParse(message);
    if (!parsed.success) return false;
    return this.onLiveJob(parsed.data.attempt, () => false, (board) => board.wanted(parsed.data, Date.now()));
  }

  /** For the task queue's consumer when every container is busy: this object sends the delivery again after `seconds`. */
  async defer(message: TaskMessage, seconds: number): Promise<boolean> {
    const parsed = TaskMessage.safeParse(message);
    const delay = z.number().min(1).max(3600).safeParse(seconds);
    if (!parsed.success || !delay.success) return false;
    return this.onLiveJob(parsed.data.attempt, () => false, (board) => board.defer(parsed.data, delay.data, Date.now()));
  }

  /** For the task dead-letter queue: the delivery could not be handed to compute; its task fails if it is still current. */
  async abandon(message: TaskMessage, reason: string): Promise<TaskReportOutcome> {
    const parsed = TaskMessage.safeParse(message);
    if (!parsed.success) return { accepted: false, reason: invalidReason(parsed.error) };
    const why = z.string().min(1).max(2000).catch("the task queue gave up on this delivery").parse(reason);
    return this.onLiveJob(parsed.data.attempt, refusedTask, (board) => board.abandon(parsed.data, why, Date.now()));
  }

  /** Runs a task verb when `attempt` is the job's current one and the job is still running; the alarm follows what changed. */
  private async onLiveJob<T>(attempt: number, refuse: (reason: string) => T, run: (board: TaskBoard) => T | Promise<T>): Promise<T> {
    const row = this.job.currentAttemptRow(attempt);
    if ("reason" in row) return refuse(row.reason);
    if (isTerminal(row.status) || this.job.isDeleted()) return refuse(`the reconstruction is already ${row.status}`);
    const answer = await run(this.board(row));
    await this.job.scheduleAlarm();
    return answer;
  }

  /**
   * A heartbeat or a completion, for the current attempt as onLiveJob, or for an earlier attempt of
   * a job still running (its own board; nothing is sent for it). `run` gets that board and the
   * current attempt's (the same object for the current attempt).
   */
  private async onLiveOrEarlierAttempt(attempt: number, run: (board: TaskBoard, current: TaskBoard) => TaskReportOutcome | Promise<TaskReportOutcome>): Promise<TaskReportOutcome> {
    const row = this.job.row();
    if (!row || attempt >= row.attempt) return this.onLiveJob(attempt, refusedTask, (board) => run(board, board));
    if (isTerminal(row.status) || this.job.isDeleted()) return refusedTask(`the reconstruction is already ${row.status}`);
    const answer = await run(this.board(row, attempt), this.board(row));
    await this.job.scheduleAlarm();
    return answer;
  }
}
