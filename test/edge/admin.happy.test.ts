import { describe, expect, it } from "vitest";
import { accountStub, adminHeaders, createAccount, keyHeaders, request } from "./helpers.js";

describe("operator API: happy paths", () => {
  it("creates an account with the trial grant, a live key and a trial ledger row", async () => {
    const res = await request("/v1/admin/accounts", { method: "POST", headers: adminHeaders(), body: JSON.stringify({ email: "a@example.com" }) });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { account_id: string; api_key: string; key_id: string; balance: number };
    expect(body).toMatchObject({ balance: 5 });
    expect(body.account_id).toMatch(/^acc_[0-9A-Za-z]{22}$/);
    expect(body.key_id).toMatch(/^key_[0-9A-Za-z]{16}$/);
    expect(body.api_key).toMatch(/^pk_live_/);
    const ledger = await accountStub(body.account_id).ledger();
    expect(ledger).toMatchObject([{ kind: "trial", amount: 5, reconstruction_id: null }]);
    const account = await request("/v1/account", { headers: keyHeaders(body.api_key) });
    expect(account.status).toBe(200);
    expect(await account.json()).toMatchObject({ account_id: body.account_id, balance: 5, trial: true });
  });

  it("creates an account with explicit credits as a top-up (not a trial)", async () => {
    const created = await createAccount(12);
    expect(created.balance).toBe(12);
    expect(await accountStub(created.accountId).ledger()).toMatchObject([{ kind: "topup", amount: 12 }]);
    const account = await request("/v1/account", { headers: keyHeaders(created.apiKey) });
    expect(await account.json()).toMatchObject({ balance: 12, trial: false, usage: { reconstructions: 0, completed: 0, failed: 0 } });
  });

  it("issues a second key; both keys work and the stored form is a hash, never the key", async () => {
    const created = await createAccount(1);
    const res = await request(`/v1/admin/accounts/${created.accountId}/keys`, { method: "POST", headers: adminHeaders() });
    expect(res.status).toBe(201);
    const key = (await res.json()) as { api_key: string; key_id: string };
    expect(key.key_id).not.toBe(created.keyId);
    for (const apiKey of [created.apiKey, key.api_key]) {
      expect((await request("/v1/account", { headers: keyHeaders(apiKey) })).status).toBe(200);
    }
    const { runInDurableObject } = await import("cloudflare:test");
    const stored = await runInDurableObject(accountStub(created.accountId), (_instance, state) =>
      state.storage.sql.exec<{ hash: string }>("SELECT hash FROM api_keys").toArray().map((row) => row.hash),
    );
    expect(stored).toHaveLength(2);
    for (const hash of stored) {
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      expect([created.apiKey, key.api_key]).not.toContain(hash);
    }
  });

  it("revokes a key: 204, and the key fails from the next request on", async () => {
    const created = await createAccount(1);
    expect((await request("/v1/account", { headers: keyHeaders(created.apiKey) })).status).toBe(200);
    const res = await request(`/v1/admin/accounts/${created.accountId}/keys/${created.keyId}`, { method: "DELETE", headers: adminHeaders() });
    expect(res.status).toBe(204);
    const after = await request("/v1/account", { headers: keyHeaders(created.apiKey) });
    expect(after.status).toBe(401);
    expect(await after.json()).toMatchObject({ error: { code: "invalid_api_key" } });
  });

  it("adds and removes credits with ledger rows carrying the reason", async () => {
    const created = await createAccount();
    const add = await request(`/v1/admin/accounts/${created.accountId}/credits`, { method: "POST", headers: adminHeaders(), body: JSON.stringify({ amount: 10, reason: "invoice 1" }) });
    expect(add.status).toBe(200);
    expect(await add.json()).toEqual({ balance: 15 });
    const remove = await request(`/v1/admin/accounts/${created.accountId}/credits`, { method: "POST", headers: adminHeaders(), body: JSON.stringify({ amount: -15, reason: "chargeback" }) });
    expect(remove.status).toBe(200);
    expect(await remove.json()).toEqual({ balance: 0 });
    expect(await accountStub(created.accountId).ledger()).toMatchObject([
      { kind: "trial", amount: 5 },
      { kind: "topup", amount: 10, reason: "invoice 1" },
      { kind: "adjustment", amount: -15, reason: "chargeback" },
    ]);
    const account = await request("/v1/account", { headers: keyHeaders(created.apiKey) });
    expect(await account.json()).toMatchObject({ balance: 0, trial: false });
  });
});
