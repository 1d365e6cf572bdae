import { describe, expect, it } from "vitest";
import { accountStub, createAccount, request } from "./helpers.js";

const CASES: Array<[string, Record<string, string>, string]> = [
  ["no Authorization header", {}, "missing_api_key"],
  ["a non-Bearer scheme", { Authorization: "Basic dGVzdC1hZG1pbi10b2tlbg==" }, "missing_api_key"],
  ["a wrong token", { Authorization: "Bearer test-admin-token-wrong" }, "invalid_api_key"],
  ["a prefix of the token", { Authorization: "Bearer test-admin" }, "invalid_api_key"],
];

describe("operator API: security", () => {
  it.each(CASES)("refuses account creation with %s (401)", async (_label, headers, code) => {
    const res = await request("/v1/admin/accounts", {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json" },
      body: JSON.stringify({ email: "intruder@example.com", credits: 1000 }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code } });
    expect(res.headers.get("RateLimit-Policy")).toMatch(/^"default";q=\d+;w=\d+/);
  });

  it.each(CASES)("refuses a credit change with %s, ledger unchanged", async (_label, headers, code) => {
    const created = await createAccount(1);
    const res = await request(`/v1/admin/accounts/${created.accountId}/credits`, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json" },
      body: JSON.stringify({ amount: 1000, reason: "free money" }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code } });
    expect(await accountStub(created.accountId).ledger()).toHaveLength(1);
    expect(await accountStub(created.accountId).balance()).toBe(1);
  });

  it("does not accept an account's API key as the operator token", async () => {
    const created = await createAccount(1);
    const res = await request(`/v1/admin/accounts/${created.accountId}/keys/${created.keyId}`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${created.apiKey}` },
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: "invalid_api_key" } });
    expect((await request("/v1/account", { headers: { Authorization: `Bearer ${created.apiKey}` } })).status).toBe(200);
  });
});
