/**
 * @module A reconstruction's side of the waiting line (edge/scheduling): whether its current
 * attempt still waits for compute or has been handed over, and the `queue` part of its status.
 *
 * While an attempt waits, its watchdog does not run down: the wait is not the job's fault and
 * uses no attempt. The object only asks the line again now and then (the line keeps its place;
 * a lost entry comes back). The pending watchdog starts when the line hands the job to compute.
 */
import type { QueuePlace, StatusRecord } from "../../shared/records.js";
import type { Env } from "../env.js";
import { schedulerStub } from "../scheduling/scheduler-object.js";
import type { LinePlace } from "../scheduling/waiting-line.js";

const DISPATCH_SQL = `CREATE TABLE IF NOT EXISTS dispatch_state (
  singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
  attempt INTEGER NOT NULL,
  state TEXT NOT NULL,
  run_seconds REAL NOT NULL,
  dispatched_at TEXT
);`;

export interface DispatchState {
  attempt: number;
  /** `queued`: in the line; `dispatched`: compute accepted it. */
  state: "queued" | "dispatched";
  /** The first estimate of the job's run time on compute, for the line's forecasts. */
  run_seconds: number;
  dispatched_at: string | null;
}

export function readDispatchState(sql: SqlStorage): DispatchState | undefined {
  const exists = sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'dispatch_state'`).toArray().length > 0;
  if (!exists) return undefined;
  return sql.exec<Record<string, SqlStorageValue>>(`SELECT attempt, state, run_seconds, dispatched_at FROM dispatch_state`).toArray()[0] as unknown as DispatchState | undefined;
}

/** The attempt joins the line. */
export function markQueued(sql: SqlStorage, attempt: number, runSeconds: number): void {
  sql.exec(DISPATCH_SQL);
  sql.exec(
    `INSERT INTO dispatch_state (singleton, attempt, state, run_seconds, dispatched_at) VALUES (1, ?, 'queued', ?, NULL)
     ON CONFLICT (singleton) DO UPDATE SET attempt = excluded.attempt, state = 'queued', dispatched_at = NULL`,
    attempt, runSeconds,
  );
}

/** Compute has the attempt. False when it was already marked (or is not the stored attempt). */
export function markDispatched(sql: SqlStorage, attempt: number, at: string): boolean {
  const state = readDispatchState(sql);
  if (!state || state.attempt !== attempt || state.state === "dispatched") return false;
  sql.exec(`UPDATE dispatch_state SET state = 'dispatched', dispatched_at = ?`, at);
  return true;
}

/** The run time the line forecasts with: the creation estimate's span, at least 10 s. */
export function runSecondsOf(createdAt: string, estimatedCompletion: string): number {
  const seconds = (Date.parse(estimatedCompletion) - Date.parse(createdAt)) / 1000;
  return Number.isFinite(seconds) ? Math.max(10, seconds) : 600;
}

/**
 * The pending record with its `queue` part, from the object's own state and the line's answer
 * (undefined when the line could not be asked). `estimated_completion` is moved to after the
 * forecast start plus the run time when that is later.
 */
export function withQueuePlace(record: StatusRecord, state: DispatchState | undefined, line: LinePlace | undefined): StatusRecord {
  if (record.status !== "pending" || !state) return record;
  let queue: QueuePlace | undefined;
  if (state.state === "dispatched" && state.dispatched_at) queue = { reason: "starting", position: 0, estimated_start: state.dispatched_at };
  else if (line?.state === "running") queue = { reason: "starting", position: 0, estimated_start: new Date(line.dispatched_at).toISOString() };
  else if (line?.state === "queued") queue = { reason: "queued", position: line.position, estimated_start: new Date(line.estimated_start).toISOString() };
  if (!queue) return record;
  // In the line, the end is the line's forecast (its run time corrected by what recent jobs took).
  const end = line?.state === "queued" ? line.estimated_end : Math.max(Date.parse(record.estimated_completion), Date.parse(queue.estimated_start) + state.run_seconds * 1000);
  return { ...record, queue, estimated_completion: new Date(end).toISOString() };
}

/** The line's answer for this job; undefined when it cannot be asked (the record then has no `queue`). */
export async function linePlaceOf(env: Env, id: string): Promise<LinePlace | undefined> {
  try {
    return await schedulerStub(env).place(id);
  } catch (err) {
    console.error(JSON.stringify({ level: "error", reconstruction_id: id, msg: "waiting line unreachable", error: String(err) }));
    return undefined;
  }
}
