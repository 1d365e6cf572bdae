/**
 * Edge → compute for tasks and for several compute processes: COMPUTE_URL as a list tried in
 * turn (edge/compute/targets.ts), the task queue's consumer and dead-letter consumer
 * (edge/compute/task-queue.ts). Compute is a stubbed `fetch`; the ReconstructionObject is real.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { dispatchJob, tryInTurn, type DispatchOutcome } from "../../edge/compute/targets.js";
import { dispatchTask, handleTaskBatch, handleTaskDeadLetters } from "../../edge/compute/task-queue.js";
import { ConfigSchema, type Env } from "../../edge/env.js";
import worker from "../../edge/index.js";
import type { JobMessage } from "../../shared/jobs.js";
import type { TaskMessage } from "../../shared/tasks.js";
import { env } from "./helpers.js";
import { reconstructionStub } from "./reconstruction-support.js";
import { alarmAt, denseSpecs, fireAlarm, processingReconstruction, recordTaskSends } from "./task-support.js";

const A = "http://compute-a.test";
const B = "http://compute-b.test";

interface ComputeCall {
  url: string;
  authorization: string | null;
  body: unknown;
}

/**
 * Stubs `fetch` for the test hosts: each answers with its status (and Retry-After). Other URLs
 * (the real job queue's consumer, running in the background) go to the real fetch.
 */
function stubCompute(answers: Record<string, { status: number; retryAfter?: string } | "down">): ComputeCall[] {
  const calls: ComputeCall[] = [];
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const host = Object.keys(answers).find((base) => request.url.startsWith(base));
    if (!host) return realFetch(input, init);
    calls.push({ url: request.url, authorization: request.headers.get("authorization"), body: await request.json() });
    const answer = answers[host]!;
    if (answer === "down") throw new TypeError("connection refused (test)");
    return new Response("{}", { status: answer.status, headers: answer.retryAfter ? { "retry-after": answer.retryAfter } : {} });
  });
  return calls;
}

const withUrls = (urls: string): Env => ({ ...env, COMPUTE_URL: urls }) as Env;

function taskFor(id: string, key = "dense-000", delivery = 1): TaskMessage {
  return { version: 1, reconstruction_id: id, attempt: 1, key, kind: "dense-cluster", delivery };
}

