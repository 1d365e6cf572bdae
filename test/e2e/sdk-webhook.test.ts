/** Webhook verification in the SDK, per Standard Webhooks: what passes and what must not. */
import { describe, expect, it } from "vitest";
import { WebhookVerificationError, signWebhook, verifyWebhook } from "../../clients/typescript/src/index.js";

const SECRET = `whsec_${Buffer.from("a test secret of 32 bytes.......").toString("base64")}`;
const NOW = Date.UTC(2026, 10, 25, 10, 0, 0);
const TS = Math.floor(NOW / 1000);
const BODY = JSON.stringify({ type: "reconstruction.completed", timestamp: "2026-11-25T10:00:00Z", data: { id: "rec_aaaaaaaaaaaaaaaaaaaaaaaa", status: "completed" } });

function headers(overrides: Record<string, string> = {}): Record<string, string> {
  return { "webhook-id": "msg_1", "webhook-timestamp": String(TS), "webhook-signature": signWebhook(SECRET, "msg_1", TS, BODY), ...overrides };
}

function rejection(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return (error as Error).message;
  }
  throw new Error("verification passed but should have failed");
}

describe("verifyWebhook", () => {
  it("matches the Standard Webhooks reference vector", () => {
    // From the specification's reference libraries (standard-webhooks, tests).
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const signature = signWebhook(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, '{"test": 2432232314}');
    expect(signature).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("accepts a valid delivery and returns its payload", () => {
    const payload = verifyWebhook(SECRET, headers(), BODY, { now: NOW });
    expect(payload.type).toBe("reconstruction.completed");
    expect(payload.data.id).toBe("rec_aaaaaaaaaaaaaaaaaaaaaaaa");
  });

  it("accepts Headers objects, Buffer bodies and any matching signature among several", () => {
    const many = `v1,${Buffer.alloc(32).toString("base64")} v2,whatever ${signWebhook(SECRET, "msg_1", TS, BODY)}`;
    expect(verifyWebhook(SECRET, new Headers(headers({ "webhook-signature": many })), Buffer.from(BODY), { now: NOW }).type).toBe("reconstruction.completed");
  });

  it("accepts a timestamp just inside the 5-minute tolerance", () => {
    expect(() => verifyWebhook(SECRET, headers(), BODY, { now: NOW + 299_000 })).not.toThrow();
  });

  it("refuses a tampered body", () => {
    expect(rejection(() => verifyWebhook(SECRET, headers(), BODY.replace("completed", "failed"), { now: NOW }))).toMatch(/signature/);
  });

  it("refuses a replayed (old) or future timestamp", () => {
    expect(rejection(() => verifyWebhook(SECRET, headers(), BODY, { now: NOW + 301_000 }))).toMatch(/timestamp/);
    expect(rejection(() => verifyWebhook(SECRET, headers(), BODY, { now: NOW - 301_000 }))).toMatch(/timestamp/);
  });

  it("refuses a signature made for another timestamp (replay with a fresh timestamp)", () => {
    const old = TS - 3600;
    const replay = headers({ "webhook-timestamp": String(TS), "webhook-signature": signWebhook(SECRET, "msg_1", old, BODY) });
    expect(rejection(() => verifyWebhook(SECRET, replay, BODY, { now: NOW }))).toMatch(/signature/);
  });

  it("refuses the wrong secret", () => {
    const other = `whsec_${Buffer.from("another secret of 32 bytes......").toString("base64")}`;
    expect(rejection(() => verifyWebhook(other, headers(), BODY, { now: NOW }))).toMatch(/signature/);
  });

  it("refuses missing headers, a truncated signature and a non-numeric timestamp", () => {
    expect(rejection(() => verifyWebhook(SECRET, { "webhook-id": "msg_1" }, BODY, { now: NOW }))).toMatch(/missing/);
    const short = headers()["webhook-signature"].slice(0, 20);
    expect(rejection(() => verifyWebhook(SECRET, headers({ "webhook-signature": short }), BODY, { now: NOW }))).toMatch(/signature/);
    expect(rejection(() => verifyWebhook(SECRET, headers({ "webhook-timestamp": "1e9" }), BODY, { now: NOW }))).toMatch(/timestamp/);
  });
});
