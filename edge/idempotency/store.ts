/**
 * @module Idempotency keys of one account, in its AccountObject's SQLite (pure functions over
 * its SqlStorage, so the object only delegates).
 *
 * A key is claimed (`in_progress`) before the request's body is read, then either completed
 * with the request's fingerprint and the response to replay, or released when the request was
 * refused (a 4xx stores nothing, so a corrected retry with the same key can run: Stripe does
 * the same for requests that fail validation). Completed keys live 24 hours; an in-progress
 * claim whose request died lapses after its lease.
 */

/** How long a completed key replays its response (IETF draft / Stripe: at least 24 h). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** An in-progress claim older than this belongs to a request that died; as long as a credit hold. */
export const IDEMPOTENCY_LEASE_MS = 2 * 60 * 60 * 1000;

const SCHEMA = `CREATE TABLE IF NOT EXISTS idempotency_keys (
  key TEXT PRIMARY KEY,
  state TEXT NOT NULL CHECK (state IN ('in_progress', 'completed')),
  fingerprint TEXT,
  response_status INTEGER,
  response_body TEXT,
  created_at_ms INTEGER NOT NULL)`;

export type IdempotencyClaim =
  | { kind: "new" }
  | { kind: "in_progress" }
  | { kind: "completed"; fingerprint: string; status: number; body: string };

interface KeyRow {
  state: "in_progress" | "completed";
  fingerprint: string | null;
  response_status: number | null;
  response_body: string | null;
  created_at_ms: number;
}

/** Claims `key` for a new request, or says why it cannot be (running, or done: replay). Synchronous, so atomic in the object. */
export function claimKey(sql: SqlStorage, key: string, now = Date.now()): IdempotencyClaim {
  sql.exec(SCHEMA);
  // Expired rows go lazily, on the account's next keyed request.
  sql.exec(`DELETE FROM idempotency_keys WHERE (state = 'completed' AND created_at_ms <= ?) OR (state = 'in_progress' AND created_at_ms <= ?)`, now - IDEMPOTENCY_TTL_MS, now - IDEMPOTENCY_LEASE_MS);
  const row = sql.exec<Record<string, SqlStorageValue>>(`SELECT state, fingerprint, response_status, response_body, created_at_ms FROM idempotency_keys WHERE key = ?`, key).toArray()[0] as unknown as KeyRow | undefined;
  if (row?.state === "in_progress") return { kind: "in_progress" };
  if (row?.state === "completed") return { kind: "completed", fingerprint: row.fingerprint!, status: row.response_status!, body: row.response_body! };
  sql.exec(`INSERT INTO idempotency_keys (key, state, created_at_ms) VALUES (?, 'in_progress', ?)`, key, now);
  return { kind: "new" };
}

/** Stores the response to replay; the 24 h start when the first response is known. */
export function completeKey(sql: SqlStorage, key: string, fingerprint: string, status: number, body: string, now = Date.now()): void {
  sql.exec(SCHEMA);
  sql.exec(
    `INSERT INTO idempotency_keys (key, state, fingerprint, response_status, response_body, created_at_ms) VALUES (?, 'completed', ?, ?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET state = 'completed', fingerprint = excluded.fingerprint, response_status = excluded.response_status, response_body = excluded.response_body, created_at_ms = excluded.created_at_ms`,
    key, fingerprint, status, body, now,
  );
}

/** Drops an in-progress claim (the request was refused); a completed key is kept. */
export function releaseKey(sql: SqlStorage, key: string): void {
  sql.exec(SCHEMA);
  sql.exec(`DELETE FROM idempotency_keys WHERE key = ? AND state = 'in_progress'`, key);
}
