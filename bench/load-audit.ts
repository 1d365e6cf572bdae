/**
 * @module After a load run: do the credit ledger and R2 agree with what the clients saw?
 *
 * Read straight from wrangler's local persistence (read-only SQLite: each AccountObject's
 * `ledger` table, and the local R2 bucket's object index), because the public API offers no
 * ledger or bucket listing, and asking the system about itself would only test it against itself.
 */
import { readdir } from "node:fs/promises";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";

export interface Outcome {
  id: string;
  status: string;
  creditRefunded: boolean;
}

interface LedgerRow {
  kind: string;
  reconstruction_id: string | null;
}

async function sqliteFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith(".sqlite") && n !== "metadata.sqlite").map((n) => path.join(dir, n));
}

function readRows<T>(file: string, sql: string): T[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return db.prepare(sql).all() as T[];
  } catch {
    return []; // a DO without that table (e.g. the rate limiter's)
  } finally {
    db.close();
  }
}

async function ledgerRows(persistDir: string): Promise<LedgerRow[]> {
  const doRoot = path.join(persistDir, "v3", "do");
  const dirs = (await readdir(doRoot).catch(() => [] as string[])).filter((d) => d.includes("AccountObject"));
  const rows: LedgerRow[] = [];
  for (const dir of dirs) for (const file of await sqliteFiles(path.join(doRoot, dir))) rows.push(...readRows<LedgerRow>(file, "SELECT kind, reconstruction_id FROM ledger"));
  return rows;
}

async function r2Keys(persistDir: string): Promise<string[]> {
  const keys: string[] = [];
  for (const file of await sqliteFiles(path.join(persistDir, "v3", "r2", "miniflare-R2BucketObject"))) keys.push(...readRows<{ key: string }>(file, "SELECT key FROM _mf_objects").map((r) => r.key));
  return keys;
}

/** Problems found; empty when ledger, R2 and the clients' view agree. */
export async function audit(persistDir: string, outcomes: Outcome[]): Promise<{ problems: string[]; summary: Record<string, number> }> {
  const problems: string[] = [];
  const byId = new Map(outcomes.map((o) => [o.id, o]));
  const rows = (await ledgerRows(persistDir)).filter((r) => r.reconstruction_id !== null);
  const count = (id: string, kind: string) => rows.filter((r) => r.reconstruction_id === id && r.kind === kind).length;
  for (const row of rows) if (!byId.has(row.reconstruction_id!)) problems.push(`ledger ${row.kind} for ${row.reconstruction_id}, which no client created`);
  for (const o of outcomes) {
    if (count(o.id, "debit") !== 1) problems.push(`${o.id}: ${count(o.id, "debit")} debits`);
    const refunds = count(o.id, "refund");
    if (o.status === "failed" && refunds !== 1) problems.push(`${o.id}: failed with ${refunds} refunds`);
    if (o.status === "failed" && !o.creditRefunded) problems.push(`${o.id}: failed, status says credit_refunded false`);
    if (o.status !== "failed" && refunds !== 0) problems.push(`${o.id}: ${o.status} but refunded ${refunds}×`);
  }
  const keys = await r2Keys(persistDir);
  const idsInR2 = new Set<string>();
  for (const key of keys) {
    const [, id] = key.split("/");
    if (!/^(inputs|outputs)\//.test(key) || !id) continue;
    idsInR2.add(id);
    if (!byId.has(id)) problems.push(`R2 object ${key} belongs to no created reconstruction`);
  }
  for (const o of outcomes) {
    if (o.status === "completed" && !keys.includes(`outputs/${o.id}/model.glb`)) problems.push(`${o.id}: completed without outputs/${o.id}/model.glb`);
  }
  return { problems, summary: { ledger_rows: rows.length, r2_objects: keys.length, reconstructions_in_r2: idsInR2.size, reconstructions: outcomes.length } };
}
