/**
 * @module Webhook endpoints, deliveries and attempts of one account, in its AccountObject's
 * SQLite (functions over its SqlStorage; the object only delegates, synchronously, so each
 * call is atomic).
 *
 * A delivery is one event for one endpoint; its id is the `webhook-id` of every attempt. The
 * pair (endpoint, event key) is unique, so an event emitted twice is delivered once.
 */
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEventType } from "../../shared/webhooks.js";
import type { WebhookSchedule } from "./schedule.js";

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS webhook_endpoints (
    id TEXT PRIMARY KEY, url TEXT NOT NULL, events TEXT NOT NULL, secret TEXT NOT NULL, created_at TEXT NOT NULL,
    disabled_at TEXT, disabled_reason TEXT, failing_since_ms INTEGER);
  CREATE TABLE IF NOT EXISTS webhook_deliveries (
    id TEXT PRIMARY KEY, endpoint_id TEXT NOT NULL, event_key TEXT NOT NULL, event_type TEXT NOT NULL,
    reconstruction_id TEXT NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at_ms INTEGER);
  CREATE UNIQUE INDEX IF NOT EXISTS webhook_delivery_once ON webhook_deliveries (endpoint_id, event_key);
  CREATE TABLE IF NOT EXISTS webhook_attempts (
    delivery_id TEXT NOT NULL, attempt INTEGER NOT NULL, at TEXT NOT NULL, response_status INTEGER, error TEXT,
    duration_ms INTEGER NOT NULL, PRIMARY KEY (delivery_id, attempt));`;

export const MAX_ENDPOINTS_PER_ACCOUNT = 20;
const DELIVERIES_LISTED = 100;
/** Longer than one attempt can take (15 s timeout); a consumer that died mid-attempt is retried after it. */
const ATTEMPT_LEASE_MS = 60_000;

interface EndpointRow {
  id: string;
  url: string;
  events: string;
  secret: string;
  created_at: string;
  disabled_at: string | null;
  disabled_reason: string | null;
  failing_since_ms: number | null;
}

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_type: string;
  reconstruction_id: string;
  body: string;
  created_at: string;
  status: "pending" | "succeeded" | "failed";
  attempts: number;
  next_attempt_at_ms: number | null;
}

function rows<T>(cursor: SqlStorageCursor<Record<string, SqlStorageValue>>): T[] {
  return cursor.toArray() as unknown as T[];
}

function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return { id: row.id, url: row.url, events: JSON.parse(row.events) as WebhookEventType[], created_at: row.created_at, disabled: row.disabled_at !== null, disabled_reason: row.disabled_reason };
}

export function createEndpoint(sql: SqlStorage, input: { id: string; url: string; events: WebhookEventType[]; secret: string }): WebhookEndpoint | "too_many" {
  sql.exec(SCHEMA);
  const count = sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM webhook_endpoints`).one().n;
  if (count >= MAX_ENDPOINTS_PER_ACCOUNT) return "too_many";
  const createdAt = new Date().toISOString();
  sql.exec(`INSERT INTO webhook_endpoints (id, url, events, secret, created_at) VALUES (?, ?, ?, ?, ?)`, input.id, input.url, JSON.stringify(input.events), input.secret, createdAt);
  return toEndpoint({ ...input, events: JSON.stringify(input.events), created_at: createdAt, disabled_at: null, disabled_reason: null, failing_since_ms: null });
}

export function listEndpoints(sql: SqlStorage): WebhookEndpoint[] {
  sql.exec(SCHEMA);
  return rows<EndpointRow>(sql.exec(`SELECT * FROM webhook_endpoints ORDER BY created_at, id`)).map(toEndpoint);
}

/** Removes the endpoint with its deliveries and attempts; false when there is none. */
export function deleteEndpoint(sql: SqlStorage, id: string): boolean {
  sql.exec(SCHEMA);
  if (sql.exec(`SELECT 1 FROM webhook_endpoints WHERE id = ?`, id).toArray().length === 0) return false;
  sql.exec(`DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id = ?)`, id);
  sql.exec(`DELETE FROM webhook_deliveries WHERE endpoint_id = ?`, id);
  sql.exec(`DELETE FROM webhook_endpoints WHERE id = ?`, id);
  return true;
}

