import { describe, expect, it } from "vitest";
import { createAccount, keyHeaders, request } from "./helpers.js";

describe("rate-limit headers", () => {
  it("carries the IETF and X- headers on a 200, with the production defaults", async () => {
    const { apiKey } = await createAccount(1);
    const nowSeconds = Math.floor(Date.now() / 1000);
    const res = await request("/v1/account", { headers: keyHeaders(apiKey) });
    expect(res.status).toBe(200);
    expect(res.headers.get("RateLimit-Policy")).toBe('"default";q=120;w=60');
    expect(res.headers.get("RateLimit")).toMatch(/^"default";r=119;t=([1-5]?\d|60)$/);
    expect(res.headers.get("X-RateLimit-Limit")).toBe("120");
    expect(res.headers.get("X-RateLimit-Remaining")).toBe("119");
    const reset = Number(res.headers.get("X-RateLimit-Reset"));
    expect(reset).toBeGreaterThan(nowSeconds);
    expect(reset).toBeLessThanOrEqual(nowSeconds + 61);
    expect(res.headers.get("Retry-After")).toBeNull();
  });

  it("counts down per account, independently of other accounts", async () => {
    const first = await createAccount(1);
    const second = await createAccount(1);
    await request("/v1/account", { headers: keyHeaders(first.apiKey) });
    const again = await request("/v1/account", { headers: keyHeaders(first.apiKey) });
    expect(again.headers.get("X-RateLimit-Remaining")).toBe("118");
    const other = await request("/v1/account", { headers: keyHeaders(second.apiKey) });
    expect(other.headers.get("X-RateLimit-Remaining")).toBe("119");
  });

  it("puts headers on 401 and 404 answers, counted per client address", async () => {
    const unauthorised = await request("/v1/account", { headers: { "CF-Connecting-IP": "203.0.113.9" } });
    expect(unauthorised.status).toBe(401);
    expect(await unauthorised.json()).toMatchObject({ error: { code: "missing_api_key" } });
    expect(unauthorised.headers.get("X-RateLimit-Remaining")).toBe("119");
    const missing = await request("/v1/no-such-thing", { headers: { "CF-Connecting-IP": "203.0.113.9" } });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: "not_found" } });
    expect(missing.headers.get("RateLimit-Policy")).toBe('"default";q=120;w=60');
    expect(missing.headers.get("X-RateLimit-Remaining")).toBe("118");
    const elsewhere = await request("/v1/no-such-thing", { headers: { "X-Forwarded-For": "198.51.100.7, 10.0.0.1" } });
    expect(elsewhere.headers.get("X-RateLimit-Remaining")).toBe("119");
  });

  it("puts no API rate-limit headers on the CDN route or the health check", async () => {
    for (const path of ["/cdn/anything", "/healthz"]) {
      const res = await request(path);
      expect(res.headers.get("RateLimit-Policy")).toBeNull();
      expect(res.headers.get("X-RateLimit-Limit")).toBeNull();
    }
  });
});
