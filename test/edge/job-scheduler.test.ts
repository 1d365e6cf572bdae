/**
 * The waiting line in front of compute (edge/scheduling): a busy compute keeps jobs pending in
 * their place for as long as it is busy, they start in the fairness order, and only a compute
 * that stays unreachable for DISPATCH_UNREACHABLE_SECONDS fails a job, refunded. The
 * ReconstructionObject, the AccountObject and the JobSchedulerObject are real; compute is a
 * stubbed `fetch` on the test bindings' COMPUTE_URL (http://127.0.0.1:9).
 */
import { runInDurableObject } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { forecastStarts, MIN_REMAINING_MS } from "../../edge/scheduling/forecast.js";
import { JobSchedulerObject, schedulerStub } from "../../edge/scheduling/scheduler-object.js";
import type { JobMessage } from "../../shared/jobs.js";
import type { StatusRecord } from "../../shared/records.js";
import { accountStub, createAccount, env, keyHeaders, request, type TestAccount } from "./helpers.js";
import { createReconstruction, reconstructionStub } from "./reconstruction-support.js";

const COMPUTE = "http://127.0.0.1:9";

type Answer = { status: number; retryAfter?: string } | "down";

/** Compute as seen by the scheduler: answers with `current.answer`, records each job POSTed. */
function stubCompute(current: { answer: Answer }): JobMessage[] {
  const posted: JobMessage[] = [];
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    if (!req.url.startsWith(COMPUTE)) return realFetch(input, init);
    const answer = current.answer;
    if (answer === "down") throw new TypeError("connection refused (test)");
    if (answer.status === 202) posted.push((await req.json()) as JobMessage);
    return new Response("{}", { status: answer.status, headers: answer.retryAfter ? { "retry-after": answer.retryAfter } : {} });
  });
  return posted;
}

/** Runs the scheduler's alarm handler now (whatever time it was set for). */
function runScheduler(): Promise<void> {
  return runInDurableObject(schedulerStub(env), (instance: JobSchedulerObject) => instance.alarm());
}

/** Moves every waiting job's arrival, and compute's last sensible answer, `seconds` into the past. */
function backdate(seconds: number): Promise<void> {
  return runInDurableObject(schedulerStub(env), (_instance, state) => {
    state.storage.sql.exec(`UPDATE waiting SET enqueued_at = enqueued_at - ?`, seconds * 1000);
    state.storage.sql.exec(`UPDATE compute_health SET healthy_at = healthy_at - ?, busy_at = busy_at - ?`, seconds * 1000, seconds * 1000);
  });
}

async function statusOf(id: string, account: TestAccount): Promise<StatusRecord> {
  const res = await request(`/v1/reconstruction/${id}/status`, { headers: keyHeaders(account.apiKey) });
  expect(res.status).toBe(200);
  return (await res.json()) as StatusRecord;
}

async function ledgerKinds(account: TestAccount, id: string): Promise<string[]> {
  return (await accountStub(account.accountId).ledger()).filter((row) => row.reconstruction_id === id).map((row) => row.kind).sort();
}

