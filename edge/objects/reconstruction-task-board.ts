/**
 * @module The tasks of one job attempt, as the ReconstructionObject changes them: add, lease,
 * heartbeat, complete, fail, and what the alarm and the task queue's consumers ask.
 *
 * The object checks the job first (current attempt, not finished, not deleted) and arms the
 * alarm after; this board only knows the table and the queue. Every change is written before any
 * message is sent, so a send that fails (or an interleaved call while it is in flight) finds the
 * table already right: a pending task whose message was lost is sent again by the alarm once its
 * `sent_at` is a lease length old.
 */
import { TaskMessage, type TaskFailure, type TaskHeartbeat, type TaskCompletion, type TaskLeaseAnswer, type TaskLeaseRequest, type TaskRecord, type TaskSpec } from "../../shared/tasks.js";
import {
  TASKS_SQL, TASK_CONTENTS_SQL, awaitingContainer, foreignWorkKeyProblem, taskSpecsProblem, hasTaskTable, holderRefusal, leaseExpired, leaseRefusal, lostTaskError, taskMessage, toTaskRecord,
  type AddTasksOutcome, type TaskConfig, type TaskReportOutcome, type TaskRow,
} from "./reconstruction-tasks.js";

/** Queues take at most 100 messages per sendBatch. */
const SEND_BATCH_SIZE = 100;

export class TaskBoard {
  private tableExists: boolean | undefined;
  private contentsTableExists = false;

  constructor(
    private readonly sql: SqlStorage,
    private readonly queue: Queue<TaskMessage>,
    private readonly reconstructionId: string,
    private readonly attempt: number,
    private readonly config: TaskConfig,
  ) {}

  /**
   * Inserts the tasks not yet known (by key). A task that an earlier attempt of the job finished
   * with the same content digest is inserted done, with that attempt's result (its work objects
   * stay until the job ends); the others are pending delivery 1, and their messages are sent.
   */
  async add(specs: TaskSpec[], now: number): Promise<AddTasksOutcome> {
    const problem = taskSpecsProblem(specs, this.reconstructionId, this.attempt);
    if (problem) return { accepted: false, added: 0, reason: problem };
    this.sql.exec(TASKS_SQL);
    this.tableExists = true;
    this.ensureContentsTable();
    const known = new Set(this.rows().map((row) => row.key));
    const fresh = specs.filter((spec) => !known.has(spec.key));
    const toSend: string[] = [];
    for (const spec of fresh) {
      const earlier = spec.content_sha256 === undefined ? undefined : this.finishedEarlier(spec.key, spec.content_sha256);
      if (earlier) {
        this.sql.exec(
          `INSERT INTO tasks (attempt, key, kind, payload_key, state, deliveries, sent_at, progress, result_key, created_at, updated_at) VALUES (?, ?, ?, ?, 'done', 0, ?, 1, ?, ?, ?)`,
          this.attempt, spec.key, spec.kind, spec.payload_key, now, earlier.result_key, now, now,
        );
      } else {
        this.sql.exec(
          `INSERT INTO tasks (attempt, key, kind, payload_key, state, deliveries, sent_at, created_at, updated_at) VALUES (?, ?, ?, ?, 'pending', 1, ?, ?, ?)`,
          this.attempt, spec.key, spec.kind, spec.payload_key, now, now, now,
        );
        toSend.push(spec.key);
      }
      if (spec.content_sha256 !== undefined) {
        this.sql.exec(`INSERT INTO task_contents (attempt, key, content_sha256, reused_from) VALUES (?, ?, ?, ?)`, this.attempt, spec.key, spec.content_sha256, earlier?.attempt ?? null);
      }
    }
    await this.send(toSend.map((key) => this.get(key)!));
    const reused = fresh.length - toSend.length;
    if (reused > 0) console.log(JSON.stringify({ level: "info", reconstruction_id: this.reconstructionId, attempt: this.attempt, event: "task_results_reused", count: reused }));
    return { accepted: true, added: fresh.length, reused };
  }

