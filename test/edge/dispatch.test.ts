/**
 * The job queue's consumer and dead-letter consumer (edge/compute/job-queue.ts), driven with real message
 * batches; the state machine, the waiting line and the ledger are re-read afterwards.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { backoffSeconds } from "../../edge/compute/targets.js";
import worker from "../../edge/index.js";
import type { JobMessage } from "../../shared/jobs.js";
import { accountStub, env } from "./helpers.js";
import { schedulerStub } from "../../edge/scheduling/scheduler-object.js";
import { completeWithOutputs, createReconstruction, reconstructionStub } from "./reconstruction-support.js";

function jobFor(id: string, accountId: string, attempt = 1): JobMessage {
  return {
    version: 1,
    reconstruction_id: id,
    account_id: accountId,
    attempt,
    quality: "standard",
    inputs: [{ key: `inputs/${id}/0000-front.jpg`, name: "front.jpg", kind: "jpeg", size: 10 }],
    created_at: new Date().toISOString(),
  };
}

async function deliver(queue: string, body: unknown, attempts = 1) {
  const batch = createMessageBatch(queue, [{ id: "msg-1", timestamp: new Date(), attempts, body }]);
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch<unknown>, env);
  return getQueueResult(batch, ctx);
}

describe("job queue consumer (messages sent before the waiting line)", () => {
  it("hands a pending job's message to its object, which puts it in the waiting line, and keeps the backoff schedule", async () => {
    const { account, id } = await createReconstruction();
    await schedulerStub(env).withdraw(id); // as if it had been sent through the queue only
    const result = await deliver("reconstruction-jobs", jobFor(id, account.accountId), 1);
    expect(result.explicitAcks).toEqual(["msg-1"]);
    expect(await schedulerStub(env).place(id)).toMatchObject({ state: "queued", position: expect.any(Number) });
    expect((await reconstructionStub(id).status(account.accountId))?.status).toBe("pending");
    // The test pool's batches report neither `attempts` nor the retry delay, so the schedule is checked directly.
    expect([1, 2, 3, 8, 20].map((n) => backoffSeconds(n))).toEqual([2, 4, 8, 256, 300]);
    expect(backoffSeconds(6, 30)).toBe(30);
  });

  it("acknowledges a duplicate delivery of a finished job without putting it in the line again", async () => {
    const { account, id } = await createReconstruction();
    await completeWithOutputs(id, { glb: 100 });
    const result = await deliver("reconstruction-jobs", jobFor(id, account.accountId));
    expect(result.explicitAcks).toEqual(["msg-1"]);
    expect(result.retryMessages).toEqual([]);
    expect(await schedulerStub(env).place(id)).toEqual({ state: "absent" });
    const status = await reconstructionStub(id).status(account.accountId);
    expect(status?.status).toBe("completed");
    const rows = await accountStub(account.accountId).ledger();
    expect(rows.filter((r) => r.reconstruction_id === id).map((r) => r.kind)).toEqual(["debit"]);
  });

  it("drops a malformed message instead of retrying it forever", async () => {
    const result = await deliver("reconstruction-jobs", { hello: "world" });
    expect(result.explicitAcks).toEqual(["msg-1"]);
  });
});

describe("dead-letter consumer", () => {
  it("fails the reconstruction with dispatch_failed and refunds its credit exactly once", async () => {
    const { account, id } = await createReconstruction();
    const before = await accountStub(account.accountId).balance();
    const result = await deliver("reconstruction-jobs-dlq", jobFor(id, account.accountId, 1));
    expect(result.explicitAcks).toEqual(["msg-1"]);
    const status = await reconstructionStub(id).status(account.accountId);
    expect(status).toMatchObject({ status: "failed", credit_refunded: true, error: { code: "dispatch_failed" } });
    // A second dead letter for the same job changes nothing.
    await deliver("reconstruction-jobs-dlq", jobFor(id, account.accountId, 1));
    const rows = (await accountStub(account.accountId).ledger()).filter((r) => r.reconstruction_id === id);
    expect(rows.map((r) => r.kind).sort()).toEqual(["debit", "refund"]);
    expect(await accountStub(account.accountId).balance()).toBe(before + 1);
  });
});
