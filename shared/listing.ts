/**
 * @module Records of docs/API.md ("Records"): the paged reconstruction list and the
 * per-reconstruction report. The report is the public, stable subset of compute's report.json
 * (whose full shape is compute's own and may grow): one row per input image, one per stage, and
 * for a georeferenced result its georeference and the accuracy report's figures (survey-report.ts).
 */
import { z } from "zod";
import { Georeference, ReconstructionStatus, StatusRecord } from "./records.js";
import { SurveyReport } from "./survey-report.js";

export const LIST_DEFAULT_LIMIT = 20;
export const LIST_MAX_LIMIT = 100;

/** Query of `GET /v1/reconstructions`; strings in, as a URL carries them. */
export const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(LIST_MAX_LIMIT).default(LIST_DEFAULT_LIMIT),
  cursor: z.string().regex(/^c[0-9a-z]{1,12}$/).optional(),
  status: ReconstructionStatus.optional(),
});
export type ListQuery = z.infer<typeof ListQuery>;

export const ReconstructionPage = z
  .object({
    data: z.array(StatusRecord),
    next_cursor: z.string().nullable().meta({ description: "Pass as `cursor` for the next page; null on the last page" }),
  })
  .meta({ id: "ReconstructionPage" });
export type ReconstructionPage = z.infer<typeof ReconstructionPage>;

export const InputReport = z.object({
  file: z.string().meta({ description: "The uploaded file's name (a video keyframe: `<file name>#<frame index>`)" }),
  kind: z.string().nullable().meta({ description: "jpeg, png, heic, or video frame; null when the file could not be read" }),
  registered: z.boolean().meta({ description: "Whether the image got a camera pose in the model" }),
  reason: z.string().nullable().meta({ description: "Why it was skipped or not registered; null when registered" }),
});
export type InputReport = z.infer<typeof InputReport>;

export const StageSummary = z.object({
  stage: z.string(),
  wall_seconds: z.number().nonnegative(),
  counts: z.record(z.string(), z.number()),
});
export type StageSummary = z.infer<typeof StageSummary>;

export const ReportRecord = z
  .object({
    id: z.string(),
    status: ReconstructionStatus,
    quality: z.string(),
    wall_seconds: z.number().nonnegative(),
    images: z.number().int().nonnegative(),
    registered: z.number().int().nonnegative(),
    inputs: z.array(InputReport),
    stages: z.array(StageSummary),
    not_run: z.array(z.object({ stage: z.string(), reason: z.string() })),
    georeference: Georeference.optional().meta({ description: "Only for georeferenced outputs: the status record's `georeference` (model coordinates plus offset are coordinates in crs)." }),
    survey: SurveyReport.optional().meta({ description: "Only when compute wrote the accuracy report (georeferenced outputs): its figures. Absent as well when they could not be read." }),
  })
  .meta({ id: "ReportRecord" });
export type ReportRecord = z.infer<typeof ReportRecord>;