  /**
   * An earlier attempt's task just finished: this attempt's task of the same key and content
   * digest, if registered and not done, takes its result (a container still running it finds its
   * next heartbeat refused). Unregistered, it takes the result when added.
   */
  adoptEarlierResult(key: string, now: number): boolean {
    const row = this.get(key);
    if (!row || row.state === "done" || row.state === "failed") return false;
    const [mine] = this.sql.exec<{ content_sha256: string }>(`SELECT content_sha256 FROM task_contents WHERE attempt = ? AND key = ?`, this.attempt, key).toArray();
    const earlier = mine ? this.finishedEarlier(key, mine.content_sha256) : undefined;
    if (!earlier) return false;
    this.sql.exec(
      `UPDATE tasks SET state = 'done', progress = 1, result_key = ?, lease_id = NULL, lease_until = NULL, updated_at = ? WHERE attempt = ? AND key = ?`,
      earlier.result_key, now, this.attempt, key,
    );
    this.sql.exec(`UPDATE task_contents SET reused_from = ? WHERE attempt = ? AND key = ?`, earlier.attempt, this.attempt, key);
    return true;
  }

  /** The latest earlier attempt's finished task with this key and content digest, if any. */
  private finishedEarlier(key: string, digest: string): { attempt: number; result_key: string } | undefined {
    return this.sql.exec<{ attempt: number; result_key: string }>(
      `SELECT t.attempt AS attempt, t.result_key AS result_key FROM tasks t JOIN task_contents c ON c.attempt = t.attempt AND c.key = t.key
       WHERE t.key = ? AND t.attempt < ? AND t.state = 'done' AND t.result_key IS NOT NULL AND c.content_sha256 = ? ORDER BY t.attempt DESC LIMIT 1`,
      key, this.attempt, digest,
    ).toArray()[0];
  }

  /**
   * Grants a pending task. A running task whose lease ran out is first reclaimed as the alarm
   * would (a new delivery, or `failed` after the last one), so a takeover counts as a delivery.
   */
  lease(key: string, request: TaskLeaseRequest, now: number): TaskLeaseAnswer {
    let row = this.get(key);
    if (!row) return { granted: false, reason: `unknown task ${key}` };
    if (leaseExpired(row, now)) {
      // No message for the new delivery: it is granted right here.
      this.reclaim([row], now);
      row = this.get(key)!;
    }
    const refusal = leaseRefusal(row, now);
    if (refusal) return { granted: false, reason: refusal };
    const leaseId = crypto.randomUUID();
    this.sql.exec(
      `UPDATE tasks SET state = 'running', lease_id = ?, lease_until = ?, worker = ?, progress = 0, updated_at = ? WHERE attempt = ? AND key = ?`,
      leaseId, now + this.leaseMs, request.worker, now, this.attempt, key,
    );
    return { granted: true, lease_id: leaseId, payload_key: row.payload_key, delivery: row.deliveries, lease_seconds: this.config.TASK_LEASE_SECONDS };
  }

  /** The holder is alive: the lease runs for another lease length; progress never decreases. */
  heartbeat(key: string, beat: TaskHeartbeat, now: number): TaskReportOutcome {
    const row = this.get(key);
    if (!row) return { accepted: false, reason: `unknown task ${key}` };
    const refusal = holderRefusal(row, beat.lease_id);
    if (refusal) return { accepted: false, reason: refusal };
    this.sql.exec(
      `UPDATE tasks SET lease_until = ?, progress = MAX(progress, ?), updated_at = ? WHERE attempt = ? AND key = ?`,
      now + this.leaseMs, beat.progress, now, this.attempt, key,
    );
    return { accepted: true };
  }

