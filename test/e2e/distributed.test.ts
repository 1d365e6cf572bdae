/**
 * One reconstruction spread over three compute processes (issue: large captures): the job's
 * feature batches, pair batches and dense clusters go out as tasks through the edge's task
 * queue, one process running a task is killed without warning, and the job still completes, with the same files as the whole
 * pipeline run in one process, one credit charged, and only the lost task run again.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { unzipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runPipeline } from "../../compute/pipeline/index.js";
import type { TaskRecord } from "../../shared/tasks.js";
import { renderScene, writeViewsAsImages } from "../support/render.js";
import { createAccount, getJson, pollUntilDone, upload, type StatusBody } from "./client.js";
import { startSystem, type RunningSystem } from "./system.js";

/** Small clusters and batches, so an 8-photo job makes several tasks of each kind. */
const CLUSTER_VIEWS = 3;
const BATCH_IMAGES = 3;
/** 8 photos are matched exhaustively: 28 pairs, 3 matching tasks. */
const BATCH_PAIRS = 10;
/** Formats compared byte for byte with the one-process run (zips entry by entry: their headers carry the time they were written). */
const COMPARED = ["ply", "las", "stl", "obj", "colmap"] as const;

function sameContent(format: string, served: Buffer, expected: Buffer): boolean {
  if (format !== "obj" && format !== "colmap") return served.equals(expected);
  const a = unzipSync(served);
  const b = unzipSync(expected);
  const names = Object.keys(a).sort();
  return names.join() === Object.keys(b).sort().join() && names.every((n) => Buffer.from(a[n]).equals(Buffer.from(b[n])));
}

let system: RunningSystem;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "e2e-distributed-"));
  system = await startSystem({
    computeProcesses: 3,
    // A short lease, so a killed process's task is sent again within test time.
    vars: { TASK_LEASE_SECONDS: "5", WATCHDOG_PROCESSING_SECONDS: "120", WATCHDOG_PENDING_SECONDS: "120" },
    computeEnv: { DENSE_CLUSTER_VIEWS: String(CLUSTER_VIEWS), FEATURE_BATCH_IMAGES: String(BATCH_IMAGES), MATCH_BATCH_PAIRS: String(BATCH_PAIRS), HEARTBEAT_SECONDS: "1", TASK_POLL_MS: "250", PREWARM: "0" },
  });
}, 180_000);

afterAll(async () => {
  await system?.stop();
  await rm(dir, { recursive: true, force: true });
});

interface Health {
  worker: string;
  running_jobs: Array<{ id: string }>;
  running_tasks: Array<{ id: string; key: string; delivery: number; leased: boolean; progress: number }>;
}

async function health(url: string): Promise<Health | null> {
  try {
    return (await (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) })).json()) as Health;
  } catch {
    return null;
  }
}