async function deliverTo(handler: (batch: MessageBatch<unknown>, env: Env) => Promise<void>, queue: string, body: unknown, target: Env = env) {
  const batch = createMessageBatch(queue, [{ id: "msg-1", timestamp: new Date(), attempts: 1, body }]);
  const ctx = createExecutionContext();
  await handler(batch as MessageBatch<unknown>, target);
  return getQueueResult(batch, ctx);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("COMPUTE_URL", () => {
  it("is one URL or a comma-separated list, each a URL; blank is unset", () => {
    const secrets = { ADMIN_TOKEN: "admin-token", SIGNING_SECRET: "signing-secret-0123456789", COMPUTE_SECRET: "compute-secret" };
    expect(ConfigSchema.parse({ ...secrets, COMPUTE_URL: "http://127.0.0.1:8788" }).COMPUTE_URL).toEqual(["http://127.0.0.1:8788"]);
    expect(ConfigSchema.parse({ ...secrets, COMPUTE_URL: "http://127.0.0.1:8788/, http://127.0.0.1:8789" }).COMPUTE_URL).toEqual(["http://127.0.0.1:8788", "http://127.0.0.1:8789"]);
    expect(ConfigSchema.parse({ ...secrets, COMPUTE_URL: " " }).COMPUTE_URL).toBeUndefined();
    expect(ConfigSchema.parse(secrets).COMPUTE_URL).toBeUndefined();
    expect(() => ConfigSchema.parse({ ...secrets, COMPUTE_URL: "http://127.0.0.1:8788,not a url" })).toThrow();
  });
});

describe("trying compute targets in turn", () => {
  const answers: Record<string, DispatchOutcome> = {
    busy7: { kind: "busy", retryAfterSeconds: 7 },
    busy3: { kind: "busy", retryAfterSeconds: 3 },
    down: { kind: "error", message: "down" },
    broken: { kind: "error", message: "HTTP 500" },
    ok: { kind: "accepted" },
  };
  async function run(targets: string[], start: number) {
    const tried: string[] = [];
    const outcome = await tryInTurn(targets, start, async (target) => {
      tried.push(target);
      return answers[target]!;
    });
    return { outcome, tried };
  }

  it("goes round the list from the start index and stops at the first acceptance", async () => {
    expect(await run(["busy7", "ok", "down"], 0)).toEqual({ outcome: { kind: "accepted" }, tried: ["busy7", "ok"] });
    expect(await run(["busy7", "ok", "down"], 2)).toEqual({ outcome: { kind: "accepted" }, tried: ["down", "busy7", "ok"] });
    expect(await run(["busy7", "ok", "down"], 1)).toEqual({ outcome: { kind: "accepted" }, tried: ["ok"] });
  });

  it("is busy with the soonest Retry-After when none accepts and one is busy, else an error naming them all", async () => {
    expect((await run(["busy7", "down", "busy3"], 0)).outcome).toEqual({ kind: "busy", retryAfterSeconds: 3 });
    expect((await run(["down", "broken"], 1)).outcome).toEqual({ kind: "error", message: "HTTP 500; down" });
  });
});

describe("dispatching over several compute URLs", () => {
  it("falls through a busy first URL to the second, starting at a random one", async () => {
    const calls = stubCompute({ [A]: { status: 503, retryAfter: "5" }, [B]: { status: 202 } });
    const { id } = await processingReconstruction();
    const firstTried = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const before = calls.length;
      expect(await dispatchTask(taskFor(id), withUrls(`${A},${B}`))).toEqual({ kind: "accepted" });
      const tried = calls.slice(before).map((c) => new URL(c.url).origin);
      expect(tried.at(-1)).toBe(B);
      expect(tried).toEqual(tried[0] === A ? [A, B] : [B]);
      firstTried.add(tried[0]!);
    }
    expect(firstTried).toEqual(new Set([A, B])); // 2 × 2⁻³⁰ to fail by chance
    expect(calls[0]).toMatchObject({ url: expect.stringMatching(/\/tasks$/), authorization: "Bearer test-compute-secret", body: taskFor(id) });
  });

  it("is busy when every URL is busy, and an error when every one is down", async () => {
    stubCompute({ [A]: { status: 503, retryAfter: "40" }, [B]: { status: 429, retryAfter: "12" } });
    expect(await dispatchTask(taskFor("rec_abcdefghijklmnopqrstuvwx"), withUrls(`${A},${B}`))).toEqual({ kind: "busy", retryAfterSeconds: 12 });
    vi.restoreAllMocks();
    stubCompute({ [A]: "down", [B]: { status: 500 } });
    const outcome = await dispatchTask(taskFor("rec_abcdefghijklmnopqrstuvwx"), withUrls(`${A},${B}`));
    expect(outcome).toMatchObject({ kind: "error", message: expect.stringMatching(/unreachable.*HTTP 500|HTTP 500.*unreachable/) });
  });

  it("sends jobs to /jobs over the same list", async () => {
    const calls = stubCompute({ [A]: "down", [B]: { status: 202 } });
    const job = { version: 1, reconstruction_id: "rec_abcdefghijklmnopqrstuvwx", account_id: "acc_x", attempt: 1, quality: "standard", inputs: [{ key: "inputs/rec_abcdefghijklmnopqrstuvwx/0000-a.jpg", name: "a.jpg", kind: "jpeg", size: 1 }], created_at: new Date().toISOString() } as JobMessage;
    expect(await dispatchJob(job, withUrls(`${A},${B}`))).toEqual({ kind: "accepted" });
    expect(calls.at(-1)!.url).toBe(`${B}/jobs`);
  });

  it("gives each task delivery its own Container instance in production", async () => {
    const instances: string[] = [];
    const containers = {
      idFromName: (name: string) => name,
      get: (name: string) => ({
        fetch: async (request: Request) => {
          instances.push(`${name} ${new URL(request.url).pathname}`);
          return new Response(null, { status: 202 });
        },
      }),
    };
    const production = { ...env, COMPUTE_URL: undefined, COMPUTE_CONTAINER: containers } as unknown as Env;
    expect(await dispatchTask(taskFor("rec_abcdefghijklmnopqrstuvwx", "dense-004", 2), production)).toEqual({ kind: "accepted" });
    expect(instances).toEqual(["rec_abcdefghijklmnopqrstuvwx/dense-004/2 /tasks"]);
  });
});

