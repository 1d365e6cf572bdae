/**
 * @module Dense clusters as tasks on any compute container (shared/tasks.ts): the coordinator
 * side (a ClusterRunner for the dense stage) and the payload both sides read.
 *
 * The coordinator uploads the photos the clusters need (each once) and one payload per
 * cluster under the job attempt's work prefix, registers one task per cluster with the
 * ReconstructionObject, then polls the task table: the dense stage's progress is the tasks'
 * mean progress, and once every task is done it downloads the results. The object re-sends a
 * task whose container died; a task that failed for good fails the job.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { workKey } from "../../shared/storage-keys.js";
import type { TaskRecord, TaskSpec } from "../../shared/tasks.js";
import type { ImageRef } from "../scene/index.js";
import { decodeClusterResult, type ClusterJob, type ClusterResult, type ClusterRunner, type DensePlan } from "../stages/dense/index.js";
import { StoppedByEdge, type EdgeClient } from "./edge-client.js";

/** A dense-cluster task's input: the cluster job and where each of its photos is stored. */
export interface DenseTaskPayload {
  job: ClusterJob;
  /** ImageRef.index → work key of the photo file. */
  photos: Array<{ imageIndex: number; key: string; extension: string }>;
}

export function encodePayload(payload: DenseTaskPayload): string {
  return JSON.stringify(payload);
}

export function decodePayload(text: string): DenseTaskPayload {
  const payload = JSON.parse(text) as DenseTaskPayload;
  if (!payload.job || !Array.isArray(payload.photos) || !Array.isArray(payload.job.views)) throw new Error("dense task: malformed payload");
  const stored = new Set(payload.photos.map((p) => p.imageIndex));
  const missing = payload.job.views.find((v) => !stored.has(v.imageIndex));
  if (missing) throw new Error(`dense task: no photo for view ${missing.name}`);
  return payload;
}

export function taskKeyOf(cluster: number): string {
  return `dense-${String(cluster).padStart(4, "0")}`;
}

export function resultKeyOf(reconstructionId: string, attempt: number, cluster: number): string {
  return workKey(reconstructionId, attempt, `dense/${taskKeyOf(cluster)}.result`);
}

export interface ClusterTaskContext {
  edge: EdgeClient;
  reconstructionId: string;
  attempt: number;
  /** Where payloads and downloaded results are written before upload / after download. */
  scratchDir: string;
  /** Between two reads of the task table. */
  pollMs: number;
  log?: (event: Record<string, unknown>) => void;
}

/** A ClusterRunner that sends each cluster as a task through the edge and waits for all of them. */
export function clusterTaskRunner(ctx: ClusterTaskContext): ClusterRunner {
  return async (plan, images, progress) => {
    const specs = await uploadInputs(ctx, plan, images);
    const added = await ctx.edge.addTasks(ctx.reconstructionId, { attempt: ctx.attempt, tasks: specs });
    if (!added.accepted) throw new StoppedByEdge(`edge refused the dense tasks: ${added.reason ?? added.status ?? "no reason"}`);
    ctx.log?.({ level: "info", job: ctx.reconstructionId, event: "tasks_added", tasks: specs.length });
    const done = await waitForTasks(ctx, specs.length, progress);
    return Promise.all(done.map((task) => downloadResult(ctx, task)));
  };
}

async function uploadInputs(ctx: ClusterTaskContext, plan: DensePlan, images: ImageRef[]): Promise<TaskSpec[]> {
  const byIndex = new Map(images.map((im) => [im.index, im]));
  const photoKeys = new Map<number, { key: string; extension: string }>();
  const specs: TaskSpec[] = [];
  for (const job of plan.jobs) {
    for (const view of job.views) {
      if (photoKeys.has(view.imageIndex)) continue;
      const image = byIndex.get(view.imageIndex);
      if (!image) throw new Error(`dense tasks: no image ${view.imageIndex}`);
      const extension = path.extname(image.path) || ".png";
      const key = workKey(ctx.reconstructionId, ctx.attempt, `photos/${String(view.imageIndex).padStart(5, "0")}${extension}`);
      await ctx.edge.uploadObject(key, image.path, "application/octet-stream");
      photoKeys.set(view.imageIndex, { key, extension });
    }
    const photos = [...new Set(job.views.map((v) => v.imageIndex))].map((imageIndex) => ({ imageIndex, ...photoKeys.get(imageIndex)! }));
    const key = taskKeyOf(job.cluster);
    const payloadPath = path.join(ctx.scratchDir, `${key}.json`);
    await writeFile(payloadPath, encodePayload({ job, photos }));
    const payloadKey = workKey(ctx.reconstructionId, ctx.attempt, `dense/${key}.json`);
    await ctx.edge.uploadObject(payloadKey, payloadPath, "application/json");
    specs.push({ key, kind: "dense-cluster", payload_key: payloadKey });
  }
  return specs;
}

/** Polls the task table until every task is done; a task that failed for good ends the job. */
async function waitForTasks(ctx: ClusterTaskContext, count: number, progress: (fraction: number) => void): Promise<TaskRecord[]> {
  for (;;) {
    const tasks = (await ctx.edge.listTasks(ctx.reconstructionId, ctx.attempt)).filter((t) => t.kind === "dense-cluster");
    if (tasks.length < count) throw new StoppedByEdge(`edge lists ${tasks.length} of ${count} dense tasks (a newer attempt owns the job?)`);
    const failed = tasks.find((t) => t.state === "failed");
    if (failed) throw new Error(`dense task ${failed.key} failed after ${failed.deliveries} deliveries: ${failed.error?.code ?? "?"} ${failed.error?.message ?? ""}`);
    progress(tasks.reduce((sum, t) => sum + (t.state === "done" ? 1 : t.progress), 0) / tasks.length);
    if (tasks.every((t) => t.state === "done")) return tasks;
    await new Promise((r) => setTimeout(r, ctx.pollMs));
  }
}

async function downloadResult(ctx: ClusterTaskContext, task: TaskRecord): Promise<ClusterResult> {
  if (!task.result_key) throw new Error(`dense task ${task.key} is done without a result`);
  const local = path.join(ctx.scratchDir, `${task.key}.result`);
  await ctx.edge.downloadObject(task.result_key, local);
  return decodeClusterResult(new Uint8Array(await readFile(local)));
}
