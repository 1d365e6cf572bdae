/**
 * @module The task table of a ReconstructionObject (shared/tasks.ts): its schema, its row, its
 * settings, and the pure rules that read a row. The table operations are in
 * reconstruction-task-board.ts; the object only checks the job and keeps the alarm.
 *
 * A task is created `pending` with delivery 1 and a TaskMessage on the task queue. The container
 * that takes it holds a lease (`running`) that heartbeats extend; it ends `done` (with a result
 * key) or `failed`. A lease that runs out, or a retryable failure, sends the task again with
 * delivery + 1, until TASK_MAX_DELIVERIES deliveries have been used.
 */
import { z } from "zod";
import { workKey, workPrefix } from "../../shared/storage-keys.js";
import { TaskKey, TaskRecord, type TaskKind, type TaskMessage, type TaskSpec, type TaskState } from "../../shared/tasks.js";
import { deletePrefix } from "../storage/delete-prefix.js";
import { isWorkKeyOf } from "../storage/work-keys.js";

/** Task settings, from optional Worker vars (seconds / count). */
export const TaskConfig = z.object({
  /** A lease runs out this long after its grant or its last heartbeat. */
  TASK_LEASE_SECONDS: z.coerce.number().positive().default(60),
  /** Deliveries a task may use (lost leases and retryable failures) before it is failed. */
  TASK_MAX_DELIVERIES: z.coerce.number().int().min(1).default(3),
});
export type TaskConfig = z.infer<typeof TaskConfig>;

/** Created when the first tasks are added; every read tolerates its absence. */
export const TASKS_SQL = `
CREATE TABLE IF NOT EXISTS tasks (
  attempt INTEGER NOT NULL,
  key TEXT NOT NULL,
  kind TEXT NOT NULL,
  payload_key TEXT NOT NULL,
  state TEXT NOT NULL,
  deliveries INTEGER NOT NULL,
  sent_at INTEGER NOT NULL,
  lease_id TEXT,
  lease_until INTEGER,
  worker TEXT,
  progress REAL NOT NULL DEFAULT 0,
  result_key TEXT,
  error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (attempt, key)
);`;

/**
 * Per task, the digest of what it computes from (TaskSpec `content_sha256`) and, when it took an
 * earlier attempt's result instead of running, that attempt. A table of its own beside `tasks`,
 * so objects whose `tasks` table predates it need no migration.
 */
export const TASK_CONTENTS_SQL = `
CREATE TABLE IF NOT EXISTS task_contents (
  attempt INTEGER NOT NULL,
  key TEXT NOT NULL,
  content_sha256 TEXT NOT NULL,
  reused_from INTEGER,
  PRIMARY KEY (attempt, key)
);`;

/** One row of `tasks`; times are epoch milliseconds. */
export interface TaskRow {
  attempt: number;
  key: string;
  kind: TaskKind;
  payload_key: string;
  state: TaskState;
  /** The current delivery (1 once first sent); only its TaskMessage is still wanted. */
  deliveries: number;
  /** Last time the current delivery's message was sent, or seen alive by the queue consumer. */
  sent_at: number;
  /** The running lease; kept once done, so a repeated completion by the same holder is recognised. */
  lease_id: string | null;
  lease_until: number | null;
  worker: string | null;
  progress: number;
  result_key: string | null;
  /** JSON {code, message} once failed. */
  error: string | null;
  created_at: number;
  updated_at: number;
  /** From `task_contents`: the attempt whose result this task took, or null. */
  reused_from: number | null;
}

/** The answer to a task report (lease has its own, TaskLeaseAnswer). */
export interface TaskReportOutcome {
  accepted: boolean;
  reason?: string;
}

export interface AddTasksOutcome extends TaskReportOutcome {
  /** Tasks inserted by this call; the ones already known are left as they are. */
  added: number;
  /** Of those, tasks done at once with an earlier attempt's result (same key and content digest); absent when refused. */
  reused?: number;
}

export function hasTaskTable(sql: SqlStorage): boolean {
  return sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tasks'`).toArray().length > 0;
}

/** A running task whose holder has not been heard from in time. */
export function leaseExpired(row: TaskRow, now: number): boolean {
  return row.state === "running" && (row.lease_until ?? 0) <= now;
}

/** Whether the task still waits for a container to take it: pending, or running on a lapsed lease. */
export function awaitingContainer(row: TaskRow, now: number): boolean {
  return row.state === "pending" || leaseExpired(row, now);
}

