/**
 * @module One task (shared/tasks.ts) on this container: lease it from the edge, fetch its
 * inputs, solve it in a thread of its own, upload the result and complete it.
 *
 * While it runs, heartbeats extend the lease and report the task's progress (task-heartbeats.ts).
 * When the edge refuses a heartbeat (the lease ran out and another container took the task, the
 * job ended, or a newer attempt owns it), the task stops and its thread is ended. When this
 * process dies, the lease runs out and the ReconstructionObject sends the task to another
 * container.
 */
import { mkdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { TaskMessage } from "../../shared/tasks.js";
import { useCompileCache } from "../util/compile-cache.js";
import { cancellable, type Cancellable, type OnCancel } from "./cancellable.js";
import type { ComputeConfig } from "./config.js";
import { decodeDensePayload } from "./dense-tasks.js";
import type { EdgeClient } from "./edge-client.js";
import { decodeFeaturePayload } from "./feature-tasks.js";
import { resultKeyOf, type StoredPhoto } from "./task-coordinator.js";
import { startTaskHeartbeats, type TaskHeartbeats } from "./task-heartbeats.js";
import type { TaskThreadCommand, TaskThreadMessage } from "./task-thread.js";

export interface TaskContext {
  config: ComputeConfig;
  edge: EdgeClient;
  workRoot: string;
  /** This process, as the edge's task table names lease holders. */
  worker: string;
  log: (event: Record<string, unknown>) => void;
}

export interface RunningTask extends Cancellable {
  id: string;
  key: string;
  attempt: number;
  delivery: number;
  /** True once the edge granted this container the task's lease (until then it may be someone else's). */
  leased: boolean;
  startedAt: number;
  progress: number;
  /** When the task's thread first reported a fraction (0 until then): with startedAt, its start-up (lease, inputs, thread) in the log. */
  firstProgressAt: number;
}

export function startTask(message: TaskMessage, ctx: TaskContext): { handle: RunningTask; finished: Promise<void> } {
  const { handle, onCancel } = cancellable({ id: message.reconstruction_id, key: message.key, attempt: message.attempt, delivery: message.delivery, leased: false, startedAt: Date.now(), progress: 0, firstProgressAt: 0 });
  const finished = runTask(message, handle, ctx, onCancel).catch((err: unknown) => ctx.log({ level: "error", job: message.reconstruction_id, task: message.key, event: "task_crashed", error: String(err) }));
  return { handle, finished };
}

async function runTask(message: TaskMessage, handle: RunningTask, ctx: TaskContext, setCancel: OnCancel): Promise<void> {
  const { reconstruction_id: id, key, attempt } = message;
  const lease = await ctx.edge.leaseTask(id, key, { attempt, worker: ctx.worker });
  if (!lease.granted || !lease.lease_id || !lease.payload_key) {
    ctx.log({ level: "info", job: id, task: key, event: "lease_refused", reason: lease.reason });
    return;
  }
  const leaseId = lease.lease_id;
  handle.leased = true;
  handle.delivery = lease.delivery ?? message.delivery;
  ctx.log({ level: "info", job: id, task: key, event: "task_started", delivery: lease.delivery });
  const dir = path.join(ctx.workRoot, `${id}-a${attempt}-${key}-d${lease.delivery ?? message.delivery}`);
  const heartbeats = startTaskHeartbeats(
    () =>
      ctx.edge.taskHeartbeat(id, key, { attempt, lease_id: leaseId, progress: handle.progress }).then(
        (answer) => {
          if (!answer.accepted) handle.cancel(`edge refused the task heartbeat: ${answer.reason ?? answer.status ?? "no reason"}`);
        },
        (err: unknown) => ctx.log({ level: "warn", job: id, task: key, event: "task_heartbeat_failed", error: String(err) }),
      ),
    { leaseMs: ctx.config.HEARTBEAT_SECONDS * 1000, progressMs: ctx.config.TASK_PROGRESS_MS },
  );
  try {
    await mkdir(dir, { recursive: true });
    const command = await fetchInputs(ctx, message, lease.payload_key, dir);
    if (handle.cancelReason) return;
    const summary = await solveInThread(command, handle, setCancel, heartbeats);
    if (summary === null) {
      ctx.log({ level: "info", job: id, task: key, event: "task_cancelled", reason: handle.cancelReason });
      return;
    }
    const resultKey = resultKeyOf(id, attempt, key);
    await ctx.edge.uploadObject(resultKey, command.resultPath, "application/octet-stream");
    const answer = await ctx.edge.completeTask(id, key, { attempt, lease_id: leaseId, result_key: resultKey });
    ctx.log({ level: "info", job: id, task: key, event: "task_completed", accepted: answer.accepted, summary, seconds: (Date.now() - handle.startedAt) / 1000, first_progress_seconds: handle.firstProgressAt ? (handle.firstProgressAt - handle.startedAt) / 1000 : null });
  } catch (err) {
    if (handle.cancelReason) return;
    ctx.log({ level: "error", job: id, task: key, event: "task_error", error: err instanceof Error ? err.stack : String(err) });
    // Retryable: the next delivery may land on a healthier container; the edge bounds the tries.
    await ctx.edge
      .failTask(id, key, { attempt, lease_id: leaseId, code: "task_error", message: String(err).slice(0, 2000), retryable: true })
      .catch((failErr: unknown) => ctx.log({ level: "error", job: id, task: key, event: "task_fail_report_failed", error: String(failErr) }));
  } finally {
    heartbeats.stop();
    if (ctx.config.KEEP_WORK_DIRS !== "1") await rm(dir, { recursive: true, force: true });
  }
}

/** The photos a payload names (a matching batch names none: it carries its features). */
function photosOf(kind: TaskMessage["kind"], payload: Buffer): StoredPhoto[] {
  if (kind === "matching-batch") return [];
  const text = payload.toString("utf8");
  return kind === "dense-cluster" ? decodeDensePayload(text).photos : decodeFeaturePayload(text).photos;
}

/** Downloads the payload and the photos it names. */
async function fetchInputs(ctx: TaskContext, message: TaskMessage, payloadKey: string, dir: string): Promise<TaskThreadCommand> {
  const payloadPath = path.join(dir, "payload");
  await ctx.edge.downloadObject(payloadKey, payloadPath);
  const stored = photosOf(message.kind, await readFile(payloadPath));
  const prefix = `work/${message.reconstruction_id}/a${message.attempt}/`;
  const photos: Array<[number, string]> = [];
  for (const photo of stored) {
    if (!photo.key.startsWith(prefix)) throw new Error(`task: photo key ${photo.key} is outside the job's work prefix`);
    const local = path.join(dir, `photo-${photo.imageIndex}${photo.extension.replace(/[^A-Za-z0-9.]/g, "")}`);
    await ctx.edge.downloadObject(photo.key, local);
    photos.push([photo.imageIndex, local]);
  }
  return { kind: message.kind, payloadPath, photos, resultPath: path.join(dir, "result.bin") };
}

/** Runs the task's thread; resolves with its summary, or null when the task was cancelled. */
function solveInThread(command: TaskThreadCommand, handle: RunningTask, setCancel: OnCancel, heartbeats: TaskHeartbeats): Promise<string | null> {
  useCompileCache();
  const thread = new Worker(new URL("./task-thread.ts", import.meta.url), { execArgv: ["--import", "tsx"] });
  return new Promise<string | null>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      thread.removeAllListeners();
      thread.on("error", () => {});
      void thread.terminate();
      fn();
    };
    setCancel(() => settle(() => resolve(null)));
    thread.on("message", (msg: TaskThreadMessage) => {
      if (msg.type === "progress") {
        if (!handle.firstProgressAt) handle.firstProgressAt = Date.now();
        if (msg.fraction > handle.progress) heartbeats.progressed();
        handle.progress = Math.max(handle.progress, msg.fraction);
      } else if (msg.type === "done") settle(() => resolve(msg.summary));
      else settle(() => reject(new Error(msg.message)));
    });
    thread.on("error", (err) => settle(() => reject(err)));
    thread.on("exit", (code) => settle(() => reject(new Error(`task thread exited (${code})`))));
    thread.postMessage(command);
  });
}
