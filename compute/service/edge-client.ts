/**
 * @module Compute's one way to the edge: its internal API (inputs, outputs, reports).
 *
 * docs/DESIGN.md lets compute reach R2 through the S3 API or through authenticated internal
 * endpoints of the Worker; this project uses the Worker's endpoints in both worlds, so local
 * dev needs no S3 credentials and the Worker stays the only holder of bucket and state. The
 * whole surface is this one small interface, so an S3 client can replace it.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { CompletionReport, FailureReport, ProgressReport } from "../../shared/jobs.js";
import type { AddTasksRequest, TaskCompletion, TaskFailure, TaskHeartbeat, TaskLeaseAnswer, TaskLeaseRequest, TaskRecord } from "../../shared/tasks.js";

export interface EdgeClient {
  downloadObject(key: string, destPath: string): Promise<number>;
  uploadObject(key: string, srcPath: string, contentType: string): Promise<number>;
  start(reconstructionId: string, attempt: number): Promise<ReportAnswer>;
  progress(reconstructionId: string, report: ProgressReport): Promise<ReportAnswer>;
  heartbeat(reconstructionId: string, attempt: number): Promise<ReportAnswer>;
  complete(reconstructionId: string, report: CompletionReport): Promise<ReportAnswer>;
  fail(reconstructionId: string, report: FailureReport): Promise<ReportAnswer>;
  /** Tasks (shared/tasks.ts): the coordinator registers and reads them, a task's container leases, beats, completes or fails it. */
  addTasks(reconstructionId: string, request: AddTasksRequest): Promise<AddTasksAnswer>;
  listTasks(reconstructionId: string, attempt: number): Promise<TaskRecord[]>;
  leaseTask(reconstructionId: string, key: string, request: TaskLeaseRequest): Promise<TaskLeaseAnswer>;
  taskHeartbeat(reconstructionId: string, key: string, beat: TaskHeartbeat): Promise<ReportAnswer>;
  completeTask(reconstructionId: string, key: string, completion: TaskCompletion): Promise<ReportAnswer>;
  failTask(reconstructionId: string, key: string, failure: TaskFailure): Promise<ReportAnswer>;
}

/** The edge told compute to stop this job (cancelled, ended or deleted): not an error to report. */
export class StoppedByEdge extends Error {
  override readonly name = "StoppedByEdge";
}

/** What the state machine said: `accepted: false` means the attempt is stale or the job already ended. */
export interface ReportAnswer {
  accepted: boolean;
  status?: string;
  /** Why a report was refused (e.g. "already failed" after a cancel); the job must stop. */
  reason?: string;
}

/** The answer to registering tasks: how many were new, and how many of those took an earlier attempt's result. */
export interface AddTasksAnswer extends ReportAnswer {
  added?: number;
  reused?: number;
}

export function createEdgeClient(edgeUrl: string, secret: string, fetchImpl: typeof fetch = fetch): EdgeClient {
  const auth = { authorization: `Bearer ${secret}` };

  async function call(path: string, init: RequestInit & { duplex?: "half" }, attempts = 4): Promise<Response> {
    let lastError: unknown;
    for (let i = 0; i < attempts; i++) {
      try {
        const res = await fetchImpl(`${edgeUrl}${path}`, { ...init, headers: { ...auth, ...(init.headers ?? {}) } });
        // 5xx and 429 are worth retrying; a 4xx is an answer.
        if (res.status < 500 && res.status !== 429) return res;
        lastError = new Error(`edge ${init.method ?? "GET"} ${path}: HTTP ${res.status} ${await res.text()}`);
      } catch (err) {
        lastError = err;
      }
      if (init.body && typeof init.body !== "string") break; // a consumed stream cannot be resent
      await new Promise((r) => setTimeout(r, 250 * 2 ** i));
    }
    throw lastError instanceof Error ? lastError : new Error(String(lastError));
  }

  async function report<A extends ReportAnswer | TaskLeaseAnswer = ReportAnswer>(id: string, verb: string, body: unknown): Promise<A> {
    const res = await call(`/internal/reconstructions/${encodeURIComponent(id)}/${verb}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (res.status === 409) {
      const body = (await res.json().catch(() => ({}))) as { status?: string; reason?: string };
      return { accepted: false, granted: false, status: body.status, reason: body.reason } as unknown as A;
    }
    if (!res.ok) throw new Error(`edge ${verb} for ${id}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as A;
  }

  return {
    async downloadObject(key, destPath) {
      const res = await call(`/internal/objects/${encodeKey(key)}`, { method: "GET" });
      if (!res.ok || !res.body) throw new Error(`edge: input ${key} unavailable (HTTP ${res.status})`);
      await pipeline(Readable.fromWeb(res.body as unknown as WebReadableStream), createWriteStream(destPath));
      return (await stat(destPath)).size;
    },
    async uploadObject(key, srcPath, contentType) {
      const size = (await stat(srcPath)).size;
      for (let i = 0; i < 3; i++) {
        const body = Readable.toWeb(createReadStream(srcPath)) as unknown as ReadableStream;
        const res = await call(
          `/internal/objects/${encodeKey(key)}`,
          { method: "PUT", body, duplex: "half", headers: { "content-type": contentType, "content-length": String(size) } },
          1,
        ).catch((err: unknown) => err as Error);
        if (res instanceof Response && res.ok) return size;
        // The state machine refuses outputs of a cancelled or finished job: stop, do not retry.
        if (res instanceof Response && res.status === 409) throw new StoppedByEdge(`edge refused output ${key}: the job was cancelled or has ended`);
        if (i === 2) throw res instanceof Error ? res : new Error(`edge: upload of ${key} failed (HTTP ${res.status})`);
        await new Promise((r) => setTimeout(r, 500 * 2 ** i));
      }
      return size;
    },
    start: (id, attempt) => report(id, "start", { attempt }),
    progress: (id, body) => report(id, "progress", body),
    heartbeat: (id, attempt) => report(id, "heartbeat", { attempt }),
    complete: (id, body) => report(id, "complete", body),
    fail: (id, body) => report(id, "fail", body),
    addTasks: (id, body) => report<AddTasksAnswer>(id, "tasks", body),
    async listTasks(id, attempt) {
      const res = await call(`/internal/reconstructions/${encodeURIComponent(id)}/tasks?attempt=${attempt}`, { method: "GET" });
      if (!res.ok) throw new Error(`edge tasks of ${id}: HTTP ${res.status} ${await res.text()}`);
      return ((await res.json()) as { tasks: TaskRecord[] }).tasks;
    },
    leaseTask: (id, key, body) => report<TaskLeaseAnswer>(id, `tasks/${encodeURIComponent(key)}/lease`, body),
    taskHeartbeat: (id, key, body) => report(id, `tasks/${encodeURIComponent(key)}/heartbeat`, body),
    completeTask: (id, key, body) => report(id, `tasks/${encodeURIComponent(key)}/complete`, body),
    failTask: (id, key, body) => report(id, `tasks/${encodeURIComponent(key)}/fail`, body),
  };
}

function encodeKey(key: string): string {
  return key.split("/").map(encodeURIComponent).join("/");
}
