/**
 * One reconstruction spread over three compute processes (issue: large captures): the job's
 * feature batches, pair batches and dense clusters go out as tasks through the edge's task
 * queue. A process running one of its tasks is killed without warning (the task goes out again
 * when its lease lapses), then the job's coordinator is killed once features and matching are
 * done: the watchdog dispatches the job again, and the new attempt takes the tasks the first one
 * finished (same content digest) instead of running them again. The job completes with the same
 * files as the whole pipeline run in one process, and one credit charged. (Two jobs, one per
 * failure, until 2026-12-02: 180 s alone against about 120 s for the one. The one-process run
 * starts when the coordinator is killed, while the watchdog waits: 139 → 107 s alone.)
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { unzipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runPipeline } from "../../compute/pipeline/index.js";
import type { TaskRecord } from "../../shared/tasks.js";
import { renderScene, writeViewsAsImages } from "../support/render.js";
import { createAccount, getJson, pollUntilDone, upload } from "./client.js";
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
    // A short lease, so a killed process's task is sent again within test time; ten heartbeats long, so a live holder
    // keeps its task on a machine loaded by the other suites (5 s let one lapse in a full CI run).
    // A short watchdog, so a killed coordinator's job is dispatched again within test time (a live one heartbeats every second).
    vars: { TASK_LEASE_SECONDS: "10", WATCHDOG_PROCESSING_SECONDS: "20", WATCHDOG_PENDING_SECONDS: "120" },
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

async function tasksOf(id: string, attempt = 1): Promise<TaskRecord[]> {
  const res = await fetch(`${system.baseUrl}/internal/reconstructions/${id}/tasks?attempt=${attempt}`, { headers: { authorization: "Bearer e2e-compute-secret" } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { tasks: TaskRecord[] }).tasks;
}

/** Waits until the job's first attempt has every feature and matching task done; returns the index of the process coordinating it. */
async function coordinatorPastMatching(id: string, featureTasks: number, matchingTasks: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const tasks = await tasksOf(id);
    const done = (kind: string) => tasks.filter((t) => t.kind === kind && t.state === "done").length;
    if (done("features-batch") === featureTasks && done("matching-batch") === matchingTasks) {
      const states = await Promise.all(system.computeUrls.map(health));
      const index = states.findIndex((state) => state?.running_jobs.some((j) => j.id === id));
      if (index >= 0) return index;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the job ${id} never got past matching on a live coordinator:\n${system.logs().slice(-3000)}`);
}

async function expectOneProcessFiles(api: Parameters<typeof getJson>[0], id: string, localOutputs: Array<{ format: string; path: string }>): Promise<void> {
  for (const format of COMPARED) {
    const { body } = await getJson<{ download_url: string }>(api, `/v1/reconstruction/${id}/download/${format}`);
    const served = Buffer.from(await (await fetch(body.download_url)).arrayBuffer());
    const expected = await readFile(localOutputs.find((o) => o.format === format)!.path);
    expect(sameContent(format, served, expected), `${format}: ${served.byteLength} bytes served, ${expected.byteLength} from one process`).toBe(true);
  }
}

describe("one job on many compute processes", () => {
  it("sends feature batches, pair batches and dense clusters as tasks, survives a killed task process and then its coordinator's death, and gives the one-process result with one debit", async () => {
    const scene = renderScene({ scene: "object", views: 8, width: 320, height: 240, seed: 5, stepDegrees: 12 });
    const files = await writeViewsAsImages(scene.views, path.join(dir, "photos"));
    const api = await createAccount(system.baseUrl, system.adminToken, 2);
    const res = await upload(api, files, { quality: "preview" });
    expect(res.status, await res.clone().text()).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const featureTasks = Math.ceil(files.length / BATCH_IMAGES);
    const matchingTasks = Math.ceil((files.length * (files.length - 1)) / 2 / BATCH_PAIRS);

    // A process running one of the job's tasks dies: its lease lapses and the task goes out again.
    const victim = await taskOnAnotherProcess(id, 300_000);
    await system.killCompute("SIGKILL", victim.index);
    // Then the coordinator dies once features and matching are done: the watchdog dispatches the
    // job again, and the second attempt takes the first attempt's finished tasks.
    const coordinator = await coordinatorPastMatching(id, featureTasks, matchingTasks, 300_000);
    await system.killCompute("SIGKILL", coordinator);
    // The same photos through the whole pipeline in this one process, clusters solved here; run
    // while the watchdog waits to dispatch the job again, when no process is working on it.
    const localRun = runPipeline({
      files: files.map((f) => ({ path: f, name: path.basename(f) })),
      workDir: path.join(dir, "local-work"),
      outDir: path.join(dir, "local-out"),
      quality: "preview",
      denseClusterViews: CLUSTER_VIEWS,
    });
    // Awaited below; a failure meanwhile must not count as unhandled.
    localRun.catch(() => undefined);
    const seen = await pollUntilDone(api, id, 600_000, 500);
    const last = seen.at(-1)!;
    expect(last.status, `${JSON.stringify(last.error)}\n${system.logs().slice(-4000)}`).toBe("completed");
    for (let i = 1; i < seen.length; i++) expect(seen[i].progress).toBeGreaterThanOrEqual(seen[i - 1].progress);
    expect((await getJson<{ balance: number }>(api, "/v1/account")).body.balance).toBe(1);

    // The first attempt: every feature and pair batch done, on at least two processes; only the
    // killed process's task was delivered again.
    const first = await tasksOf(id, 1);
    const front = first.filter((t) => t.kind === "features-batch" || t.kind === "matching-batch");
    const summary = `killed process ${victim.index} during ${victim.key}, then coordinator ${coordinator}; attempt 1 tasks ${first.map((t) => `${t.key}×${t.deliveries}@${t.worker}`).join(", ")}`;
    console.log(`distributed: ${summary}`);
    expect(front.filter((t) => t.kind === "features-batch").length).toBe(featureTasks);
    expect(front.filter((t) => t.kind === "matching-batch").length).toBe(matchingTasks);
    expect(front.every((t) => t.state === "done"), summary).toBe(true);
    const lost = front.find((t) => t.key === victim.key)!;
    expect(lost.deliveries, summary).toBeGreaterThanOrEqual(2);
    expect(front.filter((t) => t.key !== victim.key).every((t) => t.deliveries === 1), summary).toBe(true);
    expect(new Set(front.map((t) => t.worker)).size).toBeGreaterThanOrEqual(2);

    // The second attempt: every task the first finished was taken over, not run again; the others
    // (the dense clusters at least) ran in it.
    const byKey = new Map(first.map((t) => [t.key, t]));
    const second = await tasksOf(id, 2);
    console.log(`distributed: attempt 2 tasks ${second.map((t) => `${t.key}${t.reused_from_attempt ? "←a1" : `×${t.deliveries}`}`).join(", ")}`);
    expect(second.every((t) => t.state === "done")).toBe(true);
    for (const task of second) {
      if (byKey.get(task.key)?.state === "done") expect(task, task.key).toMatchObject({ reused_from_attempt: 1, deliveries: 0, result_key: byKey.get(task.key)!.result_key });
      else expect(task.reused_from_attempt === null && task.deliveries >= 1, `${task.key} ran in attempt 2`).toBe(true);
    }
    expect(second.filter((t) => t.reused_from_attempt === 1).length).toBeGreaterThanOrEqual(featureTasks + matchingTasks);
    const denseTasks = second.filter((t) => t.kind === "dense-cluster").length;
    expect(denseTasks).toBeGreaterThanOrEqual(3);
    const report = (await getJson<{ stages: Array<{ stage: string; counts: Record<string, number> }> }>(api, `/v1/reconstruction/${id}/report`)).body;
    expect(report.stages.find((s) => s.stage === "dense")!.counts.remoteClusters).toBe(denseTasks);
    expect(report.stages.find((s) => s.stage === "features")!.counts.batches).toBe(featureTasks);
    expect(report.stages.find((s) => s.stage === "matching")!.counts.remoteBatches).toBe(matchingTasks);

    const local = await localRun;
    expect(local.report.stages.find((s) => s.stage === "dense")!.counts!.clusters).toBe(denseTasks);
    await expectOneProcessFiles(api, id, local.outputs);
  }, 900_000);
});
