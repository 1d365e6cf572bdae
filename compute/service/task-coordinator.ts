/**
 * @module The coordinator's side of tasks (shared/tasks.ts): the compute process that runs a
 * job uploads what its tasks need under the job attempt's work prefix, registers them with
 * the ReconstructionObject, polls the task table, and downloads the results.
 *
 * The object sends each task through the task queue to any free container and sends it again
 * when that container dies (its lease runs out), without redoing the others; a task that
 * failed on every delivery fails the job here.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { workKey } from "../../shared/storage-keys.js";
import type { TaskKind, TaskRecord, TaskSpec } from "../../shared/tasks.js";
import type { ImageRef } from "../scene/index.js";
import { StoppedByEdge, type EdgeClient } from "./edge-client.js";
import { taskContentDigest } from "./task-digest.js";

/** Where one photo of a payload is stored. */
export interface StoredPhoto {
  imageIndex: number;
  key: string;
  extension: string;
  /** The stored file's SHA-256: the photo's part of the task's content digest (task-digest.ts). */
  sha256: string;
}

async function fileSha256(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

export interface TaskCoordinatorContext {
  edge: EdgeClient;
  reconstructionId: string;
  attempt: number;
  /** Where payloads and downloaded results are written before upload / after download. */
  scratchDir: string;
  /** Between two reads of the task table. */
  pollMs: number;
  log?: (event: Record<string, unknown>) => void;
}

export class TaskCoordinator {
  /** Photos already in the work prefix (features and dense tasks share them). */
  private readonly photos = new Map<number, StoredPhoto>();

  constructor(readonly ctx: TaskCoordinatorContext) {}

  /** Uploads each photo once per job attempt. */
  async storePhotos(images: ImageRef[]): Promise<StoredPhoto[]> {
    const stored: StoredPhoto[] = [];
    for (const image of images) {
      let photo = this.photos.get(image.index);
      if (!photo) {
        const extension = path.extname(image.path) || ".png";
        const key = workKey(this.ctx.reconstructionId, this.ctx.attempt, `photos/${String(image.index).padStart(5, "0")}${extension}`);
        await this.ctx.edge.uploadObject(key, image.path, "application/octet-stream");
        photo = { imageIndex: image.index, key, extension, sha256: await fileSha256(image.path) };
        this.photos.set(image.index, photo);
      }
      stored.push(photo);
    }
    return stored;
  }

  /**
   * Uploads the payloads, registers one task per payload with its content digest, waits until
   * all are done (progress: their mean fraction) and returns their results' bytes in the
   * payloads' order. After a watchdog re-dispatch, the edge marks done at once the tasks an
   * earlier attempt finished with the same digest, and their results are read from there.
   */
  async run(kind: TaskKind, payloads: Array<{ key: string; payload: string | Uint8Array }>, progress: (fraction: number) => void): Promise<Uint8Array[]> {
    const { edge, reconstructionId, attempt } = this.ctx;
    const specs: TaskSpec[] = [];
    for (const { key, payload } of payloads) {
      // JSON payloads as text, binary ones (features to match) as bytes.
      const [extension, type] = typeof payload === "string" ? [".json", "application/json"] : [".bin", "application/octet-stream"];
      const local = path.join(this.ctx.scratchDir, `${key}${extension}`);
      await writeFile(local, payload);
      const payloadKey = workKey(reconstructionId, attempt, `tasks/${key}${extension}`);
      await edge.uploadObject(payloadKey, local, type);
      specs.push({ key, kind, payload_key: payloadKey, content_sha256: taskContentDigest(kind, payload, reconstructionId, attempt) });
    }
    const added = await edge.addTasks(reconstructionId, { attempt, tasks: specs });
    if (!added.accepted) throw new StoppedByEdge(`edge refused the ${kind} tasks: ${added.reason ?? added.status ?? "no reason"}`);
    this.ctx.log?.({ level: "info", job: reconstructionId, event: "tasks_added", kind, tasks: specs.length, reused: added.reused ?? 0 });
    const keys = new Set(specs.map((s) => s.key));
    const done = await this.waitFor(keys, progress);
    const byKey = new Map(done.map((t) => [t.key, t]));
    return Promise.all(specs.map((s) => this.download(byKey.get(s.key)!)));
  }

  /**
   * Polls the task table until every task of `keys` is done; a task that failed for good ends
   * the job. Each round also asks whether this attempt is still the job's current one: after a
   * watchdog re-dispatch its tasks are stale and would never finish, so waiting would hang.
   */
  private async waitFor(keys: Set<string>, progress: (fraction: number) => void): Promise<TaskRecord[]> {
    for (;;) {
      const current = await this.ctx.edge.heartbeat(this.ctx.reconstructionId, this.ctx.attempt);
      if (!current.accepted) throw new StoppedByEdge(`the job no longer runs as attempt ${this.ctx.attempt}: ${current.reason ?? current.status ?? "refused"}`);
      const tasks = (await this.ctx.edge.listTasks(this.ctx.reconstructionId, this.ctx.attempt)).filter((t) => keys.has(t.key));
      if (tasks.length < keys.size) throw new StoppedByEdge(`edge lists ${tasks.length} of ${keys.size} tasks (a newer attempt owns the job?)`);
      const failed = tasks.find((t) => t.state === "failed");
      if (failed) throw new Error(`task ${failed.key} failed after ${failed.deliveries} deliveries: ${failed.error?.code ?? "?"} ${failed.error?.message ?? ""}`);
      progress(tasks.reduce((sum, t) => sum + (t.state === "done" ? 1 : t.progress), 0) / tasks.length);
      if (tasks.every((t) => t.state === "done")) return tasks;
      await new Promise((r) => setTimeout(r, this.ctx.pollMs));
    }
  }

  private async download(task: TaskRecord): Promise<Uint8Array> {
    if (!task.result_key) throw new Error(`task ${task.key} is done without a result`);
    const local = path.join(this.ctx.scratchDir, `${task.key}.result`);
    await this.ctx.edge.downloadObject(task.result_key, local);
    return new Uint8Array(await readFile(local));
  }
}

/** Where a task's result goes: next to its payload. */
export function resultKeyOf(reconstructionId: string, attempt: number, taskKey: string): string {
  return workKey(reconstructionId, attempt, `tasks/${taskKey}.result`);
}
