import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ReconstructionObject } from "../../edge/objects/reconstruction.js";
import { canTransition } from "../../edge/objects/reconstruction-state.js";
import type { JobMessage } from "../../shared/jobs.js";
import { RECONSTRUCTION_STATUSES } from "../../shared/records.js";
import { accountStub, createAccount, env } from "./helpers.js";
import { schedulerStub } from "../../edge/scheduling/scheduler-object.js";
import { completeWithOutputs, createReconstruction, reconstructionStub } from "./reconstruction-support.js";

async function ledgerFor(accountId: string, id: string) {
  return (await accountStub(accountId).ledger()).filter((row) => row.reconstruction_id === id).map((row) => [row.kind, row.amount]);
}

/** Runs the object's alarm handler now, whatever time it was set for. */
async function instanceAlarm(stub: ReturnType<typeof reconstructionStub>): Promise<void> {
  await runInDurableObject(stub, (instance: ReconstructionObject) => instance.alarm());
}

/** The waiting line's entry for a reconstruction, with its job message parsed. */
async function waitingEntry(id: string): Promise<{ attempt: number; job: JobMessage } | undefined> {
  const rows = await runInDurableObject(schedulerStub(env), (_instance, state) =>
    state.storage.sql.exec<{ attempt: number; job: string }>(`SELECT attempt, job FROM waiting WHERE reconstruction_id = ?`, id).toArray(),
  );
  return rows[0] ? { attempt: rows[0].attempt, job: JSON.parse(rows[0].job) as JobMessage } : undefined;
}

describe("transition table", () => {
  it("allows exactly pending→processing, pending→failed, processing→completed, processing→failed", () => {
    const allowed = RECONSTRUCTION_STATUSES.flatMap((from) => RECONSTRUCTION_STATUSES.filter((to) => canTransition(from, to)).map((to) => `${from}→${to}`));
    expect(allowed.sort()).toEqual(["pending→failed", "pending→processing", "processing→completed", "processing→failed"]);
  });
});

