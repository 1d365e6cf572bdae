/**
 * The compute service's HTTP contract (POST /jobs, GET /healthz), with the edge replaced by a
 * recording client whose `start` is held open so a job stays "running" while we probe.
 * The real edge is exercised by test/e2e.
 */
import { writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { createComputeService, type ComputeService } from "../../../compute/service/app.js";
import { loadConfig } from "../../../compute/service/config.js";
import type { EdgeClient, ReportAnswer } from "../../../compute/service/edge-client.js";
import type { PipelineThreadCommand } from "../../../compute/service/pipeline-messages.js";
import { jobOptionsOf } from "../../../shared/jobs.js";

/** The task calls of an edge these tests never reach (no job here has more than one dense cluster). */
const noTasks = {
  addTasks: async (): Promise<ReportAnswer> => ({ accepted: false }),
  listTasks: async () => [],
  leaseTask: async () => ({ granted: false, reason: "no tasks here" }),
  taskHeartbeat: async (): Promise<ReportAnswer> => ({ accepted: false }),
  completeTask: async (): Promise<ReportAnswer> => ({ accepted: false }),
  failTask: async (): Promise<ReportAnswer> => ({ accepted: false }),
};

function heldEdge() {
  const calls: string[] = [];
  let release: (answer: ReportAnswer) => void = () => {};
  const held = new Promise<ReportAnswer>((resolve) => (release = resolve));
  const refuse = async (): Promise<ReportAnswer> => ({ accepted: false, status: "failed" });
  const edge: EdgeClient = {
    downloadObject: async () => 0,
    uploadObject: async () => 0,
    start: async (id, attempt) => {
      calls.push(`start ${id} ${attempt}`);
      return held;
    },
    progress: refuse,
    heartbeat: refuse,
    complete: refuse,
    fail: refuse,
    ...noTasks,
  };
  return { edge, calls, release: () => release({ accepted: false, status: "failed" }) };
}

function job(id: string, attempt = 1) {
  return {
    version: 1,
    reconstruction_id: id,
    account_id: "acc_test",
    attempt,
    quality: "preview",
    inputs: [{ key: `inputs/${id}/0000-a.jpg`, name: "a.jpg", kind: "jpeg", size: 10 }],
    created_at: new Date().toISOString(),
  };
}

/**
 * An edge that lets jobs run: each input downloads as bytes that are no image, so the pipeline
 * fails in ingest with no_usable_images (in its thread, after the thread started for real).
 * Progress reports are refused once `refuseProgress` is set, which cancels the running job.
 */
function acceptingEdge() {
  const failures: string[] = [];
  const control = { refuseProgress: false };
  const yes = async (): Promise<ReportAnswer> => ({ accepted: true });
  const edge: EdgeClient = {
    downloadObject: async (_key, dest) => {
      await writeFile(dest, "not an image");
      return 12;
    },
    uploadObject: async () => 0,
    start: yes,
    progress: async () => ({ accepted: !control.refuseProgress, status: control.refuseProgress ? "cancelled" : undefined }),
    heartbeat: yes,
    complete: yes,
    fail: async (id, report) => {
      failures.push(`${id} ${report.code}`);
      return { accepted: true };
    },
    ...noTasks,
  };
  return { edge, failures, control };
}

/**
 * Waits until no job runs. A job here fails in ingest in under a second alone; on a busy machine
 * (a fresh clone's CI beside other suites) one took over 10 s, so the wait is far above that.
 */
async function settled(): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (service!.running.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(service!.running.size).toBe(0);
}

const secret = "test-compute-secret";
let service: ComputeService | null = null;

afterEach(async () => {
  await service?.shutdown(0);
  service = null;
});

async function post(body: unknown, auth = `Bearer ${secret}`) {
  return service!.app.inject({ method: "POST", url: "/jobs", headers: { authorization: auth, "content-type": "application/json" }, payload: JSON.stringify(body) });
}

describe("compute service", () => {
  it("refuses a wrong secret and a message that is not a JobMessage", async () => {
    const { edge } = heldEdge();
    service = await createComputeService(loadConfig({ COMPUTE_SECRET: secret, MAX_CONCURRENT_JOBS: "1", PREWARM: "0" }), edge);
    expect((await post(job("rec_aaaaaaaaaaaaaaaaaaaaaaaa"), "Bearer wrong-secret-1")).statusCode).toBe(401);
    expect((await post(job("rec_aaaaaaaaaaaaaaaaaaaaaaaa"), "")).statusCode).toBe(401);
    const bad = await post({ ...job("rec_aaaaaaaaaaaaaaaaaaaaaaaa"), inputs: [] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: "invalid_request" } });
  });

  it("answers 202 at once, acknowledges a duplicate without running it twice, and 503 when full", async () => {
    const { edge, calls, release } = heldEdge();
    service = await createComputeService(loadConfig({ COMPUTE_SECRET: secret, MAX_CONCURRENT_JOBS: "1", PREWARM: "0" }), edge);
    const first = await post(job("rec_aaaaaaaaaaaaaaaaaaaaaaaa"));
    expect(first.statusCode).toBe(202);
    expect(first.json()).toMatchObject({ accepted: true, duplicate: false });
    const again = await post(job("rec_aaaaaaaaaaaaaaaaaaaaaaaa", 2));
    expect(again.statusCode).toBe(202);
    expect(again.json()).toMatchObject({ duplicate: true, attempt: 2 });
    const other = await post(job("rec_bbbbbbbbbbbbbbbbbbbbbbbb"));
    expect(other.statusCode).toBe(503);
    expect(Number(other.headers["retry-after"])).toBeGreaterThan(0);
    const health = (await service.app.inject({ method: "GET", url: "/healthz" })).json();
    expect(health).toMatchObject({ capacity: 1, available: 0, running_jobs: [{ id: "rec_aaaaaaaaaaaaaaaaaaaaaaaa", attempt: 2 }] });
    expect(calls).toEqual(["start rec_aaaaaaaaaaaaaaaaaaaaaaaa 1"]);
    release();
    // The refused start ends the job and frees the slot.
    for (let i = 0; i < 50 && service.running.size > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await post(job("rec_bbbbbbbbbbbbbbbbbbbbbbbb"))).statusCode).toBe(202);
  });

  it("stops taking work while draining", async () => {
    const { edge, release } = heldEdge();
    service = await createComputeService(loadConfig({ COMPUTE_SECRET: secret, MAX_CONCURRENT_JOBS: "2", PREWARM: "0" }), edge);
    expect((await post(job("rec_aaaaaaaaaaaaaaaaaaaaaaaa"))).statusCode).toBe(202);
    const draining = service.shutdown(10_000);
    const refused = await post(job("rec_cccccccccccccccccccccccc"));
    expect(refused.statusCode).toBe(503);
    release();
    await draining;
    service = null;
  });

  it("runs jobs in the pipeline thread it started ahead of them, and replaces one whose job was cancelled", async () => {
    const { edge, failures, control } = acceptingEdge();
    service = await createComputeService(loadConfig({ COMPUTE_SECRET: secret, MAX_CONCURRENT_JOBS: "1", PREWARM: "1" }), edge);
    expect(service.threads.started).toBe(1);
    const twoInputs = (id: string) => ({ ...job(id), inputs: [0, 1].map((i) => ({ key: `inputs/${id}/000${i}-a.jpg`, name: `a${i}.jpg`, kind: "jpeg", size: 12 })) });
    for (const id of ["rec_aaaaaaaaaaaaaaaaaaaaaaaa", "rec_bbbbbbbbbbbbbbbbbbbbbbbb"]) {
      expect((await post(twoInputs(id))).statusCode).toBe(202);
      await settled();
    }
    // Both ran (and failed in ingest, as they should) in the thread started with the service.
    expect(failures).toEqual(["rec_aaaaaaaaaaaaaaaaaaaaaaaa no_usable_images", "rec_bbbbbbbbbbbbbbbbbbbbbbbb no_usable_images"]);
    expect(service.threads.started).toBe(1);
    expect(service.threads.waiting).toBe(1);
    // A cancelled job's thread is terminated, never reused: the next job starts another.
    control.refuseProgress = true;
    expect((await post(twoInputs("rec_cccccccccccccccccccccccc"))).statusCode).toBe(202);
    await settled();
    expect(service.threads.waiting).toBe(0);
    control.refuseProgress = false;
    expect((await post(twoInputs("rec_dddddddddddddddddddddddd"))).statusCode).toBe(202);
    await settled();
    expect(service.threads.started).toBe(2);
    expect(failures.at(-1)).toBe("rec_dddddddddddddddddddddddd no_usable_images");
  }, 300_000);

  it("hands a job's control_points and output_crs unchanged to the pipeline thread, whose pipeline input takes them", async () => {
    const { edge, failures } = acceptingEdge();
    service = await createComputeService(loadConfig({ COMPUTE_SECRET: secret, MAX_CONCURRENT_JOBS: "1", PREWARM: "0" }), edge);
    // Record what the job runner posts to the real thread (the thread still runs the job).
    const commands: PipelineThreadCommand[] = [];
    const acquire = service.threads.acquire.bind(service.threads);
    service.threads.acquire = () => {
      const thread = acquire();
      const postMessage = thread.postMessage.bind(thread);
      thread.postMessage = (command: PipelineThreadCommand) => {
        commands.push(command);
        postMessage(command);
      };
      return thread;
    };
    const id = "rec_eeeeeeeeeeeeeeeeeeeeeeee";
    const controlPoints = {
      crs: "EPSG:32632",
      points: [{ name: "p1", role: "check", coordinates: [500000.5, 5000000.25, 301.5], accuracy: { horizontal: 0.02, vertical: 0.04 }, marks: [{ image: "a0.jpg", x: 10.5, y: 20 }, { image: "a1.jpg", x: 11, y: 21 }] }],
    };
    const body = { ...job(id), control_points: controlPoints, output_crs: "EPSG:32632", inputs: [0, 1].map((i) => ({ key: `inputs/${id}/000${i}-a.jpg`, name: `a${i}.jpg`, kind: "jpeg", size: 12 })) };
    expect((await post(body)).statusCode).toBe(202);
    await settled();
    expect(failures).toEqual([`${id} no_usable_images`]);
    expect(commands).toHaveLength(1);
    // pipeline-thread.ts spreads exactly this into runPipeline's input.
    expect(jobOptionsOf(commands[0]!.input.job)).toEqual({ quality: "preview", control_points: controlPoints, output_crs: "EPSG:32632" });
    // A malformed control point is refused at the door, like any message that is not a JobMessage.
    const broken = { ...body, reconstruction_id: "rec_ffffffffffffffffffffffff", control_points: { crs: "EPSG:32632", points: [{ ...controlPoints.points[0], role: "maybe" }] } };
    expect((await post(broken)).statusCode).toBe(400);
  }, 300_000);
});