describe("task queue consumer", () => {
  it("drops malformed, unknown and no longer wanted deliveries without calling compute", async () => {
    const calls = stubCompute({ [A]: { status: 202 } });
    const target = withUrls(A);
    expect((await deliverTo(handleTaskBatch, "reconstruction-tasks", { hello: "world" }, target)).explicitAcks).toEqual(["msg-1"]);
    expect((await deliverTo(handleTaskBatch, "reconstruction-tasks", taskFor("rec_unknownunknownunknown00"), target)).explicitAcks).toEqual(["msg-1"]);
    const { id } = await processingReconstruction();
    await recordTaskSends(id);
    await reconstructionStub(id).addTasks({ attempt: 1, tasks: denseSpecs(id, 1) });
    await reconstructionStub(id).leaseTask("dense-000", { attempt: 1, worker: "compute-a" });
    // A duplicate of a delivery that a container already leased.
    expect((await deliverTo(handleTaskBatch, "reconstruction-tasks", taskFor(id), target)).explicitAcks).toEqual(["msg-1"]);
    expect(calls).toEqual([]);
  });

  it("hands a wanted delivery to compute and acknowledges it once accepted; retries while compute errs", async () => {
    const calls = stubCompute({ [A]: { status: 202 }, [B]: { status: 500 } });
    const { id } = await processingReconstruction();
    await recordTaskSends(id);
    await reconstructionStub(id).addTasks({ attempt: 1, tasks: denseSpecs(id, 2) });
    const accepted = await deliverTo(handleTaskBatch, "reconstruction-tasks", taskFor(id, "dense-000"), withUrls(A));
    expect(accepted.explicitAcks).toEqual(["msg-1"]);
    expect(calls).toEqual([{ url: `${A}/tasks`, authorization: "Bearer test-compute-secret", body: taskFor(id, "dense-000") }]);
    const failing = await deliverTo(handleTaskBatch, "reconstruction-tasks", taskFor(id, "dense-001"), withUrls(B));
    expect(failing.explicitAcks).toEqual([]);
    expect(failing.retryMessages.map((m) => m.msgId)).toEqual(["msg-1"]);
    expect((await reconstructionStub(id).tasks(1)).map((t) => t.state)).toEqual(["pending", "pending"]);
  });

  it("when every compute is busy, acknowledges and has the object send the delivery again after the Retry-After (no queue retry used)", async () => {
    stubCompute({ [B]: { status: 503, retryAfter: "9" } });
    const { id } = await processingReconstruction();
    const sent = await recordTaskSends(id);
    await reconstructionStub(id).addTasks({ attempt: 1, tasks: denseSpecs(id, 1) });
    const before = Date.now();
    const busy = await deliverTo(handleTaskBatch, "reconstruction-tasks", taskFor(id, "dense-000"), withUrls(B));
    expect(busy.explicitAcks).toEqual(["msg-1"]);
    expect(busy.retryMessages).toEqual([]);
    // The object's alarm is due about 9 s from now, and then sends the same delivery again.
    const due = (await alarmAt(id))!;
    expect(due).toBeGreaterThanOrEqual(before + 8_000);
    expect(due).toBeLessThanOrEqual(Date.now() + 10_000);
    await fireAlarm(id);
    expect(sent.messages.map((m) => `${m.key}#${m.delivery}`)).toEqual(["dense-000#1", "dense-000#1"]);
    // A stale delivery (the task was leased meanwhile) is not deferred: it is dropped as unwanted.
    await reconstructionStub(id).leaseTask("dense-000", { attempt: 1, worker: "compute-a" });
    expect(await reconstructionStub(id).deferTask(taskFor(id, "dense-000"), 5)).toBe(false);
  });

  it("is routed by queue name from the Worker's queue handler", async () => {
    const { id } = await processingReconstruction();
    await recordTaskSends(id);
    await reconstructionStub(id).addTasks({ attempt: 1, tasks: denseSpecs(id, 1) });
    // Through the real entry point and the test COMPUTE_URL, where nothing listens: a retry, not a job parse failure.
    const batch = createMessageBatch("reconstruction-tasks", [{ id: "msg-1", timestamp: new Date(), attempts: 1, body: taskFor(id) }]);
    const ctx = createExecutionContext();
    await worker.queue(batch as MessageBatch<unknown>, env);
    expect((await getQueueResult(batch, ctx)).retryMessages.map((m) => m.msgId)).toEqual(["msg-1"]);
  });
});

describe("task dead-letter consumer", () => {
  it("fails the task with dispatch_failed when that delivery is still current, and acknowledges", async () => {
    const { id } = await processingReconstruction();
    await recordTaskSends(id);
    await reconstructionStub(id).addTasks({ attempt: 1, tasks: denseSpecs(id, 2) });
    const stale = await deliverTo(handleTaskDeadLetters, "reconstruction-tasks-dlq", taskFor(id, "dense-001", 2));
    expect(stale.explicitAcks).toEqual(["msg-1"]);
    const dead = await deliverTo(handleTaskDeadLetters, "reconstruction-tasks-dlq", taskFor(id, "dense-000", 1));
    expect(dead.explicitAcks).toEqual(["msg-1"]);
    expect(await reconstructionStub(id).tasks(1)).toMatchObject([
      { key: "dense-000", state: "failed", error: { code: "dispatch_failed", message: expect.stringMatching(/could not be handed to compute/) } },
      { key: "dense-001", state: "pending", error: null },
    ]);
    expect((await deliverTo(handleTaskDeadLetters, "reconstruction-tasks-dlq", { nonsense: true })).explicitAcks).toEqual(["msg-1"]);
  });
});
