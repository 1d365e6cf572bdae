import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { accountStub, adminHeaders, createAccount, keyHeaders, request } from "./helpers.js";

function expectRateLimitHeaders(res: Response): void {
  expect(res.headers.get("RateLimit-Policy")).toMatch(/^"default";q=\d+;w=\d+$/);
  expect(res.headers.get("RateLimit")).toMatch(/^"default";r=\d+;t=\d+$/);
  expect(res.headers.get("X-RateLimit-Limit")).toMatch(/^\d+$/);
  expect(res.headers.get("X-RateLimit-Remaining")).toMatch(/^\d+$/);
  expect(res.headers.get("X-RateLimit-Reset")).toMatch(/^\d{10}$/);
}

async function expect401(res: Response, code: string): Promise<void> {
  expect(res.status).toBe(401);
  expect(await res.json()).toMatchObject({ error: { code } });
  expectRateLimitHeaders(res);
}

describe("API key authentication (GET /v1/account)", () => {
  it("missing Authorization header → missing_api_key", async () => {
    await expect401(await request("/v1/account"), "missing_api_key");
  });

  it.each([
    ["Basic", "Basic dXNlcjpwYXNz"],
    ["Token", "Token pk_live_x"],
    ["empty Bearer", "Bearer "],
  ])("a non-Bearer or empty credential (%s) → missing_api_key", async (_label, header) => {
    await expect401(await request("/v1/account", { headers: { Authorization: header } }), "missing_api_key");
  });

  it.each([
    ["garbage", "hello"],
    ["truncated", "pk_live_abc"],
    ["extra segment", "pk_live_4Fq9zXc2Lm8Rt1Vb6Nw3Yp_7Hs2Kd9Qw1Ze5Rx3_Jm2Xc8Vb4Nq7Lp1Zt6Rw9Ys3Ke5Ha0Ud_x"],
    ["the admin token", "test-admin-token"],
  ])("a malformed key (%s) → invalid_api_key", async (_label, key) => {
    await expect401(await request("/v1/account", { headers: keyHeaders(key) }), "invalid_api_key");
  });

  it("a well-formed key of an account that does not exist → invalid_api_key, and no storage is created", async () => {
    const forged = "pk_live_4Fq9zXc2Lm8Rt1Vb6Nw3Yp_7Hs2Kd9Qw1Ze5Rx3_Jm2Xc8Vb4Nq7Lp1Zt6Rw9Ys3Ke5Ha0Ud";
    await expect401(await request("/v1/account", { headers: keyHeaders(forged) }), "invalid_api_key");
    const tables = await runInDurableObject(accountStub("acc_4Fq9zXc2Lm8Rt1Vb6Nw3Yp"), (_instance, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table'").toArray(),
    );
    expect(tables).toEqual([]);
  });

  it("a real key with its secret changed → invalid_api_key", async () => {
    const created = await createAccount(1);
    const last = created.apiKey.at(-1) === "A" ? "B" : "A";
    await expect401(await request("/v1/account", { headers: keyHeaders(created.apiKey.slice(0, -1) + last) }), "invalid_api_key");
  });

  it("a real key id moved onto another account → invalid_api_key", async () => {
    const victim = await createAccount(1);
    const attacker = await createAccount(1);
    const [, , , keyPart, secret] = attacker.apiKey.split("_");
    const spliced = `pk_live_${victim.accountId.slice(4)}_${keyPart}_${secret}`;
    await expect401(await request("/v1/account", { headers: keyHeaders(spliced) }), "invalid_api_key");
  });

  it("a revoked key works before revocation and fails right after", async () => {
    const created = await createAccount(1);
    const before = await request("/v1/account", { headers: keyHeaders(created.apiKey) });
    expect(before.status).toBe(200);
    expectRateLimitHeaders(before);
    const revoke = await request(`/v1/admin/accounts/${created.accountId}/keys/${created.keyId}`, { method: "DELETE", headers: adminHeaders() });
    expect(revoke.status).toBe(204);
    await expect401(await request("/v1/account", { headers: keyHeaders(created.apiKey) }), "invalid_api_key");
    const revokedAt = await runInDurableObject(accountStub(created.accountId), (_instance, state) =>
      state.storage.sql.exec<{ revoked_at: string | null }>("SELECT revoked_at FROM api_keys").one().revoked_at,
    );
    expect(revokedAt).not.toBeNull();
  });

  it("accepts the Bearer scheme case-insensitively (RFC 9110)", async () => {
    const created = await createAccount(1);
    expect((await request("/v1/account", { headers: { Authorization: `bearer ${created.apiKey}` } })).status).toBe(200);
  });
});
