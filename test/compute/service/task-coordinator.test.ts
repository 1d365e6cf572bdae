/**
 * The coordinator's side of tasks against an edge played by the test: photos stored once,
 * payloads registered as tasks, progress from the table, results in payload order, and the
 * ways a wait must end (a task failed for good, the job moved to a newer attempt).
 */
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AddTasksRequest, TaskRecord } from "../../../shared/tasks.js";
import type { ImageRef } from "../../../compute/scene/index.js";
import { StoppedByEdge, type EdgeClient, type ReportAnswer } from "../../../compute/service/edge-client.js";
import { decodeDensePayload } from "../../../compute/service/dense-tasks.js";
import { decodeFeaturePayload } from "../../../compute/service/feature-tasks.js";
import { TaskCoordinator } from "../../../compute/service/task-coordinator.js";

const ID = "rec_abcdefghijklmnopqrstuvwx";
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** An edge whose task table the test moves forward one poll at a time. */
function scriptedEdge(dir: string) {
  const uploads = new Map<string, Buffer>();
  const added: AddTasksRequest[] = [];
  const state = {
    tasks: [] as TaskRecord[], polls: 0, currentAttempt: 1, onPoll: (_poll: number, _tasks: TaskRecord[]) => {},
    /** Finished tasks by `key#digest`, with their attempt and result. */
    finished: new Map<string, { attempt: number; result_key: string }>(),
  };
  const yes = async (): Promise<ReportAnswer> => ({ accepted: true });
  const edge: EdgeClient = {
    async uploadObject(key, src) {
      uploads.set(key, await readFile(src));
      return uploads.get(key)!.byteLength;
    },
    async downloadObject(key, dest) {
      const bytes = uploads.get(key);
      if (!bytes) throw new Error(`no object ${key}`);
      await writeFile(dest, bytes);
      return bytes.byteLength;
    },
    start: yes,
    progress: yes,
    complete: yes,
    fail: yes,
    heartbeat: async (_id, attempt) => (attempt === state.currentAttempt ? { accepted: true } : { accepted: false, status: "processing", reason: `attempt ${attempt} is not the current attempt ${state.currentAttempt}` }),
    async addTasks(_id, request) {
      added.push(request);
      // As the edge does after a re-dispatch: a key and digest an earlier attempt finished is done at once.
      state.tasks = request.tasks.map((t) => {
        const earlier = state.finished.get(`${t.key}#${t.content_sha256}`);
        if (earlier) return { key: t.key, kind: t.kind, state: "done", deliveries: 0, progress: 1, result_key: earlier.result_key, error: null, worker: null, reused_from_attempt: earlier.attempt };
        return { key: t.key, kind: t.kind, state: "pending", deliveries: 1, progress: 0, result_key: null, error: null, worker: null, reused_from_attempt: null };
      });
      return { accepted: true, added: state.tasks.length, reused: state.tasks.filter((t) => t.reused_from_attempt !== null).length };
    },
    async listTasks() {
      state.onPoll(++state.polls, state.tasks);
      return state.tasks.map((t) => ({ ...t }));
    },
    leaseTask: async () => ({ granted: false }),
    taskHeartbeat: yes,
    completeTask: yes,
    failTask: yes,
  };
  /** A task finishes: its result is "stored" under its key, as a container would upload it. */
  const finish = (task: TaskRecord, content: string, attempt = 1) => {
    const key = `work/${ID}/a${attempt}/tasks/${task.key}.result`;
    uploads.set(key, Buffer.from(content));
    Object.assign(task, { state: "done", progress: 1, result_key: key });
    const digest = added.at(-1)!.tasks.find((t) => t.key === task.key)!.content_sha256;
    state.finished.set(`${task.key}#${digest}`, { attempt, result_key: key });
  };
  return { edge, uploads, added, state, finish, dir };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "coordinator-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function photo(index: number): Promise<ImageRef> {
  const file = path.join(dir, `p${index}.jpg`);
  await writeFile(file, `photo ${index}`);
  return { index, name: `p${index}.jpg`, path: file, width: 4, height: 3, focalPrior: 4, focalPriorSource: "default" };
}

