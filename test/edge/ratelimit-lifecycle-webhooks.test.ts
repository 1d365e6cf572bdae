/** The new endpoints (cancel, delete, webhooks) count against the request budget and answer 429 over it, with the headers. */
import { beforeEach, describe, expect, it } from "vitest";
import { awayFromWindowEnd, createAccount, keyHeaders, requestWithVars } from "./helpers.js";
import { createReconstruction } from "./reconstruction-support.js";

const SMALL = { RATE_LIMIT_REQUESTS: "3", RATE_LIMIT_WINDOW_SECONDS: "60" };

describe("rate limits on cancel, delete and webhooks", () => {
  beforeEach(() => awayFromWindowEnd(60, 20), 30_000);

  it("answers 429 rate_limited with Retry-After once the budget is spent, and changes nothing", async () => {
    const { account, id } = await createReconstruction(await createAccount(2));
    // The creation above was request 1 of 3 in this window.
    const calls: Array<[string, RequestInit]> = [
      ["/v1/webhooks", { headers: keyHeaders(account.apiKey) }],
      ["/v1/webhooks", { headers: keyHeaders(account.apiKey) }],
    ];
    for (const [path, init] of calls) expect((await requestWithVars(path, SMALL, init)).status).toBe(200);
    for (const [path, init] of [
      [`/v1/reconstruction/${id}/cancel`, { method: "POST", headers: keyHeaders(account.apiKey) }],
      [`/v1/reconstruction/${id}`, { method: "DELETE", headers: keyHeaders(account.apiKey) }],
      ["/v1/webhooks", { method: "POST", headers: keyHeaders(account.apiKey, { "Content-Type": "application/json" }), body: JSON.stringify({ url: "http://127.0.0.1:9/" }) }],
    ] as Array<[string, RequestInit]>) {
      const res = await requestWithVars(path, SMALL, init);
      expect(res.status, path).toBe(429);
      expect(await res.json()).toMatchObject({ error: { code: "rate_limited" } });
      expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(0);
      expect(res.headers.get("RateLimit")).toMatch(/r=0/);
    }
    const status = await requestWithVars(`/v1/reconstruction/${id}/status`, {}, { headers: keyHeaders(account.apiKey) });
    expect(await status.json()).toMatchObject({ status: "pending" });
  });
});