/** One delivery per enabled endpoint subscribed to `type`; returns the ids of those new now. */
export function enqueueEvent(sql: SqlStorage, event: { type: WebhookEventType; reconstructionId: string; body: string }, newId: () => string, nowMs = Date.now()): string[] {
  sql.exec(SCHEMA);
  pruneFinished(sql, nowMs);
  const endpoints = rows<EndpointRow>(sql.exec(`SELECT * FROM webhook_endpoints WHERE disabled_at IS NULL`)).filter((e) => (JSON.parse(e.events) as string[]).includes(event.type));
  const created: string[] = [];
  for (const endpoint of endpoints) {
    const id = newId();
    const inserted = sql.exec(
      `INSERT OR IGNORE INTO webhook_deliveries (id, endpoint_id, event_key, event_type, reconstruction_id, body, created_at, status, next_attempt_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?)`,
      id, endpoint.id, `${event.reconstructionId}:${event.type}`, event.type, event.reconstructionId, event.body, new Date(nowMs).toISOString(), nowMs,
    ).rowsWritten;
    if (inserted > 0) created.push(id);
  }
  return created;
}

/** Finished deliveries are kept this long for the deliveries list, then dropped with their attempts. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

function pruneFinished(sql: SqlStorage, nowMs: number): void {
  const before = new Date(nowMs - DELIVERY_RETENTION_MS).toISOString();
  sql.exec(`DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE status != 'pending' AND created_at < ?)`, before);
  sql.exec(`DELETE FROM webhook_deliveries WHERE status != 'pending' AND created_at < ?`, before);
}

/** Removes deliveries never attempted (their queue messages could not be sent). */
export function forgetDeliveries(sql: SqlStorage, ids: string[]): void {
  for (const id of ids) sql.exec(`DELETE FROM webhook_deliveries WHERE id = ? AND attempts = 0`, id);
}

export type AttemptPlan =
  | { action: "send"; url: string; secret: string; body: string; id: string; attempt: number }
  | { action: "wait"; seconds: number }
  | { action: "done" };

/** What the queue consumer should do with a delivery now. */
export function planAttempt(sql: SqlStorage, deliveryId: string, nowMs = Date.now()): AttemptPlan {
  sql.exec(SCHEMA);
  const delivery = rows<DeliveryRow>(sql.exec(`SELECT * FROM webhook_deliveries WHERE id = ?`, deliveryId))[0];
  if (!delivery || delivery.status !== "pending") return { action: "done" };
  const endpoint = rows<EndpointRow>(sql.exec(`SELECT * FROM webhook_endpoints WHERE id = ?`, delivery.endpoint_id))[0];
  if (!endpoint || endpoint.disabled_at !== null) {
    sql.exec(`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at_ms = NULL WHERE id = ?`, deliveryId);
    return { action: "done" };
  }
  const wait = (delivery.next_attempt_at_ms ?? nowMs) - nowMs;
  if (wait > 1000) return { action: "wait", seconds: Math.ceil(wait / 1000) };
  // A lease: a duplicate message arriving while this attempt runs waits instead of sending twice.
  sql.exec(`UPDATE webhook_deliveries SET next_attempt_at_ms = ? WHERE id = ?`, nowMs + ATTEMPT_LEASE_MS, deliveryId);
  return { action: "send", url: endpoint.url, secret: endpoint.secret, body: delivery.body, id: delivery.id, attempt: delivery.attempts + 1 };
}

export interface AttemptResult {
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}

/**
 * Records one attempt and decides what follows: done (success, endpoint disabled, or retries
 * used up) or a retry after the schedule's delay. Any 2xx is a success (Standard Webhooks);
 * 410 Gone disables the endpoint at once, as does failing with no success for the configured time.
 */