  /** The holder's result is in R2. A repeat by the same holder with the same result changes nothing. */
  complete(key: string, completion: TaskCompletion, now: number): TaskReportOutcome {
    const row = this.get(key);
    if (!row) return { accepted: false, reason: `unknown task ${key}` };
    const foreign = foreignWorkKeyProblem("result_key", completion.result_key, this.reconstructionId, this.attempt);
    if (foreign) return { accepted: false, reason: foreign };
    if (row.state === "done" && row.lease_id === completion.lease_id) {
      if (row.result_key === completion.result_key) return { accepted: true, reason: "already done" };
      return { accepted: false, reason: `already done with result ${row.result_key}` };
    }
    const refusal = holderRefusal(row, completion.lease_id);
    if (refusal) return { accepted: false, reason: refusal };
    this.sql.exec(
      `UPDATE tasks SET state = 'done', progress = 1, result_key = ?, lease_until = NULL, updated_at = ? WHERE attempt = ? AND key = ?`,
      completion.result_key, now, this.attempt, key,
    );
    return { accepted: true };
  }

  /** The holder gave up: a retryable failure is sent again while deliveries remain, otherwise the task fails. */
  async fail(key: string, failure: TaskFailure, now: number): Promise<TaskReportOutcome> {
    const row = this.get(key);
    if (!row) return { accepted: false, reason: `unknown task ${key}` };
    const refusal = holderRefusal(row, failure.lease_id);
    if (refusal) return { accepted: false, reason: refusal };
    if (failure.retryable && row.deliveries < this.config.TASK_MAX_DELIVERIES) {
      const again = this.requeue(row, now);
      await this.send([again]);
      return { accepted: true, reason: `sent again as delivery ${again.deliveries}` };
    }
    this.markFailed(row, { code: failure.code, message: failure.message }, now);
    return { accepted: true, reason: "failed" };
  }

  /**
   * Whether a queue message should still go to compute: its delivery is the current one and the
   * task waits for a container. A wanted message is alive, so the alarm need not send it again yet.
   */
  wanted(message: TaskMessage, now: number): boolean {
    const row = this.get(message.key);
    if (!row || row.deliveries !== message.delivery || !awaitingContainer(row, now)) return false;
    if (row.state === "pending") this.sql.exec(`UPDATE tasks SET sent_at = ? WHERE attempt = ? AND key = ?`, now, this.attempt, message.key);
    return true;
  }

  /**
   * Every container was busy: the object sends this delivery again itself after `seconds`,
   * instead of the queue's bounded retries (a large job on a few containers waits for them
   * as long as it needs; its coordinator's heartbeats keep the job alive). False when the
   * delivery is no longer the task's current one.
   */
  defer(message: TaskMessage, seconds: number, now: number): boolean {
    const row = this.get(message.key);
    if (!row || row.state !== "pending" || row.deliveries !== message.delivery) return false;
    // The alarm re-sends a pending task once `sent_at` is a lease length old.
    this.sql.exec(`UPDATE tasks SET sent_at = ? WHERE attempt = ? AND key = ?`, now + seconds * 1000 - this.leaseMs, this.attempt, message.key);
    return true;
  }

  /** A delivery the queue gave up on (dead letter): the task fails if that delivery is still current. */
  abandon(message: TaskMessage, reason: string, now: number): TaskReportOutcome {
    const row = this.get(message.key);
    if (!row || row.deliveries !== message.delivery || !awaitingContainer(row, now)) {
      return { accepted: false, reason: "that delivery is no longer the task's current one" };
    }
    this.markFailed(row, { code: "dispatch_failed", message: reason }, now);
    return { accepted: true };
  }

  /** The alarm's part: leases that ran out are reclaimed, pending messages a lease length old are sent again. */
  async onAlarm(at: number): Promise<void> {
    if (!this.hasTable()) return;
    const requeued = this.reclaim(this.rowsWhere(`state = 'running' AND lease_until <= ?`, at), at);
    const unheard = this.rowsWhere(`state = 'pending' AND sent_at + ? <= ?`, this.leaseMs, at);
    for (const row of unheard) this.sql.exec(`UPDATE tasks SET sent_at = ? WHERE attempt = ? AND key = ?`, at, this.attempt, row.key);
    if (unheard.length > 0) {
      console.warn(JSON.stringify({ level: "warn", reconstruction_id: this.reconstructionId, attempt: this.attempt, event: "task_resend", keys: unheard.map((row) => row.key).slice(0, 20), count: unheard.length }));
    }
    await this.send([...requeued, ...unheard]);
  }