describe("task coordinator", () => {
  it("stores each photo once, registers the payloads, reports the tasks' mean progress and returns results in payload order", async () => {
    const fake = scriptedEdge(dir);
    const coordinator = new TaskCoordinator({ edge: fake.edge, reconstructionId: ID, attempt: 1, scratchDir: dir, pollMs: 1 });
    const [a, b] = [await photo(0), await photo(1)];
    const first = await coordinator.storePhotos([a, b]);
    const again = await coordinator.storePhotos([b]);
    expect(again).toEqual([first[1]]);
    expect([...fake.uploads.keys()].filter((k) => k.includes("/photos/"))).toEqual([`work/${ID}/a1/photos/00000.jpg`, `work/${ID}/a1/photos/00001.jpg`]);
    // Poll 1: half of one task; poll 2: the second finishes first; poll 3: both done.
    fake.state.onPoll = (poll, tasks) => {
      if (poll === 1) tasks[0].progress = 0.5;
      if (poll === 2) fake.finish(tasks[1], "second");
      if (poll === 3) fake.finish(tasks[0], "first");
    };
    const seen: number[] = [];
    const results = await coordinator.run("dense-cluster", [{ key: "dense-0000", payload: "{}" }, { key: "dense-0001", payload: "{}" }], (f) => seen.push(f));
    expect(results.map((r) => Buffer.from(r).toString())).toEqual(["first", "second"]);
    expect(seen).toEqual([0.25, 0.75, 1]);
    const digest = expect.stringMatching(/^[0-9a-f]{64}$/);
    expect(fake.added).toEqual([{ attempt: 1, tasks: [
      { key: "dense-0000", kind: "dense-cluster", payload_key: `work/${ID}/a1/tasks/dense-0000.json`, content_sha256: digest },
      { key: "dense-0001", kind: "dense-cluster", payload_key: `work/${ID}/a1/tasks/dense-0001.json`, content_sha256: digest },
    ] }]);
    expect(first.map((p) => p.sha256)).toEqual([sha256("photo 0"), sha256("photo 1")]);
  });

  it("after a re-dispatch, gives the same tasks the same digests and reads the results an earlier attempt finished", async () => {
    const fake = scriptedEdge(dir);
    const images = [await photo(0), await photo(1)];
    const payloadsOf = async (coordinator: TaskCoordinator) => {
      const photos = await coordinator.storePhotos(images);
      return photos.map((p, i) => ({ key: `dense-000${i}`, payload: JSON.stringify({ cluster: i, photos: [p] }) }));
    };
    const first = new TaskCoordinator({ edge: fake.edge, reconstructionId: ID, attempt: 1, scratchDir: dir, pollMs: 1 });
    // Attempt 1 finishes dense-0000, then its coordinator is given up (the watchdog moved on).
    fake.state.onPoll = (poll, tasks) => {
      if (poll === 1) fake.finish(tasks[0], "cluster 0");
      if (poll === 2) fake.state.currentAttempt = 2;
    };
    await expect(first.run("dense-cluster", await payloadsOf(first), () => {})).rejects.toBeInstanceOf(StoppedByEdge);

    const second = new TaskCoordinator({ edge: fake.edge, reconstructionId: ID, attempt: 2, scratchDir: dir, pollMs: 1 });
    const payloads = await payloadsOf(second);
    fake.state.onPoll = (_poll, tasks) => {
      expect(tasks[0]).toMatchObject({ state: "done", reused_from_attempt: 1 });
      if (tasks[1].state !== "done") fake.finish(tasks[1], "cluster 1", 2);
    };
    const results = await second.run("dense-cluster", payloads, () => {});
    expect(results.map((r) => Buffer.from(r).toString())).toEqual(["cluster 0", "cluster 1"]);
    // The payloads name attempt 2's photos, yet the digests are attempt 1's.
    expect(String(payloads[0].payload)).toContain(`work/${ID}/a2/photos/`);
    expect(fake.added[1].tasks.map((t) => t.content_sha256)).toEqual(fake.added[0].tasks.map((t) => t.content_sha256));
  });

  it("ends the wait with the task's error when a task failed on every delivery", async () => {
    const fake = scriptedEdge(dir);
    const coordinator = new TaskCoordinator({ edge: fake.edge, reconstructionId: ID, attempt: 1, scratchDir: dir, pollMs: 1 });
    fake.state.onPoll = (poll, tasks) => {
      if (poll === 2) Object.assign(tasks[0], { state: "failed", deliveries: 3, error: { code: "task_lost", message: "no sign of life" } });
    };
    await expect(coordinator.run("features-batch", [{ key: "features-0000", payload: "{}" }], () => {})).rejects.toThrow(/features-0000 failed after 3 deliveries: task_lost/);
  });

  it("stops waiting once the job runs as a newer attempt (its tasks would never finish)", async () => {
    const fake = scriptedEdge(dir);
    const coordinator = new TaskCoordinator({ edge: fake.edge, reconstructionId: ID, attempt: 1, scratchDir: dir, pollMs: 1 });
    fake.state.onPoll = (poll) => {
      if (poll === 3) fake.state.currentAttempt = 2;
    };
    const wait = coordinator.run("dense-cluster", [{ key: "dense-0000", payload: "{}" }], () => {});
    await expect(wait).rejects.toBeInstanceOf(StoppedByEdge);
    await expect(wait).rejects.toThrow(/not the current attempt 2/);
    expect(fake.state.polls).toBe(3);
  });
});

describe("task payloads", () => {
  const view = { viewIndex: 0, name: "a.jpg", imageIndex: 3, intrinsics: { width: 4, height: 3, focal: 4, cx: 2, cy: 1.5, k1: 0, k2: 0 }, R: [1, 0, 0, 0, 1, 0, 0, 0, 1], t: [0, 0, 0], sources: [], range: null, home: 0 };
  const job = { cluster: 0, core: [0], extras: [], views: [view], options: {} };
  const photos = [{ imageIndex: 3, key: `work/${ID}/a1/photos/00003.jpg`, extension: ".jpg", sha256: sha256("photo 3") }];

  it("a dense payload is read back only when its job and photos are whole", () => {
    expect(decodeDensePayload(JSON.stringify({ job, photos })).job.views[0].imageIndex).toBe(3);
    expect(() => decodeDensePayload(JSON.stringify({ job: { ...job, views: [{ ...view, R: [1, 0, 0] }] }, photos }))).toThrow(/not a cluster job/);
    expect(() => decodeDensePayload(JSON.stringify({ job, photos: [] }))).toThrow(/no photo for view a.jpg/);
    expect(() => decodeDensePayload(JSON.stringify({ photos }))).toThrow(/not a cluster job/);
  });

  it("a features payload is read back only when every image has its photo", () => {
    const image = { index: 3, name: "a.jpg", width: 4, height: 3, focalPrior: 4, focalPriorSource: "default" };
    expect(decodeFeaturePayload(JSON.stringify({ images: [image], photos, options: {} })).images).toHaveLength(1);
    expect(() => decodeFeaturePayload(JSON.stringify({ images: [{ ...image, index: 4 }], photos, options: {} }))).toThrow(/no photo for a.jpg/);
    expect(() => decodeFeaturePayload(JSON.stringify({ images: [image], photos }))).toThrow(/malformed/);
  });
});
