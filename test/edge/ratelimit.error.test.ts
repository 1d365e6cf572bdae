import { createExecutionContext, runDurableObjectAlarm, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { Hono } from "hono";
import { beforeEach, describe, expect, it } from "vitest";
import type { AppEnv } from "../../edge/app-env.js";
import { requireApiKey } from "../../edge/access/auth.js";
import type { Env } from "../../edge/env.js";
import { ApiError } from "../../edge/errors.js";
import { rateLimit } from "../../edge/access/rate-limit.js";
import { awayFromWindowEnd, BASE, createAccount, env, keyHeaders, requestWithVars } from "./helpers.js";

const SMALL = { RATE_LIMIT_REQUESTS: "3", RATE_LIMIT_CREATES: "2", RATE_LIMIT_WINDOW_SECONDS: "60" };

function limiterOf(caller: string) {
  return env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(caller));
}

async function storedCounts(caller: string): Promise<Record<string, number>> {
  return runInDurableObject(limiterOf(caller), (_instance, state) =>
    Object.fromEntries(state.storage.sql.exec<{ name: string; count: number }>("SELECT name, count FROM counters").toArray().map((r) => [r.name, r.count])),
  );
}

/** The creation route's middleware stack (requireApiKey, rateLimit), on a probe route. */
function probeApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post("/v1/probe", requireApiKey(), rateLimit("request"), rateLimit("create"), (c) => c.json({ ok: true }, 202));
  app.onError((err, c) => {
    if (!(err instanceof ApiError)) throw err;
    for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
    return c.json({ error: { code: err.code, message: err.message, suggestion: err.suggestion } }, err.status as 429);
  });
  return app;
}

async function probe(apiKey: string): Promise<Response> {
  const ctx = createExecutionContext();
  const vars = { ...env, ...SMALL, RATE_LIMIT_REQUESTS: "10" } as unknown as Env;
  const res = await probeApp().fetch(new Request(`${BASE}/v1/probe`, { method: "POST", headers: keyHeaders(apiKey) }), vars, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("rate limits exceeded", () => {
  beforeEach(() => awayFromWindowEnd(60, 20), 30_000);

  it("answers 429 rate_limited with Retry-After and zero remaining once the budget is spent", async () => {
    const { accountId, apiKey } = await createAccount(1, { address: "192.0.2.50" });
    for (let i = 0; i < 3; i++) expect((await requestWithVars("/v1/account", SMALL, { headers: keyHeaders(apiKey) })).status).toBe(200);
    const res = await requestWithVars("/v1/account", SMALL, { headers: keyHeaders(apiKey) });
    expect(res.status).toBe(429);
    expect(await res.json()).toMatchObject({ error: { code: "rate_limited" } });
    const retryAfter = Number(res.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(res.headers.get("RateLimit-Policy")).toBe('"default";q=3;w=60');
    expect(res.headers.get("RateLimit")).toBe(`"default";r=0;t=${retryAfter}`);
    expect(res.headers.get("X-RateLimit-Remaining")).toBe("0");
    expect(await storedCounts(`account:${accountId}`)).toEqual({ request: 4 });
  });

  it("answers 401 before 429: an address over its limit still hears that its key is bad", async () => {
    const headers = { Authorization: "Bearer pk_live_wrong", "CF-Connecting-IP": "192.0.2.77" };
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 5; i++) {
      last = await requestWithVars("/v1/account", SMALL, { headers });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    expect(await last!.json()).toMatchObject({ error: { code: "invalid_api_key" } });
    expect(last!.headers.get("X-RateLimit-Remaining")).toBe("0");
    expect(await storedCounts("address:192.0.2.77")).toEqual({ request: 5 });
  });

  it("limits an address on unknown /v1 paths too (404 until the budget is spent, then 429)", async () => {
    const headers = { "CF-Connecting-IP": "192.0.2.88" };
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await requestWithVars("/v1/nope", SMALL, { headers })).status);
    expect(statuses).toEqual([404, 404, 404, 429]);
  });

  it("an address's unauthenticated failures do not spend the account's budget", async () => {
    const { apiKey } = await createAccount(1, { address: "192.0.2.90" });
    const headers = { "CF-Connecting-IP": "192.0.2.91" };
    for (let i = 0; i < 4; i++) await requestWithVars("/v1/account", SMALL, { headers });
    const res = await requestWithVars("/v1/account", SMALL, { headers: keyHeaders(apiKey, headers) });
    expect(res.status).toBe(200);
    expect(res.headers.get("X-RateLimit-Remaining")).toBe("2");
  });

  it("a creation attempt spends both budgets, each once, and the creation budget runs out first", async () => {
    const { accountId, apiKey } = await createAccount(1, { address: "192.0.2.95" });
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 3; i++) {
      last = await probe(apiKey);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([202, 202, 429]);
    expect(await last!.json()).toMatchObject({ error: { code: "rate_limited" } });
    expect(last!.headers.get("RateLimit-Policy")).toBe('"default";q=10;w=60, "create";q=2;w=60');
    expect(last!.headers.get("RateLimit")).toMatch(/^"default";r=7;t=\d+, "create";r=0;t=\d+$/);
    expect(last!.headers.get("X-RateLimit-Limit")).toBe("2");
    expect(last!.headers.get("X-RateLimit-Remaining")).toBe("0");
    expect(Number(last!.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(await storedCounts(`account:${accountId}`)).toEqual({ request: 3, create: 3 });
  });
});

describe("RateLimiterObject cleanup", () => {
  it("deletes its storage with an alarm once every window is over", async () => {
    const stub = limiterOf("address:192.0.2.200");
    const [state] = await stub.hit([{ name: "request", limit: 5, windowSeconds: 1 }]);
    expect(state).toMatchObject({ count: 1, remaining: 4, allowed: true });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, state.resetAt * 1000 - Date.now()) + 50));
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const tables = await runInDurableObject(stub, (_instance, s) => s.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table'").toArray());
    expect(tables).toEqual([]);
    const [fresh] = await stub.hit([{ name: "request", limit: 5, windowSeconds: 1 }]);
    expect(fresh.count).toBe(1);
  });
});