/** Waits until a process other than the job's coordinator is partway through one of its tasks (leased, some progress); returns its index and the task. */
async function taskOnAnotherProcess(id: string, timeoutMs: number): Promise<{ index: number; key: string }> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const states = await Promise.all(system.computeUrls.map(health));
    for (const [index, state] of states.entries()) {
      const task = state?.running_tasks.find((t) => t.id === id && t.leased && t.progress > 0);
      if (task && !state!.running_jobs.some((j) => j.id === id)) return { index, key: task.key };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no task of ${id} ran on a process other than its coordinator:\n${system.logs().slice(-3000)}`);
}

async function tasksOf(id: string): Promise<TaskRecord[]> {
  const res = await fetch(`${system.baseUrl}/internal/reconstructions/${id}/tasks?attempt=1`, { headers: { authorization: "Bearer e2e-compute-secret" } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { tasks: TaskRecord[] }).tasks;
}

describe("one job on many compute processes", () => {
  it("sends feature batches, pair batches and dense clusters as tasks, survives a killed process, and gives the one-process result with one debit", async () => {
    const scene = renderScene({ scene: "object", views: 8, width: 400, height: 300, seed: 5, stepDegrees: 12 });
    const files = await writeViewsAsImages(scene.views, path.join(dir, "photos"));
    const api = await createAccount(system.baseUrl, system.adminToken, 2);
    const res = await upload(api, files, { quality: "preview" });
    expect(res.status, await res.clone().text()).toBe(202);
    const { id } = (await res.json()) as { id: string };

    const victim = await taskOnAnotherProcess(id, 300_000);
    await system.killCompute("SIGKILL", victim.index);
    const seen = await pollUntilDone(api, id, 600_000, 500);
    const last = seen.at(-1)!;
    expect(last.status, `${JSON.stringify(last.error)}\n${system.logs().slice(-4000)}`).toBe("completed");
    for (let i = 1; i < seen.length; i++) expect(seen[i].progress).toBeGreaterThanOrEqual(seen[i - 1].progress);
    expect((await getJson<{ balance: number }>(api, "/v1/account")).body.balance).toBe(1);

    // Several tasks, all done in the first job attempt; only the killed one was delivered again.
    const tasks = await tasksOf(id);
    expect(tasks.filter((t) => t.kind === "dense-cluster").length).toBeGreaterThanOrEqual(3);
    expect(tasks.every((t) => t.state === "done")).toBe(true);
    const lost = tasks.find((t) => t.key === victim.key)!;
    console.log(`distributed: killed process ${victim.index} during ${victim.key}; tasks ${tasks.map((t) => `${t.key}×${t.deliveries}@${t.worker}`).join(", ")}`);
    expect(lost.deliveries).toBeGreaterThanOrEqual(2);
    expect(tasks.filter((t) => t.key !== victim.key).every((t) => t.deliveries === 1)).toBe(true);
    expect(new Set(tasks.map((t) => t.worker)).size).toBeGreaterThanOrEqual(2);
    const denseTasks = tasks.filter((t) => t.kind === "dense-cluster").length;
    const featureTasks = tasks.filter((t) => t.kind === "features-batch").length;
    expect(featureTasks).toBe(Math.ceil(files.length / BATCH_IMAGES));
    const matchingTasks = tasks.filter((t) => t.kind === "matching-batch").length;
    expect(matchingTasks).toBe(Math.ceil((files.length * (files.length - 1)) / 2 / BATCH_PAIRS));
    const report = (await getJson<{ stages: Array<{ stage: string; counts: Record<string, number> }> }>(api, `/v1/reconstruction/${id}/report`)).body;
    expect(report.stages.find((s) => s.stage === "dense")!.counts.remoteClusters).toBe(denseTasks);
    expect(report.stages.find((s) => s.stage === "features")!.counts.batches).toBe(featureTasks);
    expect(report.stages.find((s) => s.stage === "matching")!.counts.remoteBatches).toBe(matchingTasks);

    // The same photos through the whole pipeline in this one process, clusters solved here.
    const local = await runPipeline({
      files: files.map((f) => ({ path: f, name: path.basename(f) })),
      workDir: path.join(dir, "local-work"),
      outDir: path.join(dir, "local-out"),
      quality: "preview",
      denseClusterViews: CLUSTER_VIEWS,
    });
    expect(local.report.stages.find((s) => s.stage === "dense")!.counts!.clusters).toBe(denseTasks);
    for (const format of COMPARED) {
      const { body } = await getJson<{ download_url: string }>(api, `/v1/reconstruction/${id}/download/${format}`);
      const served = Buffer.from(await (await fetch(body.download_url)).arrayBuffer());
      const output = local.outputs.find((o) => o.format === format)!;
      const expected = await readFile(output.path);
      expect(sameContent(format, served, expected), `${format}: ${served.byteLength} bytes served, ${expected.byteLength} from one process`).toBe(true);
    }
  }, 900_000);
});
