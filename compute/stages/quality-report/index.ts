/**
 * @module The quality report stage (issue 41, "Surveys"): a report a client can hand on, as
 * OpenDroneMap's and Pix4D's quality reports are: photos used, ground sampling distance, the
 * area seen, an overlap map, the camera calibration before and after, the reprojection error,
 * each camera's position uncertainty from the adjustment, and the control and checkpoint
 * residuals with their RMSE. One set of figures (figures.ts) goes into report.json's `quality`
 * section and is rendered into `report.html` (html.ts), self-contained and printable.
 *
 * Two steps, because the features are gone by the time the report is written
 * (compute/pipeline/index.ts frees them after SfM): `measureModel` (measures.ts) right after
 * SfM, with the features, gives the reprojection errors and the centres' covariances
 * (solvers/bundle-adjustment/covariance.ts); `run` after everything else writes the report.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { IDENTITY_ROTATION, type Similarity, type StageReport } from "../../scene/index.js";
import { calibrationOf, controlOf, leftOutOf, overlapFigures, reprojectionOf, uncertaintyOf } from "./figures.js";
import { renderHtml } from "./html.js";
import { overlapOf, type OverlapGrid, type OverlapOptions } from "./overlap.js";
import { overlapPng } from "./overlap-png.js";
import type { Input, QualityFigures } from "./types.js";

export { measureModel, MEASURE_DEFAULTS, type MeasureOptions, type ModelMeasures } from "./measures.js";
export { escapeHtml } from "./html.js";
export { OVERLAP_COLOURS } from "./overlap-png.js";
export { residualOfTarget, type ControlResidual, type Input, type JobSummary, type QualityFigures, type ReportGeoreference } from "./types.js";

export const NAME = "quality-report";

/** The file the report is written to in the output folder. */
export const REPORT_FILE = "report.html";

export interface Options extends OverlapOptions {
  /** Where to write report.html; null: only return it. */
  outDir: string | null;
}

export const DEFAULTS: Options = {
  cellGsdMultiple: 10,
  maxMapPixels: 512,
  extentPercentile: 0.5,
  outDir: null,
};

export interface Output {
  /** The `quality` section of report.json. */
  figures: QualityFigures;
  html: string;
  /** The overlap map as a PNG (also inside the HTML), and its grid. */
  overlapPng: Buffer;
  overlap: OverlapGrid;
  /** Path of report.html when `outDir` was given. */
  file: string | null;
  report: StageReport;
}

const IDENTITY: Similarity = { R: IDENTITY_ROTATION, s: 1, t: new Float64Array(3) };

export function buildFigures(input: Input, overlap: OverlapGrid): QualityFigures {
  const geo = input.georeference;
  const modelToTarget = geo?.modelToTarget ?? IDENTITY;
  const reprojection = reprojectionOf(input.model, input.measures);
  const uncertainty = uncertaintyOf(input.model, input.measures, modelToTarget);
  const control = controlOf(input.control);
  const { overlap: overlapSummary, areaM2 } = overlapFigures(overlap);
  return {
    units: geo ? "m" : "model units",
    summary: {
      photosUsed: input.model.views.length,
      photosTotal: input.job.images,
      files: input.job.files,
      gsdM: geo?.gsdM ?? null,
      areaM2,
      crs: geo?.crs ?? null,
      offset: geo?.offset ?? null,
      georeferenceSource: geo?.source ?? null,
      processingMs: input.job.wallMs,
      points: input.model.points.count,
    },
    overlap: overlapSummary,
    calibration: calibrationOf(input.model, input.images),
    reprojection,
    uncertainty,
    control,
    leftOut: leftOutOf(input, { reprojection, uncertainty, control }),
    warnings: input.measures?.covariance?.warnings ?? [],
  };
}

/** Builds the figures, the overlap map and report.html (written to `outDir` when given). */
export async function run(input: Input, options: Partial<Options> = {}): Promise<Output> {
  const started = performance.now();
  const settings: Options = { ...DEFAULTS, ...options };
  const geo = input.georeference;
  const overlap = overlapOf(input.model.views, input.model.points, geo?.modelToTarget ?? IDENTITY, geo?.gsdM ?? null, settings);
  const figures = buildFigures(input, overlap);
  const png = await overlapPng(overlap);
  const html = renderHtml(figures, png.toString("base64"), input.title ?? "Reconstruction quality report", new Date().toISOString());
  let file: string | null = null;
  if (settings.outDir) {
    file = path.join(settings.outDir, REPORT_FILE);
    await writeFile(file, html);
  }
  const report: StageReport = {
    stage: NAME,
    wallMs: performance.now() - started,
    counts: { photos: figures.summary.photosUsed, mapWidth: overlap.width, mapHeight: overlap.height, htmlBytes: Buffer.byteLength(html) },
    warnings: figures.warnings,
  };
  return { figures, html, overlapPng: png, overlap, file, report };
}
