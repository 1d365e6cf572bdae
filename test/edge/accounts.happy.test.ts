import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { RESERVATION_TTL_MS } from "../../edge/objects/account.js";
import { accountStub, createAccount, keyHeaders, request } from "./helpers.js";

const REC_A = "rec_aaaaaaaaaaaaaaaaaaaaaaaa";
const REC_B = "rec_bbbbbbbbbbbbbbbbbbbbbbbb";

describe("AccountObject ledger", () => {
  it("reserve holds a credit; commit writes one debit row; the balance is the ledger sum", async () => {
    const { accountId } = await createAccount(2);
    const account = accountStub(accountId);
    expect(await account.reserveCredit(REC_A)).toEqual({ ok: true, balance: 1 });
    expect(await account.balance()).toBe(1);
    expect(await account.ledger()).toHaveLength(1);
    await account.commitReservation(REC_A);
    await account.commitReservation(REC_A);
    const ledger = await account.ledger();
    expect(ledger).toMatchObject([{ kind: "topup", amount: 2 }, { kind: "debit", amount: -1, reconstruction_id: REC_A }]);
    expect(ledger).toHaveLength(2);
    expect(await account.balance()).toBe(1);
  });

  it("reserve is idempotent per reconstruction id, before and after commit", async () => {
    const { accountId } = await createAccount(2);
    const account = accountStub(accountId);
    await account.reserveCredit(REC_A);
    expect(await account.reserveCredit(REC_A)).toEqual({ ok: true, balance: 1 });
    await account.commitReservation(REC_A);
    expect(await account.reserveCredit(REC_A)).toEqual({ ok: true, balance: 1 });
    expect(await account.ledger()).toHaveLength(2);
  });

  it("release gives the credit back and leaves no ledger row", async () => {
    const { accountId } = await createAccount(1);
    const account = accountStub(accountId);
    await account.reserveCredit(REC_A);
    expect(await account.balance()).toBe(0);
    await account.releaseReservation(REC_A);
    await account.releaseReservation(REC_A);
    expect(await account.balance()).toBe(1);
    expect(await account.ledger()).toMatchObject([{ kind: "topup" }]);
    expect(await account.ledger()).toHaveLength(1);
  });

  it("refund adds +1 once, and only for a debited reconstruction", async () => {
    const { accountId } = await createAccount(1);
    const account = accountStub(accountId);
    expect(await account.refund(REC_A, "never debited")).toEqual({ refunded: false, balance: 1 });
    await account.reserveCredit(REC_A);
    expect(await account.refund(REC_A, "reserved only")).toEqual({ refunded: false, balance: 0 });
    await account.commitReservation(REC_A);
    expect(await account.refund(REC_A, "processing_timeout")).toEqual({ refunded: true, balance: 1 });
    expect(await account.refund(REC_A, "processing_timeout")).toEqual({ refunded: false, balance: 1 });
    const ledger = await account.ledger();
    expect(ledger.map((row) => [row.kind, row.amount, row.reconstruction_id])).toEqual([
      ["topup", 1, null],
      ["debit", -1, REC_A],
      ["refund", 1, REC_A],
    ]);
    expect(ledger[2].reason).toBe("processing_timeout");
  });

  it("usage counts committed debits and recorded outcomes, each once", async () => {
    const { accountId, apiKey } = await createAccount(3);
    const account = accountStub(accountId);
    for (const id of [REC_A, REC_B]) {
      await account.reserveCredit(id);
      await account.commitReservation(id);
    }
    await account.recordOutcome(REC_A, "completed");
    await account.recordOutcome(REC_A, "completed");
    await account.recordOutcome(REC_B, "failed");
    await account.refund(REC_B, "not_enough_overlap");
    const res = await request("/v1/account", { headers: keyHeaders(apiKey) });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ account_id: accountId, balance: 2, trial: false, usage: { reconstructions: 2, completed: 1, failed: 1 } });
  });

  it("five concurrent reservations against one credit: exactly one succeeds", async () => {
    const { accountId } = await createAccount(1);
    const account = accountStub(accountId);
    const ids = ["a", "b", "c", "d", "e"].map((letter) => `rec_${letter.repeat(24)}`);
    const results = await Promise.all(ids.map((id) => account.reserveCredit(id)));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok).every((r) => r.balance === 0)).toBe(true);
    expect(await account.balance()).toBe(0);
  });

  it("GET /v1/account reports trial true for a trial-only account and false after a top-up", async () => {
    const { accountId, apiKey } = await createAccount();
    const before = await request("/v1/account", { headers: keyHeaders(apiKey) });
    expect(await before.json()).toMatchObject({ balance: 5, trial: true });
    await accountStub(accountId).adjustCredits(3, "bought 3");
    const after = await request("/v1/account", { headers: keyHeaders(apiKey) });
    const body = (await after.json()) as { balance: number; trial: boolean; created_at: string };
    expect(body).toMatchObject({ balance: 8, trial: false });
    expect(body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("a reservation older than its TTL stops holding the credit; committing it still charges once", async () => {
    const { accountId } = await createAccount(1);
    const account = accountStub(accountId);
    await account.reserveCredit(REC_A);
    expect(await account.balance()).toBe(0);
    await runInDurableObject(account, (_instance, state) => {
      state.storage.sql.exec("UPDATE reservations SET created_at_ms = ?", Date.now() - RESERVATION_TTL_MS - 1000);
    });
    expect(await account.balance()).toBe(1);
    await account.commitReservation(REC_A);
    expect(await account.balance()).toBe(0);
    expect((await account.ledger()).filter((row) => row.kind === "debit")).toHaveLength(1);
  });
});
