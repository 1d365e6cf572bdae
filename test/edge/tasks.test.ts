/**
 * The task table of a ReconstructionObject (edge/objects/reconstruction-task-board.ts) driven
 * through its RPC methods and its alarm; the messages it sends are recorded, not queued.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { workKey } from "../../shared/storage-keys.js";
import type { TaskMessage } from "../../shared/tasks.js";
import { env } from "./helpers.js";
import { createReconstruction, reconstructionStub } from "./reconstruction-support.js";
import { alarmAt, denseSpecs, fireAlarm, jobDeadline, processingReconstruction, recordTaskSends, setLeaseUntil } from "./task-support.js";

const worker = (name: string) => ({ attempt: 1, worker: name });
const deliveriesOf = (messages: TaskMessage[], key: string) => messages.filter((m) => m.key === key).map((m) => m.delivery);

describe("adding tasks", () => {
  it("inserts each key once, sends one TaskMessage per new task, and lists them by key", async () => {
    const { id } = await processingReconstruction();
    const sent = await recordTaskSends(id);
    const stub = reconstructionStub(id);
    expect(await stub.addTasks({ attempt: 1, tasks: denseSpecs(id, 2) })).toEqual({ accepted: true, added: 2, reused: 0 });
    // A repeated registration (the coordinator retried) adds only the new key.
    expect(await stub.addTasks({ attempt: 1, tasks: denseSpecs(id, 3) })).toEqual({ accepted: true, added: 1, reused: 0 });
    expect(sent.messages).toEqual(["dense-000", "dense-001", "dense-002"].map((key) => ({ version: 1, reconstruction_id: id, attempt: 1, key, kind: "dense-cluster", delivery: 1 })));
    const tasks = await stub.tasks(1);
    expect(tasks.map((t) => t.key)).toEqual(["dense-000", "dense-001", "dense-002"]);
    expect(tasks[0]).toEqual({ key: "dense-000", kind: "dense-cluster", state: "pending", deliveries: 1, progress: 0, result_key: null, error: null, worker: null, reused_from_attempt: null });
    expect(await stub.tasks(2)).toEqual([]);
  });

  it("sends in batches of at most 100 messages", async () => {
    const { id } = await processingReconstruction();
    const sent = await recordTaskSends(id);
    expect(await reconstructionStub(id).addTasks({ attempt: 1, tasks: denseSpecs(id, 250) })).toEqual({ accepted: true, added: 250, reused: 0 });
    expect(sent.batchSizes).toEqual([100, 100, 50]);
    expect(new Set(sent.messages.map((m) => m.key)).size).toBe(250);
  });

  it("starts a pending job, and refuses a stale attempt, a finished job, foreign payloads and repeated keys", async () => {
    const { account, id } = await createReconstruction();
    await recordTaskSends(id);
    const stub = reconstructionStub(id);
    expect(await stub.addTasks({ attempt: 2, tasks: denseSpecs(id, 1, 2) })).toMatchObject({ accepted: false, added: 0, reason: expect.stringMatching(/not the current attempt/) });
    expect(await stub.addTasks({ attempt: 1, tasks: [{ ...denseSpecs(id, 1)[0]!, payload_key: workKey(id, 2, "x.bin") }] })).toMatchObject({ accepted: false, reason: expect.stringMatching(/payload_key/) });
    expect(await stub.addTasks({ attempt: 1, tasks: [...denseSpecs(id, 1), ...denseSpecs(id, 1)] })).toMatchObject({ accepted: false, reason: expect.stringMatching(/twice/) });
    expect(await stub.addTasks({ attempt: 1, tasks: [] })).toMatchObject({ accepted: false, reason: expect.stringMatching(/^invalid report/) });
    expect(await stub.tasks(1)).toEqual([]);
    expect(await stub.addTasks({ attempt: 1, tasks: denseSpecs(id, 1) })).toMatchObject({ accepted: true, added: 1 });
    expect(await stub.status(account.accountId)).toMatchObject({ status: "processing" });
    await stub.cancel(account.accountId);
    expect(await stub.addTasks({ attempt: 1, tasks: denseSpecs(id, 2) })).toMatchObject({ accepted: false, reason: "already failed" });
  });

  it("stores nothing for an unknown reconstruction", async () => {
    const stub = reconstructionStub("rec_neverCreatedTasks12345678");
    expect(await stub.addTasks({ attempt: 1, tasks: [{ key: "dense-000", kind: "dense-cluster", payload_key: "work/rec_neverCreatedTasks12345678/a1/p" }] })).toMatchObject({ accepted: false, reason: "unknown reconstruction" });
    expect(await stub.tasks(1)).toEqual([]);
    const tables = await runInDurableObject(stub, (_i, state) => state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\'").toArray());
    expect(tables).toEqual([]);
  });

  it("does not lose a task when the queue send fails: the alarm sends it again a lease length later", async () => {
    const { id } = await processingReconstruction();
    const sent = await recordTaskSends(id);
    sent.failures = 1;
    const before = Date.now();
    expect(await reconstructionStub(id).addTasks({ attempt: 1, tasks: denseSpecs(id, 1) })).toEqual({ accepted: true, added: 1, reused: 0 });
    expect(sent.messages).toEqual([]);
    const wake = await alarmAt(id);
    expect(wake).toBeGreaterThanOrEqual(before + 60_000);
    expect(wake).toBeLessThan((await jobDeadline(id)) - 60_000);
    await fireAlarm(id);
    expect(sent.messages).toMatchObject([{ key: "dense-000", delivery: 1 }]);
    expect(await reconstructionStub(id).tasks(1)).toMatchObject([{ state: "pending", deliveries: 1 }]);
  });
});

describe("leases", () => {
  it("grants a pending task once, refuses a second lease while held, and accepts the holder's heartbeats and completion", async () => {
    const { id } = await processingReconstruction();
    await recordTaskSends(id);
    const stub = reconstructionStub(id);
    await stub.addTasks({ attempt: 1, tasks: denseSpecs(id, 2) });
    const lease = await stub.leaseTask("dense-001", worker("compute-a"));
    expect(lease).toMatchObject({ granted: true, payload_key: workKey(id, 1, "dense-001/payload.bin"), delivery: 1, lease_seconds: 60 });
    expect(lease.lease_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await stub.leaseTask("dense-001", worker("compute-b"))).toMatchObject({ granted: false, reason: expect.stringMatching(/^held by compute-a until /) });
    expect(await stub.leaseTask("dense-404", worker("compute-b"))).toMatchObject({ granted: false, reason: "unknown task dense-404" });

    expect(await stub.taskHeartbeat("dense-001", { attempt: 1, lease_id: lease.lease_id!, progress: 0.5 })).toEqual({ accepted: true });
    expect(await stub.taskHeartbeat("dense-001", { attempt: 1, lease_id: lease.lease_id!, progress: 0.25 })).toEqual({ accepted: true });
    expect(await stub.taskHeartbeat("dense-001", { attempt: 1, lease_id: "not-the-lease", progress: 0.9 })).toMatchObject({ accepted: false });
    expect((await stub.tasks(1))[1]).toMatchObject({ state: "running", progress: 0.5, worker: "compute-a" });

    const result = workKey(id, 1, "dense-001/result.bin");
    expect(await stub.completeTask("dense-001", { attempt: 1, lease_id: lease.lease_id!, result_key: result })).toEqual({ accepted: true });
    // A repeat by the same holder with the same result is harmless; another result is not.
    expect(await stub.completeTask("dense-001", { attempt: 1, lease_id: lease.lease_id!, result_key: result })).toMatchObject({ accepted: true });
    expect(await stub.completeTask("dense-001", { attempt: 1, lease_id: lease.lease_id!, result_key: workKey(id, 1, "other.bin") })).toMatchObject({ accepted: false });
    expect(await stub.leaseTask("dense-001", worker("compute-b"))).toMatchObject({ granted: false, reason: "already done" });
    expect(await stub.taskHeartbeat("dense-001", { attempt: 1, lease_id: lease.lease_id!, progress: 1 })).toMatchObject({ accepted: false });
    expect(await stub.tasks(1)).toMatchObject([
      { key: "dense-000", state: "pending" },
      { key: "dense-001", state: "done", progress: 1, result_key: result, deliveries: 1, error: null },
    ]);
  });

  it("refuses a result outside the attempt's work prefix", async () => {
    const { id } = await processingReconstruction();
    await recordTaskSends(id);
    const stub = reconstructionStub(id);
    await stub.addTasks({ attempt: 1, tasks: denseSpecs(id, 1) });
    const lease = await stub.leaseTask("dense-000", worker("compute-a"));
    for (const result_key of [workKey(id, 2, "r.bin"), `work/${id}/a1/../r.bin`, `outputs/${id}/model.glb`]) {
      expect(await stub.completeTask("dense-000", { attempt: 1, lease_id: lease.lease_id!, result_key })).toMatchObject({ accepted: false });
    }
    expect(await stub.tasks(1)).toMatchObject([{ state: "running" }]);
  });

  it("sends a task again with delivery 2 when its lease runs out, leaves the others alone, and refuses the lost holder", async () => {
    const { account, id } = await processingReconstruction();
    const sent = await recordTaskSends(id);
    const stub = reconstructionStub(id);
    await stub.addTasks({ attempt: 1, tasks: denseSpecs(id, 2) });
    const lost = await stub.leaseTask("dense-000", worker("compute-a"));
    const alive = await stub.leaseTask("dense-001", worker("compute-b"));
    const leaseEnd = await alarmAt(id);
    expect(leaseEnd).toBeLessThan(await jobDeadline(id)); // the alarm wakes for the lease, not the job
    await stub.taskHeartbeat("dense-001", { attempt: 1, lease_id: alive.lease_id!, progress: 0.1 });

    // compute-a's container died: its lease runs out first (compute-b heartbeated later).
    expect(await fireAlarm(id)).toBe(leaseEnd);
    expect(deliveriesOf(sent.messages, "dense-000")).toEqual([1, 2]);
    expect(deliveriesOf(sent.messages, "dense-001")).toEqual([1]);
    expect(await stub.tasks(1)).toMatchObject([
      { key: "dense-000", state: "pending", deliveries: 2, worker: null, progress: 0 },
      { key: "dense-001", state: "running", deliveries: 1, worker: "compute-b" },
    ]);
    // The job itself was not touched.
    expect(await stub.status(account.accountId)).toMatchObject({ status: "processing" });
    expect((await stub.history()).map((h) => h.attempt)).toEqual([1, 1]);

    expect(await stub.taskWanted({ version: 1, reconstruction_id: id, attempt: 1, key: "dense-000", kind: "dense-cluster", delivery: 1 })).toBe(false);
    expect(await stub.taskWanted({ version: 1, reconstruction_id: id, attempt: 1, key: "dense-000", kind: "dense-cluster", delivery: 2 })).toBe(true);
    const retaken = await stub.leaseTask("dense-000", worker("compute-c"));
    expect(retaken).toMatchObject({ granted: true, delivery: 2 });
    expect(retaken.lease_id).not.toBe(lost.lease_id);
    // The lost container comes back: its heartbeat and its completion are refused.
    expect(await stub.taskHeartbeat("dense-000", { attempt: 1, lease_id: lost.lease_id!, progress: 0.9 })).toMatchObject({ accepted: false });
    expect(await stub.completeTask("dense-000", { attempt: 1, lease_id: lost.lease_id!, result_key: workKey(id, 1, "dense-000/a.bin") })).toMatchObject({ accepted: false, reason: expect.stringMatching(/not the task's current lease/) });
    expect(await stub.completeTask("dense-000", { attempt: 1, lease_id: retaken.lease_id!, result_key: workKey(id, 1, "dense-000/c.bin") })).toEqual({ accepted: true });
    expect((await stub.tasks(1))[0]).toMatchObject({ state: "done", worker: "compute-c", result_key: workKey(id, 1, "dense-000/c.bin"), deliveries: 2 });
  });

  it("lets another container take over a lease that ran out before the alarm reclaimed it, as a new delivery", async () => {
    const { id } = await processingReconstruction();
    await recordTaskSends(id);
    const stub = reconstructionStub(id);
    await stub.addTasks({ attempt: 1, tasks: denseSpecs(id, 1) });
    const first = await stub.leaseTask("dense-000", worker("compute-a"));
    await setLeaseUntil(id, "dense-000", Date.now() - 1);
    const second = await stub.leaseTask("dense-000", worker("compute-b"));
    expect(second).toMatchObject({ granted: true, delivery: 2 });
    expect(await stub.completeTask("dense-000", { attempt: 1, lease_id: first.lease_id!, result_key: workKey(id, 1, "r.bin") })).toMatchObject({ accepted: false });
  });

  it("fails a task with task_lost once its last delivery's lease runs out", async () => {
    const { account, id } = await processingReconstruction();
    const sent = await recordTaskSends(id);
    const stub = reconstructionStub(id);
    await stub.addTasks({ attempt: 1, tasks: denseSpecs(id, 1) });
    for (let delivery = 1; delivery <= 3; delivery++) {
      expect(await stub.leaseTask("dense-000", worker(`compute-${delivery}`))).toMatchObject({ granted: true, delivery });
      await fireAlarm(id);
    }
    expect(deliveriesOf(sent.messages, "dense-000")).toEqual([1, 2, 3]);
    const [task] = await stub.tasks(1);
    expect(task).toMatchObject({ state: "failed", deliveries: 3, worker: "compute-3", error: { code: "task_lost" } });
    expect(task!.error!.message).toMatch(/no sign of life from its container on 3 deliveries/);
    expect(await stub.leaseTask("dense-000", worker("compute-4"))).toMatchObject({ granted: false, reason: "already failed" });
    // The task failed; the job did not (its coordinator decides) and the alarm is back on the job's deadline.
    expect(await stub.status(account.accountId)).toMatchObject({ status: "processing" });
    expect(await alarmAt(id)).toBe(await jobDeadline(id));
  });

  it("sends a retryable failure again until the deliveries are used, then fails the task with its code", async () => {
    const { id } = await processingReconstruction();
    const sent = await recordTaskSends(id);
    const stub = reconstructionStub(id);
    await stub.addTasks({ attempt: 1, tasks: denseSpecs(id, 2) });
    for (let delivery = 1; delivery <= 3; delivery++) {
      const lease = await stub.leaseTask("dense-000", worker("compute-a"));
      expect(lease).toMatchObject({ granted: true, delivery });
      const failure = { attempt: 1, lease_id: lease.lease_id!, code: "out_of_memory", message: `try ${delivery}`, retryable: true };
      expect(await stub.failTask("dense-000", failure)).toMatchObject({ accepted: true });
      expect(await stub.failTask("dense-000", failure)).toMatchObject({ accepted: false }); // that lease is void now
    }
    expect(deliveriesOf(sent.messages, "dense-000")).toEqual([1, 2, 3]);
    expect((await stub.tasks(1))[0]).toMatchObject({ state: "failed", deliveries: 3, error: { code: "out_of_memory", message: "try 3" } });

    // A failure that is not retryable ends the task at once.
    const lease = await stub.leaseTask("dense-001", worker("compute-b"));
    expect(await stub.failTask("dense-001", { attempt: 1, lease_id: lease.lease_id!, code: "bad_payload", message: "unreadable", retryable: false })).toMatchObject({ accepted: true });
    expect((await stub.tasks(1))[1]).toMatchObject({ state: "failed", deliveries: 1, error: { code: "bad_payload" } });
    expect(deliveriesOf(sent.messages, "dense-001")).toEqual([1]);
  });

  it("abandons only the current delivery of a task that waits for a container", async () => {
    const { id } = await processingReconstruction();
    await recordTaskSends(id);
    const stub = reconstructionStub(id);
    await stub.addTasks({ attempt: 1, tasks: denseSpecs(id, 2) });
    const message = (key: string, delivery: number): TaskMessage => ({ version: 1, reconstruction_id: id, attempt: 1, key, kind: "dense-cluster", delivery });
    expect(await stub.abandonTask(message("dense-000", 2), "gave up")).toMatchObject({ accepted: false });
    await stub.leaseTask("dense-001", worker("compute-a"));
    expect(await stub.abandonTask(message("dense-001", 1), "gave up")).toMatchObject({ accepted: false }); // a duplicate reached a container
    expect(await stub.abandonTask(message("dense-000", 1), "no compute accepted it")).toEqual({ accepted: true });
    expect(await stub.tasks(1)).toMatchObject([
      { key: "dense-000", state: "failed", error: { code: "dispatch_failed", message: "no compute accepted it" } },
      { key: "dense-001", state: "running" },
    ]);
    expect(await stub.taskWanted(message("dense-000", 1))).toBe(false);
  });
});

describe("tasks and the job", () => {
  it("refuses a stale attempt's leases, deliveries and registrations once the watchdog re-dispatched, and fires at the job's own deadline", async () => {
    const { account, id } = await processingReconstruction();
    const sent = await recordTaskSends(id);
    const stub = reconstructionStub(id);
    await stub.addTasks({ attempt: 1, tasks: denseSpecs(id, 1) });
    const deadline = await jobDeadline(id);
    // Nobody takes the task: the alarm wakes every lease length to send it again, and leaves the job alone until its deadline.
    const wakes: number[] = [];
    while ((await stub.history()).length === 2) {
      wakes.push(await fireAlarm(id));
      if (wakes.length > 20) throw new Error("the job watchdog never fired");
    }
    expect(wakes.at(-1)).toBe(deadline);
    expect(wakes.slice(0, -1).every((at) => at < deadline)).toBe(true);
    expect(wakes.length).toBeGreaterThanOrEqual(10); // 600 s of job deadline, 60 s leases
    // The first send and a re-send per wake: the same delivery each time, never a new one.
    expect(sent.messages.length).toBeGreaterThanOrEqual(wakes.length);
    expect(new Set(sent.messages.map((m) => `${m.key}#${m.delivery}`))).toEqual(new Set(["dense-000#1"]));
    expect(await stub.tasks(1)).toMatchObject([{ state: "pending", deliveries: 1 }]);
    expect((await stub.history()).map((h) => h.attempt)).toEqual([1, 1, 2]);

    const stale = { attempt: 1, worker: "compute-a" };
    expect(await stub.leaseTask("dense-000", stale)).toMatchObject({ granted: false, reason: "attempt 1 is not the current attempt 2" });
    expect(await stub.taskWanted({ version: 1, reconstruction_id: id, attempt: 1, key: "dense-000", kind: "dense-cluster", delivery: 1 })).toBe(false);
    expect(await stub.addTasks({ attempt: 1, tasks: denseSpecs(id, 1, 1, 5) })).toMatchObject({ accepted: false });
    expect(await stub.addTasks({ attempt: 2, tasks: denseSpecs(id, 1, 2) })).toMatchObject({ accepted: true, added: 1 });
    expect((await stub.tasks(2)).map((t) => t.key)).toEqual(["dense-000"]);
    expect(await stub.status(account.accountId)).toMatchObject({ status: "processing" });
  });

  it("after a re-dispatch, gives a task the result an earlier attempt finished with the same content digest, and runs the others", async () => {
    const { id } = await processingReconstruction();
    const sent = await recordTaskSends(id);
    const stub = reconstructionStub(id);
    const digest = (c: string) => c.repeat(64);
    const withDigests = (attempt: number, digests: Array<string | undefined>) =>
      denseSpecs(id, digests.length, attempt).map((spec, i) => (digests[i] === undefined ? spec : { ...spec, content_sha256: digests[i] }));
    // Attempt 1: dense-000 and dense-002 finish, dense-001 fails for good, dense-003 is still running when its coordinator dies.
    expect(await stub.addTasks({ attempt: 1, tasks: withDigests(1, [digest("a"), digest("b"), digest("c"), digest("d"), undefined]) })).toEqual({ accepted: true, added: 5, reused: 0 });
    for (const key of ["dense-000", "dense-001", "dense-002", "dense-003", "dense-004"]) {
      const lease = await stub.leaseTask(key, worker("compute-a"));
      if (key === "dense-001") await stub.failTask(key, { attempt: 1, lease_id: lease.lease_id!, code: "bad_input", message: "no", retryable: false });
      if (key === "dense-000" || key === "dense-002" || key === "dense-004") {
        await stub.completeTask(key, { attempt: 1, lease_id: lease.lease_id!, result_key: workKey(id, 1, `tasks/${key}.result`) });
      }
    }
    while ((await stub.history()).at(-1)!.attempt === 1) await fireAlarm(id);
    sent.messages.length = 0;

    // Attempt 2 registers the same keys: dense-002's inputs changed (another digest), dense-004 carried none.
    const outcome = await stub.addTasks({ attempt: 2, tasks: withDigests(2, [digest("a"), digest("b"), digest("e"), digest("d"), undefined]) });
    expect(outcome).toEqual({ accepted: true, added: 5, reused: 1 });
    const tasks = await stub.tasks(2);
    expect(tasks[0]).toEqual({ key: "dense-000", kind: "dense-cluster", state: "done", deliveries: 0, progress: 1, result_key: workKey(id, 1, "tasks/dense-000.result"), error: null, worker: null, reused_from_attempt: 1 });
    expect(tasks.slice(1).map((t) => [t.key, t.state, t.reused_from_attempt])).toEqual([
      ["dense-001", "pending", null], ["dense-002", "pending", null], ["dense-003", "pending", null], ["dense-004", "pending", null],
    ]);
    expect(sent.messages.map((m) => `${m.key}@${m.attempt}`)).toEqual(["dense-001@2", "dense-002@2", "dense-003@2", "dense-004@2"]);
    // A reused task is done: no container may take it.
    expect(await stub.leaseTask("dense-000", { attempt: 2, worker: "compute-b" })).toMatchObject({ granted: false, reason: "already done" });
    // Attempt 3 finds attempt 1's result still (through attempt 2's reuse, the latest attempt that has it done).
    while ((await stub.history()).at(-1)!.attempt === 2) await fireAlarm(id);
    expect(await stub.addTasks({ attempt: 3, tasks: withDigests(3, [digest("a")]) })).toEqual({ accepted: true, added: 1, reused: 1 });
    expect(await stub.tasks(3)).toMatchObject([{ key: "dense-000", state: "done", result_key: workKey(id, 1, "tasks/dense-000.result"), reused_from_attempt: 2 }]);
  });

  it("records a task that an earlier attempt's container finishes after the re-dispatch, and gives its result to the current attempt", async () => {
    const { id } = await processingReconstruction();
    const sent = await recordTaskSends(id);
    const stub = reconstructionStub(id);
    const specs = (attempt: number) => denseSpecs(id, 3, attempt).map((spec, i) => ({ ...spec, content_sha256: String(i).repeat(64) }));
    await stub.addTasks({ attempt: 1, tasks: specs(1) });
    const leases = await Promise.all(["dense-000", "dense-001", "dense-002"].map((key) => stub.leaseTask(key, worker(`compute-${key}`))));
    // Their containers heartbeat (held here by leases that outlast the job's deadline); the coordinator does not.
    for (const key of ["dense-000", "dense-001", "dense-002"]) await setLeaseUntil(id, key, Date.now() + 36_000_000);
    while ((await stub.history()).at(-1)!.attempt === 1) await fireAlarm(id);
    // Attempt 1's containers are still at work: their heartbeats are taken, their leases not renewed by anyone else.
    expect(await stub.taskHeartbeat("dense-000", { attempt: 1, lease_id: leases[0].lease_id!, progress: 0.5 })).toEqual({ accepted: true });
    expect(await stub.leaseTask("dense-000", worker("compute-late"))).toMatchObject({ granted: false, reason: "attempt 1 is not the current attempt 2" });
    // The new coordinator registers dense-000 and dense-001; a container takes dense-001.
    await stub.addTasks({ attempt: 2, tasks: specs(2).slice(0, 2) });
    const runningAgain = await stub.leaseTask("dense-001", { attempt: 2, worker: "compute-new" });
    expect(runningAgain.granted).toBe(true);
    // Attempt 1's containers finish all three.
    for (const [i, key] of ["dense-000", "dense-001", "dense-002"].entries()) {
      expect(await stub.completeTask(key, { attempt: 1, lease_id: leases[i].lease_id!, result_key: workKey(id, 1, `tasks/${key}.result`) })).toEqual({ accepted: true });
    }
    const resultOf = (key: string) => workKey(id, 1, `tasks/${key}.result`);
    expect(await stub.tasks(2)).toMatchObject([
      { key: "dense-000", state: "done", result_key: resultOf("dense-000"), reused_from_attempt: 1 },
      { key: "dense-001", state: "done", result_key: resultOf("dense-001"), reused_from_attempt: 1 },
    ]);
    // The container of attempt 2 that was running dense-001 is told to stop; dense-002, registered now, is done at once.
    expect(await stub.taskHeartbeat("dense-001", { attempt: 2, lease_id: runningAgain.lease_id!, progress: 0.1 })).toMatchObject({ accepted: false, reason: "the task is done" });
    expect(await stub.addTasks({ attempt: 2, tasks: specs(2) })).toEqual({ accepted: true, added: 1, reused: 1 });
    expect((await stub.tasks(2)).map((t) => [t.key, t.state])).toEqual([["dense-000", "done"], ["dense-001", "done"], ["dense-002", "done"]]);
    // Failures of an earlier attempt are still refused: they would send the task again for a stale attempt.
    expect(await stub.failTask("dense-000", { attempt: 1, lease_id: leases[0].lease_id!, code: "x", message: "y", retryable: true })).toMatchObject({ accepted: false });
    expect(sent.messages.filter((m) => m.attempt === 2).map((m) => m.key)).toEqual(["dense-000", "dense-001"]);
  });

  it("stops caring about tasks when the job ends, and deletes its work objects once", async () => {
    const { id } = await processingReconstruction();
    await recordTaskSends(id);
    const stub = reconstructionStub(id);
    await stub.addTasks({ attempt: 1, tasks: denseSpecs(id, 1) });
    const lease = await stub.leaseTask("dense-000", worker("compute-a"));
    await env.BUCKET.put(workKey(id, 1, "dense-000/payload.bin"), new Uint8Array(8));
    await env.BUCKET.put(workKey(id, 1, "dense-000/result.bin"), new Uint8Array(8));
    await env.BUCKET.put(`outputs/${id}/model.glb`, new Uint8Array(16));
    expect(await stub.complete({ attempt: 1, formats: [{ format: "glb", file_size: 16 }] })).toMatchObject({ accepted: true, status: "completed" });
    expect((await env.BUCKET.list({ prefix: `work/${id}/` })).objects).toEqual([]);
    expect(await alarmAt(id)).toBeNull();
    expect(await stub.completeTask("dense-000", { attempt: 1, lease_id: lease.lease_id!, result_key: workKey(id, 1, "dense-000/result.bin") })).toMatchObject({ accepted: false, reason: "the reconstruction is already completed" });
    expect(await stub.taskWanted({ version: 1, reconstruction_id: id, attempt: 1, key: "dense-000", kind: "dense-cluster", delivery: 1 })).toBe(false);
  });
});
