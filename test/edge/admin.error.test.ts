import { describe, expect, it } from "vitest";
import { accountStub, adminHeaders, createAccount, request } from "./helpers.js";

const UNKNOWN_ACCOUNT = "acc_0000000000000000000000";

async function postCredits(accountId: string, body: unknown): Promise<Response> {
  return request(`/v1/admin/accounts/${accountId}/credits`, { method: "POST", headers: adminHeaders(), body: JSON.stringify(body) });
}

describe("operator API: errors", () => {
  it("refuses credits that would take the balance below 0, changing nothing", async () => {
    const created = await createAccount(3);
    const res = await postCredits(created.accountId, { amount: -4, reason: "too much" });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "invalid_request" } });
    expect(await accountStub(created.accountId).balance()).toBe(3);
    expect(await accountStub(created.accountId).ledger()).toHaveLength(1);
  });

  it("counts open reservations when refusing a negative amount", async () => {
    const created = await createAccount(1);
    expect(await accountStub(created.accountId).reserveCredit("rec_reservedreservedreserved")).toMatchObject({ ok: true });
    const res = await postCredits(created.accountId, { amount: -1, reason: "would strand the reservation" });
    expect(res.status).toBe(400);
    expect(await accountStub(created.accountId).ledger()).toHaveLength(1);
  });

  it.each([
    ["not JSON", "{"],
    ["missing reason", JSON.stringify({ amount: 5 })],
    ["empty reason", JSON.stringify({ amount: 5, reason: "  " })],
    ["zero amount", JSON.stringify({ amount: 0, reason: "nothing" })],
    ["fractional amount", JSON.stringify({ amount: 1.5, reason: "half" })],
    ["string amount", JSON.stringify({ amount: "5", reason: "text" })],
  ])("rejects a credits body with %s as invalid_request, no ledger row", async (_label, body) => {
    const created = await createAccount(2);
    const res = await request(`/v1/admin/accounts/${created.accountId}/credits`, { method: "POST", headers: adminHeaders(), body });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "invalid_request" } });
    expect(await accountStub(created.accountId).ledger()).toHaveLength(1);
  });

  it.each([
    ["missing email", {}],
    ["bad email", { email: "not-an-email" }],
    ["negative credits", { email: "a@example.com", credits: -1 }],
    ["fractional credits", { email: "a@example.com", credits: 2.5 }],
  ])("rejects an account body with %s as invalid_request", async (_label, body) => {
    const res = await request("/v1/admin/accounts", { method: "POST", headers: adminHeaders(), body: JSON.stringify(body) });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "invalid_request" } });
  });

  it.each([
    ["new key", "POST", `/v1/admin/accounts/${UNKNOWN_ACCOUNT}/keys`, undefined],
    ["credits", "POST", `/v1/admin/accounts/${UNKNOWN_ACCOUNT}/credits`, { amount: 1, reason: "x" }],
    ["revoke", "DELETE", `/v1/admin/accounts/${UNKNOWN_ACCOUNT}/keys/key_0000000000000000`, undefined],
    ["malformed id", "POST", "/v1/admin/accounts/not-an-account/keys", undefined],
  ])("answers 404 not_found for an unknown account (%s) and creates nothing", async (_label, method, path, body) => {
    const res = await request(path, { method, headers: adminHeaders(), body: body === undefined ? undefined : JSON.stringify(body) });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: "not_found" } });
    expect(await accountStub(UNKNOWN_ACCOUNT).exists()).toBe(false);
  });

  it("answers 404 for revoking an unknown key of a real account, the real key still works", async () => {
    const created = await createAccount(1);
    const res = await request(`/v1/admin/accounts/${created.accountId}/keys/key_0000000000000000`, { method: "DELETE", headers: adminHeaders() });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: "not_found" } });
    expect((await request("/v1/account", { headers: { Authorization: `Bearer ${created.apiKey}` } })).status).toBe(200);
  });
});
