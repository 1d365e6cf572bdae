/**
 * The load bench's audit (bench/load-audit.ts) on a persistence folder laid out as wrangler's,
 * written here: it passes when ledger and R2 match the clients' view and names each mismatch.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { audit, type Outcome } from "../../bench/load-audit.js";

let dir: string;

function write(file: string, schema: string, rows: Array<[string, unknown[]]>): void {
  const db = new DatabaseSync(file);
  db.exec(schema);
  for (const [sql, values] of rows) db.prepare(sql).run(...(values as never[]));
  db.close();
}

async function persist(ledger: Array<[string, string | null]>, keys: string[]): Promise<void> {
  const doDir = path.join(dir, "v3", "do", "photogrammetry-AccountObject");
  const r2Dir = path.join(dir, "v3", "r2", "miniflare-R2BucketObject");
  await mkdir(doDir, { recursive: true });
  await mkdir(r2Dir, { recursive: true });
  write(path.join(doDir, "a1.sqlite"), "CREATE TABLE ledger (kind TEXT, amount INTEGER, reconstruction_id TEXT)", ledger.map(([kind, id]) => ["INSERT INTO ledger VALUES (?, 0, ?)", [kind, id]]));
  write(path.join(r2Dir, "b1.sqlite"), "CREATE TABLE _mf_objects (key TEXT PRIMARY KEY)", keys.map((k) => ["INSERT INTO _mf_objects VALUES (?)", [k]]));
}

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "audit-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const outcomes: Outcome[] = [
  { id: "rec_ok", status: "completed", creditRefunded: false },
  { id: "rec_bad", status: "failed", creditRefunded: true },
];

describe("load audit", () => {
  it("agrees when every debit has a reconstruction and the failed one is refunded once", async () => {
    await persist([["trial", null], ["debit", "rec_ok"], ["debit", "rec_bad"], ["refund", "rec_bad"]], ["inputs/rec_ok/0000-a.jpg", "outputs/rec_ok/model.glb", "inputs/rec_bad/0000-b.jpg"]);
    expect((await audit(dir, outcomes)).problems).toEqual([]);
  });

  it("names a double refund, a missing refund, an unknown debit and a stray or missing object", async () => {
    await persist([["debit", "rec_ok"], ["refund", "rec_ok"], ["debit", "rec_bad"], ["debit", "rec_ghost"]], ["inputs/rec_stray/0000-x.jpg"]);
    const { problems } = await audit(dir, outcomes);
    expect(problems).toEqual(
      expect.arrayContaining([
        "ledger debit for rec_ghost, which no client created",
        "rec_ok: completed but refunded 1×",
        "rec_bad: failed with 0 refunds",
        "R2 object inputs/rec_stray/0000-x.jpg belongs to no created reconstruction",
        "rec_ok: completed without outputs/rec_ok/model.glb",
      ]),
    );
  });
});
