/**
 * @module Key names and last use, kept beside the AccountObject's `api_keys` table (which the
 * operator API fills) in a table of their own, created on first use, so accounts created before
 * the dashboard need no migration. Functions over the object's SqlStorage; the AccountObject's
 * methods call them synchronously, keeping each method atomic.
 */

const KEY_META_SCHEMA = `CREATE TABLE IF NOT EXISTS api_key_meta (
  key_id TEXT PRIMARY KEY, name TEXT, prefix TEXT, last_used_at_ms INTEGER)`;

/** A key as the dashboard lists it: never its secret or its hash. */
export interface KeyListing {
  key_id: string;
  name: string | null;
  prefix: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** Last use is written at most once a minute per key: a write on every request would be waste. */
const LAST_USED_RESOLUTION_MS = 60_000;

export function labelKey(sql: SqlStorage, keyId: string, name: string, prefix: string): void {
  sql.exec(KEY_META_SCHEMA);
  sql.exec("INSERT OR REPLACE INTO api_key_meta (key_id, name, prefix) VALUES (?, ?, ?)", keyId, name, prefix);
}

export function touchKey(sql: SqlStorage, keyId: string, nowMs: number): void {
  sql.exec(KEY_META_SCHEMA);
  sql.exec(
    `INSERT INTO api_key_meta (key_id, last_used_at_ms) VALUES (?, ?)
     ON CONFLICT (key_id) DO UPDATE SET last_used_at_ms = excluded.last_used_at_ms
     WHERE last_used_at_ms IS NULL OR last_used_at_ms < ?`,
    keyId, nowMs, nowMs - LAST_USED_RESOLUTION_MS,
  );
}

export function listKeys(sql: SqlStorage): KeyListing[] {
  sql.exec(KEY_META_SCHEMA);
  return sql
    .exec<{ key_id: string; name: string | null; prefix: string | null; created_at: string; last_used_at_ms: number | null; revoked_at: string | null }>(
      `SELECT k.key_id, m.name, m.prefix, k.created_at, m.last_used_at_ms, k.revoked_at
       FROM api_keys k LEFT JOIN api_key_meta m ON m.key_id = k.key_id ORDER BY k.created_at DESC, k.key_id`,
    )
    .toArray()
    .map(({ last_used_at_ms, ...row }) => ({ ...row, last_used_at: last_used_at_ms === null ? null : new Date(last_used_at_ms).toISOString() }));
}
