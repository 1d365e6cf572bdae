/**
 * @module The caller's reconstructions, newest first, cursor-paged (GET /v1/reconstructions and
 * the dashboard's list). The AccountObject knows which reconstructions it paid for (its debit
 * rows, in creation order); each ReconstructionObject knows its own state. A page therefore
 * reads candidate ids from the account and the records from their objects, and keeps reading
 * while a status filter drops candidates, so a page is short only at the end of the list.
 *
 * The cursor is the ledger row of the last record returned (`c` + base 36): stable while new
 * reconstructions are created, since they only ever get higher rows.
 */
import type { Env } from "../env.js";
import type { ListQuery, ReconstructionPage } from "../../shared/listing.js";
import type { ReconstructionStatus, StatusRecord } from "../../shared/records.js";

/** Which recorded outcomes can hide a record of this status (null: none recorded yet). */
function outcomesFor(status: ReconstructionStatus | undefined): Array<"completed" | "failed" | null> {
  if (status === undefined) return [];
  if (status === "completed" || status === "failed") return [status, null];
  return [null];
}

export function encodeCursor(row: number): string {
  return `c${row.toString(36)}`;
}

export function decodeCursor(cursor: string | undefined): number | null {
  return cursor === undefined ? null : parseInt(cursor.slice(1), 36);
}

export async function listReconstructions(env: Env, accountId: string, query: ListQuery): Promise<ReconstructionPage> {
  const account = env.ACCOUNTS.get(env.ACCOUNTS.idFromName(accountId));
  const found: Array<{ row: number; record: StatusRecord }> = [];
  let before = decodeCursor(query.cursor);
  // One more than the page, to know whether a next page exists.
  const wanted = query.limit + 1;
  for (;;) {
    const batch = await account.chargedReconstructions(wanted, before, outcomesFor(query.status));
    const records = await Promise.all(
      batch.map((c) => env.RECONSTRUCTIONS.get(env.RECONSTRUCTIONS.idFromName(c.reconstruction_id)).status(accountId)),
    );
    batch.forEach((candidate, i) => {
      const record = records[i];
      // null: its state machine was never created (creation failed and was refunded) or was deleted.
      if (record && (query.status === undefined || record.status === query.status)) found.push({ row: candidate.row, record });
    });
    if (found.length >= wanted || batch.length < wanted) break;
    before = batch[batch.length - 1].row;
  }
  const page = found.slice(0, query.limit);
  const more = found.length > query.limit;
  return { data: page.map((f) => f.record), next_cursor: more ? encodeCursor(page[page.length - 1].row) : null };
}
