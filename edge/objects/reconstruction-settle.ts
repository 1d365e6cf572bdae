/**
 * @module What a ReconstructionObject tells others once its job is terminal: the AccountObject
 * a failed job's refund and the outcome, the owner the webhook event, the waiting line that its
 * slot is free, and R2 that the job's work objects can go.
 *
 * The state is stored first, so a crash half-way is finished by the object's alarm, which runs
 * settleTerminal again until it goes through: each step is marked done in the object's own row
 * or is idempotent where it lands (the AccountObject ignores repeats for the same id).
 */
import type { FailureInfo, StatusRecord } from "../../shared/records.js";
import type { Env } from "../env.js";
import { schedulerStub } from "../scheduling/scheduler-object.js";
import { emitOnce } from "./reconstruction-events.js";
import type { ReconstructionRow } from "./reconstruction-state.js";
import { deleteWorkOnce } from "./reconstruction-tasks.js";

/** Settles a completed or failed job; throws when a step could not be done (the caller retries). `record` reads the row anew. */
export async function settleTerminal(sql: SqlStorage, env: Env, row: ReconstructionRow, record: () => StatusRecord): Promise<void> {
  const account = env.ACCOUNTS.get(env.ACCOUNTS.idFromName(row.account_id));
  if (row.status === "failed" && !row.credit_refunded) {
    const code = row.error ? (JSON.parse(row.error) as FailureInfo).code : "failed";
    // Any answer without an exception means the id's credit is back (now or on an earlier call).
    await account.refund(row.id, code);
    sql.exec(`UPDATE reconstruction SET credit_refunded = 1 WHERE id = ?`, row.id);
  }
  if (!row.outcome_recorded) {
    await account.recordOutcome(row.id, row.status === "completed" ? "completed" : "failed");
    sql.exec(`UPDATE reconstruction SET outcome_recorded = 1 WHERE id = ?`, row.id);
  }
  // After the refund, so a failed event's data says credit_refunded: true.
  const type = row.status === "completed" ? "reconstruction.completed" : "reconstruction.failed";
  await emitOnce(sql, env, row.account_id, type, record());
  // Its place in the line (or its slot on compute) goes to the next job.
  await schedulerStub(env).withdraw(row.id, row.status === "completed");
  // Task inputs and results are of no use once the job has ended.
  await deleteWorkOnce(sql, env.BUCKET, row.id);
}
