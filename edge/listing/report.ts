/**
 * @module The public report of a reconstruction (GET /v1/reconstruction/{id}/report), read from
 * the report.json compute writes next to the models (shared/storage-keys.ts `reportKey`), on
 * success and on failure alike.
 *
 * compute's report.json is its own, richer document; only the fields read here are parsed, each
 * leniently (a missing field is a default, not an error), so compute can add to it freely and an
 * old report still answers.
 */
import { z } from "zod";
import { reportKey } from "../../shared/storage-keys.js";
import { ReportRecord, type InputReport } from "../../shared/listing.js";
import type { StatusRecord } from "../../shared/records.js";
import { surveyOf } from "./survey-report.js";

const PerImage = z.object({ name: z.string(), kind: z.string().optional(), registered: z.boolean().optional(), reason: z.string().optional(), skipped: z.boolean().optional() }).loose();
const StageEntry = z.object({
  stage: z.string(),
  wallMs: z.number().catch(0),
  counts: z.record(z.string(), z.unknown()).catch({}),
  perImage: z.array(PerImage).catch([]).optional(),
}).loose();
const ComputeReport = z.object({
  quality: z.string().catch("standard"),
  wallMs: z.number().catch(0),
  images: z.number().int().catch(0),
  registered: z.number().int().catch(0),
  skipped: z.array(z.object({ name: z.string(), reason: z.string() })).catch([]),
  unregistered: z.array(z.object({ name: z.string(), reason: z.string() })).catch([]),
  notRun: z.array(z.object({ stage: z.string(), reason: z.string() })).catch([]),
  stages: z.array(StageEntry).catch([]),
  error: z.object({ code: z.string() }).loose().optional(),
  // compute/pipeline/report.ts GeoreferenceReport: the status record's `{crs, offset}` and more.
  georeference: z.object({ crs: z.string().min(1), offset: z.array(z.number()).length(3) }).optional().catch(undefined),
  qualityReport: z.unknown().optional(),
}).loose();
type ComputeReport = z.infer<typeof ComputeReport>;

/** Reads and converts the report; null when none is stored (e.g. compute never ran). */
export async function readReport(bucket: R2Bucket, record: StatusRecord): Promise<ReportRecord | null> {
  const object = await bucket.get(reportKey(record.id));
  if (!object) return null;
  let raw: unknown;
  try {
    raw = await object.json();
  } catch {
    return null; // a torn or foreign object is "no report", never a 500
  }
  const parsed = ComputeReport.safeParse(raw);
  return parsed.success ? toPublicReport(parsed.data, record) : null;
}

export function toPublicReport(report: ComputeReport, record: StatusRecord): ReportRecord {
  const survey = surveyOf(report.qualityReport);
  return ReportRecord.parse({
    id: record.id,
    status: record.status,
    quality: report.quality,
    wall_seconds: report.wallMs / 1000,
    images: report.images,
    registered: report.registered,
    inputs: inputRows(report),
    stages: report.stages.map((s) => ({ stage: s.stage, wall_seconds: s.wallMs / 1000, counts: numericCounts(s.counts) })),
    not_run: report.notRun,
    ...(report.georeference ? { georeference: { crs: report.georeference.crs, offset: report.georeference.offset } } : {}),
    ...(survey ? { survey } : {}),
  });
}

/** One row per image ingest produced, then one per input it skipped. */
function inputRows(report: ComputeReport): InputReport[] {
  const stageImages = (name: string) => report.stages.find((s) => s.stage === name)?.perImage ?? [];
  const sfm = new Map(stageImages("sfm").map((p) => [p.name, p]));
  const unregistered = new Map(report.unregistered.map((u) => [u.name, u.reason]));
  const ranSfm = report.stages.some((s) => s.stage === "sfm");
  const stoppedBefore = `the run stopped before camera registration${report.error ? ` (${report.error.code})` : ""}`;
  const ingested = stageImages("ingest").filter((p) => !p.skipped);
  const rows: InputReport[] = ingested.map((p) => {
    const registered = sfm.get(p.name)?.registered === true;
    const reason = registered ? null : unregistered.get(p.name) || sfm.get(p.name)?.reason || (ranSfm ? "not registered" : stoppedBefore);
    return { file: p.name, kind: p.kind ?? null, registered, reason };
  });
  for (const s of report.skipped) rows.push({ file: s.name, kind: null, registered: false, reason: `skipped: ${s.reason}` });
  return rows;
}

function numericCounts(counts: Record<string, unknown>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).filter((entry): entry is [string, number] => typeof entry[1] === "number" && Number.isFinite(entry[1])));
}
