/**
 * @module Webhook signature verification per the Standard Webhooks specification
 * (standardwebhooks.com, "Verifying webhook authenticity").
 *
 * Signed content is `${webhook-id}.${webhook-timestamp}.${raw body}`, HMAC-SHA256 with the
 * secret's bytes (base64 after the `whsec_` prefix). `webhook-signature` holds one or more
 * space-separated `v1,<base64>` entries (several during a secret rotation); any match verifies.
 * The timestamp must be within the tolerance of now, against replays of old deliveries.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { WebhookVerificationError } from "./errors.js";
import type { WebhookPayload } from "./types.js";

export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Allowed clock difference, seconds. Default 300. */
  toleranceSeconds?: number;
  /** Now, ms since the epoch (tests). */
  now?: number;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value.join(" ") : value;
}

function secretBytes(secret: string): Buffer {
  const encoded = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret;
  const bytes = Buffer.from(encoded, "base64");
  if (bytes.length === 0) throw new WebhookVerificationError("the webhook secret is empty or not base64");
  return bytes;
}

/** HMAC of the signed content, base64, as the sender computes it. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string | Uint8Array): string {
  const hmac = createHmac("sha256", secretBytes(secret));
  hmac.update(`${id}.${timestamp}.`);
  hmac.update(body);
  return `v1,${hmac.digest("base64")}`;
}

/**
 * Verifies a delivery and returns its parsed payload; throws WebhookVerificationError otherwise.
 * Pass the raw body exactly as received: re-serialised JSON would not match the signature.
 */
export function verifyWebhook(secret: string, headers: WebhookHeaders, body: string | Uint8Array, options: VerifyOptions = {}): WebhookPayload {
  const id = header(headers, "webhook-id");
  const timestampText = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestampText || !signatures) throw new WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature header");
  if (!/^\d+$/.test(timestampText)) throw new WebhookVerificationError("webhook-timestamp is not an integer");
  const timestamp = Number(timestampText);
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  const tolerance = options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  if (Math.abs(nowSeconds - timestamp) > tolerance) throw new WebhookVerificationError(`webhook-timestamp is more than ${tolerance} s from now`);

  const expected = Buffer.from(signWebhook(secret, id, timestamp, body).slice("v1,".length), "base64");
  const matches = signatures
    .split(" ")
    .filter((entry) => entry.startsWith("v1,"))
    .some((entry) => {
      const given = Buffer.from(entry.slice("v1,".length), "base64");
      // timingSafeEqual needs equal lengths; a length mismatch reveals nothing secret.
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  if (!matches) throw new WebhookVerificationError("no webhook-signature matches");
  const text = typeof body === "string" ? body : Buffer.from(body).toString("utf8");
  try {
    return JSON.parse(text) as WebhookPayload;
  } catch {
    throw new WebhookVerificationError("the webhook body is not JSON");
  }
}