beforeEach(async () => {
  // One line for the whole Worker: start each test with it empty and compute unknown.
  await runInDurableObject(schedulerStub(env), (_instance, state) => {
    state.storage.sql.exec(`DELETE FROM waiting; DELETE FROM running; DELETE FROM account_rounds; UPDATE compute_health SET healthy_at = NULL, busy_at = NULL, errors = 0, slots = 1, current_round = 0`);
  });
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a busy compute", () => {
  it("keeps the job pending in its place far beyond the old retry budget, then starts it", async () => {
    const compute = { answer: { status: 503, retryAfter: "30" } as Answer };
    const posted = stubCompute(compute);
    const { account, id } = await createReconstruction();
    // The old queue gave up after 6 busy deliveries, 30 s apart: here it is busy for two hours.
    for (let round = 0; round < 8; round++) {
      await runScheduler();
      await backdate(900);
    }
    const waiting = await statusOf(id, account);
    expect(waiting).toMatchObject({ status: "pending", queue: { reason: "queued", position: 1 } });
    expect(Date.parse(waiting.queue!.estimated_start)).toBeGreaterThanOrEqual(Date.now() - 5000);
    expect(Date.parse(waiting.estimated_completion)).toBeGreaterThan(Date.parse(waiting.queue!.estimated_start));
    expect(await ledgerKinds(account, id)).toEqual(["debit"]);

    compute.answer = { status: 202 };
    await runScheduler();
    expect(posted.map((job) => job.reconstruction_id)).toContain(id);
    expect(posted.find((job) => job.reconstruction_id === id)).toMatchObject({ attempt: 1, account_id: account.accountId });
    expect(await statusOf(id, account)).toMatchObject({ status: "pending", queue: { reason: "starting", position: 0 } });
    expect(await reconstructionStub(id).start(1)).toMatchObject({ accepted: true, status: "processing" });
    const started = await statusOf(id, account);
    expect(started.status).toBe("processing");
    expect(started.queue).toBeUndefined();
    expect(await ledgerKinds(account, id)).toEqual(["debit"]);
  });

  it("starts jobs in rounds: one account's batch does not hold back another account's single upload", async () => {
    const compute = { answer: { status: 503, retryAfter: "30" } as Answer };
    const posted = stubCompute(compute);
    const batchOwner = await createAccount(5);
    const batch: string[] = [];
    for (let i = 0; i < 3; i++) batch.push((await createReconstruction(batchOwner)).id);
    const single = await createReconstruction(await createAccount(2));
    await runScheduler();
    const positions = [];
    for (const id of batch) positions.push((await statusOf(id, batchOwner)).queue?.position);
    const singlePlace = (await statusOf(single.id, single.account)).queue;
    // Round 0: the batch's first and the single upload (older first); then the batch's others.
    expect([positions[0], singlePlace?.position, positions[1], positions[2]]).toEqual([1, 2, 3, 4]);
    // Each forecast start is no earlier than the one before it.
    const starts = [batch[0]!, single.id, batch[1]!, batch[2]!].map(async (id) => (await reconstructionStub(id).status(id === single.id ? single.account.accountId : batchOwner.accountId))!.queue!.estimated_start);
    const times = (await Promise.all(starts)).map((t) => Date.parse(t));
    expect([...times].sort((a, b) => a - b)).toEqual(times);

    compute.answer = { status: 202 };
    await runScheduler();
    const firstPosts = [...new Set(posted.map((job) => job.reconstruction_id))];
    expect(firstPosts).toEqual([batch[0], single.id, batch[1], batch[2]]);
  });

  it("interleaves a batch that arrives late from the current round on, instead of serving it first", async () => {
    const compute = { answer: { status: 503, retryAfter: "30" } as Answer };
    const posted = stubCompute(compute);
    const early = await createAccount(5);
    const earlyIds: string[] = [];
    for (let i = 0; i < 4; i++) earlyIds.push((await createReconstruction(early)).id);
    // Two of the early batch start: the line has reached round 1.
    compute.answer = { status: 202 };
    await runInDurableObject(schedulerStub(env), async (_instance, state) => {
      state.storage.sql.exec(`UPDATE compute_health SET current_round = 1`);
      state.storage.sql.exec(`DELETE FROM waiting WHERE reconstruction_id IN (?, ?)`, earlyIds[0]!, earlyIds[1]!);
    });
    compute.answer = { status: 503, retryAfter: "30" };
    const late = await createAccount(5);
    const lateIds: string[] = [];
    for (let i = 0; i < 3; i++) lateIds.push((await createReconstruction(late)).id);
    compute.answer = { status: 202 };
    await runScheduler();
    // Early rounds 2, 3; late rounds 1, 2, 3: late 1, then early 2 and late 2 (older first), then 3s.
    expect([...new Set(posted.map((job) => job.reconstruction_id))]).toEqual([lateIds[0], earlyIds[2], lateIds[1], earlyIds[3], lateIds[2]]);
  });

  it("lets a cancelled job leave the line without ever reaching compute", async () => {
    const compute = { answer: { status: 503, retryAfter: "30" } as Answer };
    const posted = stubCompute(compute);
    const { account, id } = await createReconstruction();
    const res = await request(`/v1/reconstruction/${id}/cancel`, { method: "POST", headers: keyHeaders(account.apiKey) });
    expect(res.status).toBe(200);
    expect(await schedulerStub(env).place(id)).toEqual({ state: "absent" });
    compute.answer = { status: 202 };
    await runScheduler();
    expect(posted.map((job) => job.reconstruction_id)).not.toContain(id);
    expect(await ledgerKinds(account, id)).toEqual(["debit", "refund"]);
  });
});

describe("forecasts", () => {
  it("learn from what completed jobs really took: a job twice as long as its estimate stretches the next forecasts", async () => {
    const compute = { answer: { status: 202 } as Answer };
    stubCompute(compute);
    const owner = await createAccount(5);
    const first = await createReconstruction(owner);
    await runScheduler(); // handed over
    const sql = <T extends Record<string, SqlStorageValue>>(query: string, ...args: SqlStorageValue[]) =>
      runInDurableObject(schedulerStub(env), (_instance, state) => state.storage.sql.exec<T>(query, ...args).toArray());
    const [{ estimate }] = await sql<{ estimate: number }>(`SELECT expected_end - dispatched_at AS estimate FROM running WHERE reconstruction_id = ?`, first.id);
    // It ran twice its estimate.
    await sql(`UPDATE running SET dispatched_at = dispatched_at - ?, expected_end = expected_end - ? WHERE reconstruction_id = ?`, 2 * estimate!, 2 * estimate!, first.id);
    await reconstructionStub(first.id).start(1);
    await reconstructionStub(first.id).complete({ attempt: 1, formats: [{ format: "glb", file_size: 1 }] });
    const [{ run_ratio }] = await sql<{ run_ratio: number }>(`SELECT run_ratio FROM compute_health`);
    expect(run_ratio).toBeCloseTo(0.8 + 0.2 * 2, 2);
    // A waiting job's forecast end is its start plus its estimate stretched by that ratio.
    compute.answer = { status: 503, retryAfter: "30" };
    const second = await createReconstruction(owner);
    const place = await schedulerStub(env).place(second.id);
    expect(place.state).toBe("queued");
    if (place.state !== "queued") return;
    const [{ run_seconds }] = await sql<{ run_seconds: number }>(`SELECT run_seconds FROM waiting WHERE reconstruction_id = ?`, second.id);
    expect(place.estimated_end - place.estimated_start).toBeCloseTo(run_seconds! * 1000 * run_ratio!, -1);
  });
});

