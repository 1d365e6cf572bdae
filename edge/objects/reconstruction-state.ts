/**
 * @module The reconstruction state machine as data: legal transitions and the stored row.
 * Kept apart from the Durable Object so the rules read in one screen.
 */
import type { ReconstructionStatus } from "../../shared/records.js";

/** pending → processing → completed | failed, and pending → failed. Nothing leaves a terminal state. */
const TRANSITIONS: Record<ReconstructionStatus, readonly ReconstructionStatus[]> = {
  pending: ["processing", "failed"],
  processing: ["completed", "failed"],
  completed: [],
  failed: [],
};

export function canTransition(from: ReconstructionStatus, to: ReconstructionStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function isTerminal(status: ReconstructionStatus): boolean {
  return TRANSITIONS[status].length === 0;
}

/** One row of the `reconstruction` table (SQLite types: text, integer, JSON as text). */
export interface ReconstructionRow {
  id: string;
  account_id: string;
  status: ReconstructionStatus;
  quality: string;
  progress: number;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  estimated_completion: string;
  total_files: number;
  files_processed: number;
  stage: string | null;
  /** JSON: FormatSize[] once completed. */
  formats: string | null;
  /** JSON: FailureInfo once failed. */
  error: string | null;
  /** JSON: JobInput[]. */
  inputs: string;
  /** The dispatch attempt compute reports must carry; older attempts are ignored. */
  attempt: number;
  /** Last sign of life from compute (or the dispatch time), ISO. */
  last_seen_at: string;
  credit_refunded: number;
  /** 1 once the AccountObject has been told the outcome (usage counters). */
  outcome_recorded: number;
}

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS reconstruction (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  status TEXT NOT NULL,
  quality TEXT NOT NULL,
  progress INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  started_at TEXT,
  completed_at TEXT,
  estimated_completion TEXT NOT NULL,
  total_files INTEGER NOT NULL,
  files_processed INTEGER NOT NULL DEFAULT 0,
  stage TEXT,
  formats TEXT,
  error TEXT,
  inputs TEXT NOT NULL,
  attempt INTEGER NOT NULL DEFAULT 1,
  last_seen_at TEXT NOT NULL,
  credit_refunded INTEGER NOT NULL DEFAULT 0,
  outcome_recorded INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS transitions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,
  from_status TEXT NOT NULL,
  to_status TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  note TEXT NOT NULL
);`;
