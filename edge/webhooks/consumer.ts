/**
 * @module The webhook delivery queue's consumer: one attempt per message, signed per Standard
 * Webhooks, recorded in the account's object, retried with back-off.
 *
 * Why the queue's own `retry({delaySeconds})` and not an alarm in a Durable Object: the queue
 * already persists and redelivers messages and spreads attempts over consumers, and the
 * AccountObject stays the source of truth (attempt count, next attempt time, endpoint state),
 * so a duplicate or early message is harmless: `planAttempt` answers `done` or `wait`. The one
 * limit, a 12 h maximum delay per message, is met by waiting in hops (a `wait` plan re-delays
 * without attempting). An alarm would need a per-account timer multiplexing many deliveries
 * for the same guarantees.
 */
import { WebhookMessage } from "../../shared/webhooks.js";
import type { Env } from "../env.js";
import { configOf } from "../env.js";
import { MAX_QUEUE_DELAY_SECONDS } from "./schedule.js";
import { signWebhook } from "./signing.js";
import { refuseWebhookUrl, urlPolicyOf } from "./url-policy.js";

export const WEBHOOK_QUEUE = "webhook-deliveries";
/** Standard Webhooks suggests a short timeout; a slow endpoint counts as failed and is retried. */
const ATTEMPT_TIMEOUT_MS = 15_000;

export async function handleWebhookBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const parsed = WebhookMessage.safeParse(message.body);
    if (!parsed.success) {
      message.ack(); // a malformed message can never succeed
      continue;
    }
    const account = env.ACCOUNTS.get(env.ACCOUNTS.idFromName(parsed.data.account_id));
    const plan = await account.planWebhookAttempt(parsed.data.delivery_id);
    if (plan.action === "done") message.ack();
    else if (plan.action === "wait") message.retry({ delaySeconds: Math.min(plan.seconds, MAX_QUEUE_DELAY_SECONDS) });
    else {
      const result = await attempt(env, plan);
      const next = await account.recordWebhookAttempt(plan.id, result);
      if (next.next === "retry") message.retry({ delaySeconds: Math.min(withJitter(next.delaySeconds), MAX_QUEUE_DELAY_SECONDS) });
      else message.ack();
    }
  }
}

/**
 * Up to 10 % later than scheduled (Standard Webhooks recommends jitter, so endpoints that failed
 * together are not retried together). The recorded next_attempt_at stays the schedule's time;
 * the consumer never attempts earlier than it.
 */
function withJitter(seconds: number): number {
  return seconds + Math.floor(Math.random() * seconds * 0.1);
}

/** POSTs one signed attempt; never throws (a network error is a failed attempt with its reason). */
export async function attempt(env: Env, plan: { url: string; secret: string; body: string; id: string }): Promise<{ responseStatus: number | null; error: string | null; durationMs: number }> {
  const started = Date.now();
  const config = configOf(env);
  // Checked again at delivery: the policy may have changed since the endpoint was registered.
  const refused = refuseWebhookUrl(plan.url, urlPolicyOf(config.BASE_URL, env.WEBHOOK_ALLOW_PRIVATE_URLS));
  if (refused) return { responseStatus: null, error: refused, durationMs: 0 };
  const timestamp = Math.floor(Date.now() / 1000);
  try {
    const res = await fetch(plan.url, {
      method: "POST",
      // Redirects are not followed (Standard Webhooks: a 3xx is a failure; update the URL instead).
      redirect: "manual",
      signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      headers: {
        "content-type": "application/json",
        "user-agent": "photogrammetry-webhooks/1",
        "webhook-id": plan.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": await signWebhook(plan.secret, plan.id, timestamp, plan.body),
      },
      body: plan.body,
    });
    await res.body?.cancel();
    return { responseStatus: res.status, error: null, durationMs: Date.now() - started };
  } catch (err) {
    return { responseStatus: null, error: String(err).slice(0, 300), durationMs: Date.now() - started };
  }
}