/** Why `lease` cannot be granted now, or null when it can (pending; expired leases are reclaimed first). */
export function leaseRefusal(row: TaskRow, now: number): string | null {
  if (row.state === "pending") return null;
  if (row.state === "running" && !leaseExpired(row, now)) return `held by ${row.worker ?? "another worker"} until ${new Date(row.lease_until!).toISOString()}`;
  return `already ${row.state}`;
}

/** Why a report under `leaseId` is not the running lease's, or null when it is. */
export function holderRefusal(row: TaskRow, leaseId: string): string | null {
  if (row.state !== "running") return `the task is ${row.state}`;
  if (row.lease_id !== leaseId) return "the lease is not the task's current lease (it ran out and the task was sent again)";
  return null;
}

export function taskMessage(reconstructionId: string, row: TaskRow): TaskMessage {
  return { version: 1, reconstruction_id: reconstructionId, attempt: row.attempt, key: row.key, kind: row.kind, delivery: row.deliveries };
}

export function toTaskRecord(row: TaskRow): TaskRecord {
  return TaskRecord.parse({
    key: row.key,
    kind: row.kind,
    state: row.state,
    deliveries: row.deliveries,
    progress: row.progress,
    result_key: row.result_key,
    error: row.error ? (JSON.parse(row.error) as unknown) : null,
    worker: row.worker,
    reused_from_attempt: row.reused_from ?? null,
  });
}

/** Why a key named in a task report is not a work key of this job attempt, or null when it is. */
export function foreignWorkKeyProblem(field: string, key: string, reconstructionId: string, attempt: number): string | null {
  return isWorkKeyOf(key, reconstructionId, attempt) ? null : `${field} must be a work key under ${workKey(reconstructionId, attempt, "")}`;
}

/** Why these specs cannot be registered together, or null: keys are unique, payloads are the attempt's work objects. */
export function taskSpecsProblem(specs: readonly TaskSpec[], reconstructionId: string, attempt: number): string | null {
  const keys = new Set<string>();
  for (const spec of specs) {
    if (keys.has(spec.key)) return `task key ${spec.key} appears twice`;
    keys.add(spec.key);
    const foreign = foreignWorkKeyProblem(`payload_key of ${spec.key}`, spec.payload_key, reconstructionId, attempt);
    if (foreign) return foreign;
  }
  return null;
}

/** A malformed argument is refused as data, not thrown: errors cross boundaries as values. */
export function invalidReason(error: z.ZodError): string {
  return `invalid report: ${z.prettifyError(error).replace(/\s+/g, " ")}`;
}

export function refusedTask(reason: string): TaskReportOutcome {
  return { accepted: false, reason };
}

/** A task verb's key and body, parsed with the shared schemas, or why not. */
export function taskArgs<T>(key: string, schema: z.ZodType<T>, body: unknown): { key: string; body: T } | { reason: string } {
  const parsedKey = TaskKey.safeParse(key);
  if (!parsedKey.success) return { reason: invalidReason(parsedKey.error) };
  const parsedBody = schema.safeParse(body);
  if (!parsedBody.success) return { reason: invalidReason(parsedBody.error) };
  return { key: parsedKey.data, body: parsedBody.data };
}

/** The lost-container failure of a task whose last delivery's lease ran out. */
export function lostTaskError(row: TaskRow): { code: string; message: string } {
  return { code: "task_lost", message: `Task ${row.key} stopped: no sign of life from its container on ${row.deliveries} deliveries.` };
}

const WORK_DELETED_SQL = `CREATE TABLE IF NOT EXISTS work_deleted (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), at TEXT NOT NULL);`;

/**
 * Removes the job's work objects (task inputs and results of every attempt) from R2, once; the
 * marker is written after the deletion, so a failure is retried by the caller's next settle.
 */
export async function deleteWorkOnce(sql: SqlStorage, bucket: R2Bucket, reconstructionId: string): Promise<void> {
  sql.exec(WORK_DELETED_SQL);
  if (sql.exec(`SELECT 1 FROM work_deleted`).toArray().length > 0) return;
  await deletePrefix(bucket, workPrefix(reconstructionId));
  sql.exec(`INSERT OR IGNORE INTO work_deleted (singleton, at) VALUES (1, ?)`, new Date().toISOString());
}
