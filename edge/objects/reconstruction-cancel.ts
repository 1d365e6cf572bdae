/**
 * @module What a client's cancel and delete leave in a ReconstructionObject: the failure a
 * cancelled reconstruction carries, and the tombstone of a deleted one.
 *
 * A deleted reconstruction keeps its row (the refund and the usage outcome may still be
 * settling through the alarm) but gains a tombstone row; from then on it answers as unknown
 * to everyone, its owner included.
 */
import type { FailureInfo, StatusRecord } from "../../shared/records.js";

export const CANCELLED_FAILURE: FailureInfo = {
  code: "cancelled",
  message: "The reconstruction was cancelled at your request.",
  suggestion: "Your credit was refunded. Submit the files again to start over.",
};

export const TOMBSTONE_SQL = `CREATE TABLE IF NOT EXISTS tombstone (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), deleted_at TEXT NOT NULL);`;

/** The answer to a cancel: the record after it, or why nothing changed. */
export type CancelOutcome =
  | { kind: "not_found" }
  | { kind: "already_terminal"; record: StatusRecord }
  | { kind: "cancelled"; record: StatusRecord };
