/**
 * @module Webhook events of one reconstruction: each type is handed to the owner's AccountObject
 * once (a marker row per type, written after the hand-over succeeded; the AccountObject also
 * ignores a repeat), with the status record of that moment as `data`.
 */
import type { StatusRecord } from "../../shared/records.js";
import type { WebhookEventType, WebhookPayload } from "../../shared/webhooks.js";
import type { Env } from "../env.js";

const EMITTED_SQL = `CREATE TABLE IF NOT EXISTS webhook_events_emitted (type TEXT PRIMARY KEY, at TEXT NOT NULL)`;

/** Emits `type` unless it was emitted before; throws when the account could not be told (the caller retries). */
export async function emitOnce(sql: SqlStorage, env: Env, accountId: string, type: WebhookEventType, record: StatusRecord): Promise<void> {
  sql.exec(EMITTED_SQL);
  if (sql.exec(`SELECT 1 FROM webhook_events_emitted WHERE type = ?`, type).toArray().length > 0) return;
  const payload: WebhookPayload = { type, timestamp: new Date().toISOString(), data: record };
  const account = env.ACCOUNTS.get(env.ACCOUNTS.idFromName(accountId));
  await account.emitWebhookEvent({ type, reconstructionId: record.id, body: JSON.stringify(payload) });
  sql.exec(`INSERT OR IGNORE INTO webhook_events_emitted (type, at) VALUES (?, ?)`, type, payload.timestamp);
}
