/**
 * @module The reconstruction state machine as data: legal transitions, the stored row, and the
 * status record and the job message it gives. Kept apart from the Durable Object so the rules
 * read in one screen.
 */
import { z } from "zod";
import { JobMessage, type Quality } from "../../shared/jobs.js";
import { StatusRecord, type FailureInfo, type Georeference, type ReconstructionStatus } from "../../shared/records.js";
import type { ReportOutcome } from "./reconstruction-rpc.js";

/** A dispatch attempt's number, as every report carries it. */
export const Attempt = z.number().int().min(1);

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
  quality: Quality;
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
  /** JSON: the job's survey options (`control_points`, `output_crs`) when the client gave any. */
  survey: string | null;
  /** JSON: Georeference when compute reported one with the outputs. */
  georeference: string | null;
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
  outcome_recorded INTEGER NOT NULL DEFAULT 0,
  survey TEXT,
  georeference TEXT
);
CREATE TABLE IF NOT EXISTS transitions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,
  from_status TEXT NOT NULL,
  to_status TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  note TEXT NOT NULL
);`;

/**
 * Columns added after the first objects were created. An older object's table lacks them; they
 * are added the first time its row is read (ALTER TABLE ADD COLUMN keeps every row, NULL there).
 */
export const ADDED_COLUMNS = ["survey", "georeference"] as const;

/** The row (an older table first gets the added columns when `upgrade`, once per object instance). */
export function readRow(sql: SqlStorage, upgrade: boolean): ReconstructionRow | undefined {
  const select = () => sql.exec<Record<string, SqlStorageValue>>(`SELECT * FROM reconstruction LIMIT 1`).toArray()[0] as unknown as ReconstructionRow | undefined;
  const row = select();
  if (!row || !upgrade) return row;
  const missing = ADDED_COLUMNS.filter((column) => !(column in row));
  if (missing.length === 0) return row;
  for (const column of missing) sql.exec(`ALTER TABLE reconstruction ADD COLUMN ${column} TEXT`);
  return select();
}

/** A report that changes nothing, and why. */
export type Refusal = ReportOutcome & { reason: string };

export function refused(row: ReconstructionRow, reason: string): Refusal {
  return { accepted: false, status: row.status, reason };
}

/** The public status record of a stored row. */
export function toStatusRecord(row: ReconstructionRow): StatusRecord {
  const record: StatusRecord = {
    id: row.id,
    status: row.status,
    progress: row.progress,
    created_at: row.created_at,
    started_at: row.started_at,
    estimated_completion: row.estimated_completion,
    files_processed: row.files_processed,
    total_files: row.total_files,
    stage: row.status === "processing" ? (row.stage as StatusRecord["stage"]) : null,
    completed_at: row.completed_at,
    credit_refunded: row.credit_refunded === 1,
  };
  if (row.status === "completed" && row.formats) record.formats = JSON.parse(row.formats) as StatusRecord["formats"];
  if (row.status === "failed" && row.error) record.error = JSON.parse(row.error) as FailureInfo;
  if (row.status === "completed" && row.georeference) record.georeference = JSON.parse(row.georeference) as Georeference;
  return StatusRecord.parse(record);
}

/** The job of the row's current attempt, as it goes to the waiting line and compute; checked here, once. */
export function jobOf(row: ReconstructionRow): JobMessage {
  return JobMessage.parse({
    version: 1,
    reconstruction_id: row.id,
    account_id: row.account_id,
    attempt: row.attempt,
    quality: row.quality,
    ...(row.survey ? (JSON.parse(row.survey) as object) : {}),
    inputs: JSON.parse(row.inputs) as unknown,
    created_at: row.created_at,
  });
}