describe("production containers", () => {
  it("hands over at most COMPUTE_MAX_JOBS jobs, each to a free slot's container, and gives a freed slot to the next", async () => {
    stubCompute({ answer: { status: 503, retryAfter: "30" } }); // the background alarm, on the test bindings, only hears busy
    const posts: string[] = [];
    const containers = {
      idFromName: (name: string) => name,
      get: (name: string) => ({
        fetch: async (req: Request) => {
          posts.push(`${name} ${((await req.json()) as JobMessage).reconstruction_id}`);
          return new Response(null, { status: 202 });
        },
      }),
    };
    const production = { ...env, COMPUTE_URL: "", COMPUTE_MAX_JOBS: "2", COMPUTE_CONTAINER: containers } as unknown as typeof env;
    const runInProduction = () =>
      runInDurableObject(schedulerStub(env), async (instance: JobSchedulerObject) => {
        const target = instance as unknown as { env: typeof env };
        target.env = production;
        try {
          await instance.alarm();
        } finally {
          target.env = env;
        }
      });
    const owner = await createAccount(5);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createReconstruction(owner)).id);
    await runInProduction();
    expect(posts).toEqual([`job-slot-0 ${ids[0]}`, `job-slot-1 ${ids[1]}`]);
    expect((await statusOf(ids[2]!, owner)).queue).toMatchObject({ reason: "queued", position: 1 });
    await reconstructionStub(ids[0]!).start(1);
    await reconstructionStub(ids[0]!).complete({ attempt: 1, formats: [{ format: "glb", file_size: 1 }] });
    await runInProduction();
    expect(posts).toEqual([`job-slot-0 ${ids[0]}`, `job-slot-1 ${ids[1]}`, `job-slot-0 ${ids[2]}`]);
  });
});

describe("an unreachable compute", () => {
  it("leaves the job waiting inside DISPATCH_UNREACHABLE_SECONDS, then fails it with dispatch_failed and refunds once", async () => {
    const compute = { answer: "down" as Answer };
    stubCompute(compute);
    const { account, id } = await createReconstruction();
    const before = await accountStub(account.accountId).balance();
    await runScheduler();
    await backdate(800); // 800 s of a 900-s window
    await runScheduler();
    expect(await statusOf(id, account)).toMatchObject({ status: "pending", queue: { reason: "queued" } });

    await backdate(101);
    await runScheduler();
    const failed = await statusOf(id, account);
    expect(failed).toMatchObject({ status: "failed", credit_refunded: true, error: { code: "dispatch_failed" } });
    expect(failed.error!.message).toMatch(/unreachable/);
    expect(await ledgerKinds(account, id)).toEqual(["debit", "refund"]);
    expect(await accountStub(account.accountId).balance()).toBe(before + 1);
    expect(await schedulerStub(env).place(id)).toEqual({ state: "absent" });
  });

  it("counts the window from compute's last busy answer: busy is a sign of health", async () => {
    const compute = { answer: "down" as Answer };
    stubCompute(compute);
    const { account, id } = await createReconstruction();
    await backdate(2000); // joined the line long ago
    compute.answer = { status: 503, retryAfter: "5" };
    await runScheduler(); // compute answers: busy
    compute.answer = "down";
    await backdate(600);
    await runScheduler(); // down for 600 s only since it last answered
    expect(await statusOf(id, account)).toMatchObject({ status: "pending", queue: { reason: "queued" } });
  });
});

describe("forecast of start times", () => {
  it("fills the slots in line order from the running jobs' ends", () => {
    const now = 1_000_000;
    expect(forecastStarts({ now, slots: 2, runningEnds: [now + 100_000, now + 200_000], waitingRunMs: [50_000, 50_000, 50_000] }))
      .toEqual([now + 100_000, now + 150_000, now + 200_000]);
    // A free slot starts the first at once; an overrun job still counts as ending soon.
    expect(forecastStarts({ now, slots: 2, runningEnds: [now - 5000], waitingRunMs: [30_000, 30_000] })).toEqual([now, now + MIN_REMAINING_MS]);
    // More running than slots: the surplus must end first.
    expect(forecastStarts({ now, slots: 1, runningEnds: [now + 20_000, now + 40_000], waitingRunMs: [1000] })).toEqual([now + 40_000]);
  });
});
