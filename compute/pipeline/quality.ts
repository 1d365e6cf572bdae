/**
 * @module The quality report in the pipeline (issue 41, compute/stages/quality-report): the glue
 * from the pipeline's own types (Located, PipelineReport) to the stage's input, so wiring it into
 * index.ts is two calls:
 *
 * - in sparseStages, right after placeCameras, while the features are alive:
 *   `run.measures = measureForReport(placed.sfm.model, placed.features)`;
 * - in runPipeline, after the report is built and before it is written:
 *   `const quality = await writeQualityReport(report, { model, images, measures, located, outDir })`,
 *   then `report.qualityReport = quality.figures` (and `quality.report` among the stage reports).
 */
import type { ImageFeatures, ImageRef, SparseModel } from "../scene/index.js";
import * as qualityReport from "../stages/quality-report/index.js";
import type { Located } from "./locate.js";
import type { PipelineReport } from "./report.js";

/** Reprojection errors and camera centre covariances of the model SfM solved, from the features its observations index. */
export function measureForReport(model: SparseModel, features: ImageFeatures[], options: Partial<qualityReport.MeasureOptions> = {}): qualityReport.ModelMeasures {
  return qualityReport.measureModel(model, features, options);
}

/** The stage's georeference from the pipeline's (null: the model stays in its own frame). */
export function reportGeoreference(located: Located | null): qualityReport.ReportGeoreference | null {
  if (!located) return null;
  return {
    crs: located.frame.crs,
    offset: located.frame.offset,
    source: located.frame.source,
    modelToTarget: located.modelToTarget,
    ...(located.report.gsdM !== undefined ? { gsdM: located.report.gsdM } : {}),
  };
}

export interface QualityReportInput {
  model: SparseModel;
  images: ImageRef[];
  measures: qualityReport.ModelMeasures | null;
  located: Located | null;
  outDir: string;
  control?: qualityReport.ControlResidual[];
  title?: string;
}

/** Writes report.html into the output folder and returns the figures for report.json's `qualityReport`. */
export async function writeQualityReport(report: PipelineReport, input: QualityReportInput, options: Partial<qualityReport.Options> = {}): Promise<qualityReport.Output> {
  return qualityReport.run({
    job: report,
    model: input.model,
    images: input.images,
    measures: input.measures,
    georeference: reportGeoreference(input.located),
    ...(input.control ? { control: input.control } : {}),
    ...(input.title ? { title: input.title } : {}),
  }, { ...options, outDir: input.outDir });
}