  /** When the alarm is next needed for these tasks (a lease running out, a pending message to send again); null if never. */
  nextWake(): number | null {
    if (!this.hasTable()) return null;
    const [row] = this.sql.exec<{ wake: number | null }>(
      `SELECT MIN(CASE WHEN state = 'running' THEN lease_until ELSE sent_at + ? END) AS wake FROM tasks WHERE attempt = ? AND state IN ('pending', 'running')`,
      this.leaseMs, this.attempt,
    ).toArray();
    return row?.wake ?? null;
  }

  /** The attempt's tasks, ordered by key. */
  list(): TaskRecord[] {
    return this.rows().map(toTaskRecord);
  }

  private get leaseMs(): number {
    return this.config.TASK_LEASE_SECONDS * 1000;
  }

  /** Lost leases: a new delivery while deliveries remain (returned, to be sent), else `failed`. */
  private reclaim(rows: TaskRow[], now: number): TaskRow[] {
    const requeued: TaskRow[] = [];
    for (const row of rows) {
      if (row.deliveries < this.config.TASK_MAX_DELIVERIES) requeued.push(this.requeue(row, now));
      else this.markFailed(row, lostTaskError(row), now);
    }
    return requeued;
  }

  /** pending again with the next delivery; the old lease is void. Returns the row to send. */
  private requeue(row: TaskRow, now: number): TaskRow {
    this.sql.exec(
      `UPDATE tasks SET state = 'pending', deliveries = deliveries + 1, sent_at = ?, lease_id = NULL, lease_until = NULL, worker = NULL, progress = 0, updated_at = ? WHERE attempt = ? AND key = ?`,
      now, now, this.attempt, row.key,
    );
    return this.get(row.key)!;
  }

  private markFailed(row: TaskRow, error: { code: string; message: string }, now: number): void {
    this.sql.exec(
      `UPDATE tasks SET state = 'failed', error = ?, lease_until = NULL, updated_at = ? WHERE attempt = ? AND key = ?`,
      JSON.stringify(error), now, this.attempt, row.key,
    );
  }

  /** Sends one message per row in batches; a failure is logged and left to the alarm's re-send. */
  private async send(rows: TaskRow[]): Promise<void> {
    for (let start = 0; start < rows.length; start += SEND_BATCH_SIZE) {
      const batch = rows.slice(start, start + SEND_BATCH_SIZE).map((row) => ({ body: TaskMessage.parse(taskMessage(this.reconstructionId, row)) }));
      try {
        await this.queue.sendBatch(batch);
      } catch (err) {
        console.error(JSON.stringify({ level: "error", reconstruction_id: this.reconstructionId, attempt: this.attempt, msg: "task queue send failed; the alarm sends again", count: batch.length, error: String(err) }));
      }
    }
  }

  /** An object whose `tasks` table predates `task_contents` gets it on its first read. */
  private ensureContentsTable(): void {
    if (this.contentsTableExists) return;
    this.sql.exec(TASK_CONTENTS_SQL);
    this.contentsTableExists = true;
  }

  private hasTable(): boolean {
    this.tableExists ??= hasTaskTable(this.sql);
    return this.tableExists;
  }

  private get(key: string): TaskRow | undefined {
    return this.rowsWhere(`key = ?`, key)[0];
  }

  private rows(): TaskRow[] {
    return this.rowsWhere(`1 = 1`);
  }

  /** Rows of this attempt matching `condition`, ordered by key; none when the table does not exist. */
  private rowsWhere(condition: string, ...bindings: SqlStorageValue[]): TaskRow[] {
    if (!this.hasTable()) return [];
    this.ensureContentsTable();
    return this.sql.exec<Record<string, SqlStorageValue>>(
      `SELECT * FROM (SELECT t.*, c.reused_from AS reused_from FROM tasks t LEFT JOIN task_contents c ON c.attempt = t.attempt AND c.key = t.key)
       WHERE attempt = ? AND (${condition}) ORDER BY key`,
      this.attempt, ...bindings,
    ).toArray() as unknown as TaskRow[];
  }
}
