import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { accountStub, createAccount } from "./helpers.js";

describe("AccountObject: refusals and bad arguments", () => {
  it("reserve with a balance of 0 fails and opens nothing", async () => {
    const { accountId } = await createAccount(0);
    const account = accountStub(accountId);
    expect(await account.reserveCredit("rec_zzzzzzzzzzzzzzzzzzzzzzzz")).toEqual({ ok: false, balance: 0 });
    await account.commitReservation("rec_yyyyyyyyyyyyyyyyyyyyyyyy");
    expect(await account.ledger()).toMatchObject([{ kind: "debit", amount: -1 }]);
  });

  // Called on the instance, not through the stub: a rejecting RPC leaks an unhandled
  // rejection in the test pool (cloudflare/workers-sdk#14736), though production is fine.
  it("rejects reconstruction ids that are not rec_ ids", async () => {
    const { accountId } = await createAccount(1);
    await runInDurableObject(accountStub(accountId), (instance) => {
      expect(() => instance.reserveCredit("../../etc")).toThrow(/Invalid string/);
      expect(() => instance.refund("rec_x", "too short")).toThrow(/Invalid string/);
    });
    expect(await accountStub(accountId).balance()).toBe(1);
  });

  it("answers an account that does not exist without creating it", async () => {
    const ghost = accountStub("acc_1111111111111111111111");
    expect(await ghost.reserveCredit("rec_zzzzzzzzzzzzzzzzzzzzzzzz")).toEqual({ ok: false, balance: 0 });
    expect(await ghost.summary()).toBeNull();
    expect(await ghost.adjustCredits(5, "ghost")).toBeNull();
    expect(await ghost.exists()).toBe(false);
  });

  it("refuses an adjustment below zero with the balance unchanged", async () => {
    const { accountId } = await createAccount(2);
    expect(await accountStub(accountId).adjustCredits(-3, "too much")).toEqual({ ok: false, balance: 2 });
    expect(await accountStub(accountId).ledger()).toHaveLength(1);
  });
});