export function recordAttempt(sql: SqlStorage, deliveryId: string, result: AttemptResult, schedule: WebhookSchedule, nowMs = Date.now()): { next: "done" } | { next: "retry"; delaySeconds: number } {
  sql.exec(SCHEMA);
  const delivery = rows<DeliveryRow>(sql.exec(`SELECT * FROM webhook_deliveries WHERE id = ?`, deliveryId))[0];
  if (!delivery || delivery.status !== "pending") return { next: "done" };
  const attempt = delivery.attempts + 1;
  const now = new Date(nowMs).toISOString();
  sql.exec(
    `INSERT OR REPLACE INTO webhook_attempts (delivery_id, attempt, at, response_status, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?)`,
    deliveryId, attempt, now, result.responseStatus, result.error, Math.max(0, Math.round(result.durationMs)),
  );
  sql.exec(`UPDATE webhook_deliveries SET attempts = ? WHERE id = ?`, attempt, deliveryId);
  const ok = result.responseStatus !== null && result.responseStatus >= 200 && result.responseStatus < 300;
  if (ok) {
    sql.exec(`UPDATE webhook_deliveries SET status = 'succeeded', next_attempt_at_ms = NULL WHERE id = ?`, deliveryId);
    sql.exec(`UPDATE webhook_endpoints SET failing_since_ms = NULL WHERE id = ?`, delivery.endpoint_id);
    return { next: "done" };
  }
  sql.exec(`UPDATE webhook_endpoints SET failing_since_ms = COALESCE(failing_since_ms, ?) WHERE id = ?`, nowMs, delivery.endpoint_id);
  const endpoint = rows<EndpointRow>(sql.exec(`SELECT * FROM webhook_endpoints WHERE id = ?`, delivery.endpoint_id))[0];
  const reason = !endpoint
    ? null
    : result.responseStatus === 410
      ? `The endpoint answered 410 Gone on ${now}.`
      : nowMs - endpoint.failing_since_ms! >= schedule.disableAfterSeconds * 1000
        ? `Every delivery failed from ${new Date(endpoint.failing_since_ms!).toISOString()} to ${now} (${Math.round(schedule.disableAfterSeconds / 3600)} h without a success).`
        : null;
  if (reason) sql.exec(`UPDATE webhook_endpoints SET disabled_at = COALESCE(disabled_at, ?), disabled_reason = COALESCE(disabled_reason, ?) WHERE id = ?`, now, reason, delivery.endpoint_id);
  const delaySeconds = schedule.retrySeconds[attempt - 1];
  if (!endpoint || reason || delaySeconds === undefined) {
    sql.exec(`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at_ms = NULL WHERE id = ?`, deliveryId);
    return { next: "done" };
  }
  sql.exec(`UPDATE webhook_deliveries SET next_attempt_at_ms = ? WHERE id = ?`, nowMs + delaySeconds * 1000, deliveryId);
  return { next: "retry", delaySeconds };
}

/** Newest first, with every attempt; null when the endpoint is not this account's. */
export function listDeliveries(sql: SqlStorage, endpointId: string): WebhookDelivery[] | null {
  sql.exec(SCHEMA);
  if (sql.exec(`SELECT 1 FROM webhook_endpoints WHERE id = ?`, endpointId).toArray().length === 0) return null;
  const deliveries = rows<DeliveryRow>(sql.exec(`SELECT * FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?`, endpointId, DELIVERIES_LISTED));
  return deliveries.map((d) => ({
    id: d.id,
    event_type: d.event_type as WebhookEventType,
    reconstruction_id: d.reconstruction_id,
    status: d.status,
    created_at: d.created_at,
    next_attempt_at: d.status === "pending" && d.next_attempt_at_ms !== null ? new Date(d.next_attempt_at_ms).toISOString() : null,
    attempts: rows<WebhookAttempt>(sql.exec(`SELECT attempt, at, response_status, error, duration_ms FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt`, d.id)),
  }));
}