describe("ReconstructionObject", () => {
  it("walks pending → processing → completed with monotone progress and records the outcome once", async () => {
    const { account, id } = await createReconstruction();
    const stub = reconstructionStub(id);
    expect(await stub.status(account.accountId)).toMatchObject({ status: "pending", progress: 0, started_at: null, stage: null, total_files: 2 });
    expect(await stub.start(1)).toMatchObject({ accepted: true, status: "processing" });
    expect(await stub.start(1)).toMatchObject({ accepted: true, status: "processing" }); // duplicate delivery
    const eta = new Date(Date.now() + 120_000).toISOString();
    await stub.progress({ attempt: 1, stage: "features", progress: 40, files_processed: 1, estimated_completion: eta });
    await stub.progress({ attempt: 1, stage: "matching", progress: 25, files_processed: 0 }); // late, lower
    const mid = await stub.status(account.accountId);
    expect(mid).toMatchObject({ status: "processing", progress: 40, files_processed: 1, stage: "matching", estimated_completion: eta });
    expect(mid!.started_at).not.toBeNull();

    await completeWithOutputs(id, { glb: 100, ply: 50 });
    const done = await stub.status(account.accountId);
    expect(done).toMatchObject({ status: "completed", progress: 100, stage: null, files_processed: 2, credit_refunded: false, formats: [{ format: "glb", file_size: 100 }, { format: "ply", file_size: 50 }] });
    expect(done!.completed_at).not.toBeNull();
    expect(done!.estimated_completion).toBe(done!.completed_at);
    expect(done).not.toHaveProperty("error");
    expect((await accountStub(account.accountId).summary())?.usage).toMatchObject({ completed: 1, failed: 0 });

    // Terminal: every further report is refused and changes nothing.
    expect(await stub.fail({ attempt: 1, code: "processing_error", message: "late", suggestion: "" })).toMatchObject({ accepted: false, status: "completed" });
    expect(await stub.start(1)).toMatchObject({ accepted: false });
    expect(await stub.progress({ attempt: 1, stage: "mesh", progress: 10, files_processed: 0 })).toMatchObject({ accepted: false });
    expect(await stub.complete({ attempt: 1, formats: [{ format: "obj", file_size: 1 }] })).toMatchObject({ accepted: false });
    expect(await stub.status(account.accountId)).toEqual(done);
    expect(await ledgerFor(account.accountId, id)).toEqual([["debit", -1]]);
  });

  it("fails with a reason, refunds exactly once, and refuses a second failure", async () => {
    const { account, id } = await createReconstruction(await createAccount(1));
    const stub = reconstructionStub(id);
    expect(await accountStub(account.accountId).balance()).toBe(0);
    await stub.start(1);
    const report = { attempt: 1, code: "not_enough_overlap", message: "The photos share too little.", suggestion: "Take photos with 60% overlap." };
    expect(await stub.fail(report)).toMatchObject({ accepted: true, status: "failed" });
    expect(await stub.fail(report)).toMatchObject({ accepted: false, status: "failed" });
    const status = await stub.status(account.accountId);
    expect(status).toMatchObject({ status: "failed", credit_refunded: true, stage: null, error: { code: "not_enough_overlap", message: report.message, suggestion: report.suggestion } });
    expect(status!.estimated_completion).toBe(status!.completed_at);
    expect(await ledgerFor(account.accountId, id)).toEqual([["debit", -1], ["refund", 1]]);
    expect(await accountStub(account.accountId).balance()).toBe(1);
    expect((await accountStub(account.accountId).summary())?.usage).toMatchObject({ failed: 1 });
  });

  it("allows pending → failed directly and refuses complete afterwards", async () => {
    const { account, id } = await createReconstruction();
    const stub = reconstructionStub(id);
    expect(await stub.fail({ attempt: 1, code: "dispatch_failed", message: "m", suggestion: "s" })).toMatchObject({ accepted: true });
    expect(await stub.complete({ attempt: 1, formats: [{ format: "glb", file_size: 1 }] })).toMatchObject({ accepted: false, status: "failed" });
    expect(await stub.status(account.accountId)).toMatchObject({ status: "failed", started_at: null, credit_refunded: true });
  });

  it("rejects reports that do not match the shared schemas", async () => {
    const { id } = await createReconstruction();
    const stub = reconstructionStub(id);
    const invalid = { accepted: false, status: "pending", reason: expect.stringMatching(/^invalid report/) };
    expect(await stub.progress({ attempt: 1, stage: "features", progress: 150, files_processed: 0 })).toMatchObject(invalid);
    expect(await stub.progress({ attempt: 0, stage: "features", progress: 1, files_processed: 0 })).toMatchObject(invalid);
    expect(await stub.progress({ attempt: 1, stage: "unheard-of", progress: 1, files_processed: 0 } as never)).toMatchObject(invalid);
    expect(await stub.complete({ attempt: 1, formats: [] })).toMatchObject(invalid);
    expect(await stub.fail({ attempt: 1, code: "x" } as never)).toMatchObject(invalid);
    expect(await stub.start(-1)).toMatchObject(invalid);
    expect(await stub.heartbeat(1.5)).toMatchObject(invalid);
    expect((await stub.history()).map((h) => h.to_status)).toEqual(["pending"]);
  });

  it("answers status only to the owner", async () => {
    const { account, id } = await createReconstruction();
    const stranger = await createAccount(1);
    expect(await reconstructionStub(id).status(stranger.accountId)).toBeNull();
    expect(await reconstructionStub(id).status(account.accountId)).not.toBeNull();
  });

  it("stores nothing for an id that was never created", async () => {
    const stub = reconstructionStub("rec_neverCreatedneverCreated12");
    expect(await stub.status("acc_x")).toBeNull();
    expect(await stub.heartbeat(1)).toMatchObject({ accepted: false, reason: "unknown reconstruction" });
    const tables = await runInDurableObject(stub, (_instance, state) => state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\'").toArray());
    expect(tables).toEqual([]);
  });
});

describe("watchdog alarm", () => {
  it("re-dispatches with attempt + 1, ignores the older attempt, then fails with processing_timeout and refunds", async () => {
    const { account, id } = await createReconstruction(await createAccount(1));
    const stub = reconstructionStub(id);
    await stub.start(1);
    await instanceAlarm(stub);
    // Attempt 2 waits in the line, with the same message as attempt 1 but its number.
    const waiting = await waitingEntry(id);
    expect(waiting).toMatchObject({ attempt: 2 });
    expect(waiting!.job).toMatchObject({ version: 1, reconstruction_id: id, account_id: account.accountId, attempt: 2, quality: "standard" });
    expect(waiting!.job.inputs.map((input) => input.name)).toEqual(["front.jpg", "side.jpg"]);

    // Attempt 1 is now stale: its reports change nothing.
    expect(await stub.progress({ attempt: 1, stage: "dense", progress: 80, files_processed: 2 })).toMatchObject({ accepted: false });
    expect(await stub.complete({ attempt: 1, formats: [{ format: "glb", file_size: 1 }] })).toMatchObject({ accepted: false });
    expect(await stub.status(account.accountId)).toMatchObject({ status: "processing", progress: 0 });
    // Attempt 2 is heard.
    expect(await stub.heartbeat(2)).toMatchObject({ accepted: true });

    expect(await runDurableObjectAlarm(stub)).toBe(true); // attempt 3, in the line
    // While attempt 3 waits in the line, its alarm only asks the line again: the wait uses no attempt.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stub.status(account.accountId)).toMatchObject({ status: "processing" });
    expect(await stub.dispatched(3)).toMatchObject({ accepted: true }); // the line handed it to compute
    expect(await runDurableObjectAlarm(stub)).toBe(true); // attempt 3 timed out: failed
    const status = await stub.status(account.accountId);
    expect(status).toMatchObject({ status: "failed", credit_refunded: true, error: { code: "processing_timeout" } });
    expect(await ledgerFor(account.accountId, id)).toEqual([["debit", -1], ["refund", 1]]);
    expect(await runDurableObjectAlarm(stub)).toBe(false); // settled: no alarm left
    const notes = (await stub.history()).map((h) => `${h.to_status}#${h.attempt}`);
    expect(notes).toEqual(["pending#1", "processing#1", "processing#2", "processing#3", "processing#3", "failed#3"]);
  });

  it("gives a pending job its dispatch allowance and a processing job its heartbeat deadline", async () => {
    const { id } = await createReconstruction();
    const stub = reconstructionStub(id);
    const alarmIn = () => runInDurableObject(stub, async (_i, state) => ((await state.storage.getAlarm()) ?? 0) - Date.now());
    // In the line: only the check that the line still has it (WATCHDOG_QUEUED_SECONDS).
    expect(await alarmIn()).toBeGreaterThan(590_000);
    expect(await alarmIn()).toBeLessThanOrEqual(600_000);
    // Handed to compute: compute must start it within WATCHDOG_PENDING_SECONDS.
    expect(await stub.dispatched(1)).toMatchObject({ accepted: true });
    expect(await stub.dispatched(1)).toMatchObject({ accepted: false });
    expect(await alarmIn()).toBeGreaterThan(290_000);
    expect(await alarmIn()).toBeLessThanOrEqual(300_000);
    await stub.start(1);
    expect(await alarmIn()).toBeGreaterThan(590_000);
    await stub.complete({ attempt: 1, formats: [{ format: "glb", file_size: 1 }] });
    expect(await runInDurableObject(stub, (_i, state) => state.storage.getAlarm())).toBeNull();
  });
});
