/**
 * @module The pipeline's georeference step: after SfM, decide whether and how the model is placed
 * on Earth (georeference.ts), and before export carry every deliverable into the output
 * system's metres minus the offset, Z up (docs/API.md `georeference`).
 */
import { composeSimilarities, PipelineError, mapCloud, mapMesh, mapSparsePoints, mapTexturedMesh, mapViews, type ImageRef, type Similarity, type SparseModel } from "../scene/index.js";
import type * as exporter from "../stages/export/index.js";
import { resolveCrs } from "../../shared/crs.js";
import { groundSamplingDistance, holdByGps, TARGET_TO_SURVEY, type SurveyFrame } from "./georeference.js";
import type { GeoreferenceReport } from "./report.js";

export interface Located {
  frame: SurveyFrame;
  /** Stages' model frame → target frame (the output system's metres minus offset, x east, y up, z south). */
  modelToTarget: Similarity;
  report: GeoreferenceReport;
}

/**
 * The EPSG code of an `output_crs` (`EPSG:<code>` or `WGS84 UTM <zone><N|S>`; the edge has checked
 * it is projected in metres). A PROJ string names no code, and the deliverables need one for
 * their WKT and GeoKeys: it is refused rather than silently replaced.
 */
export function outputEpsgOf(outputCrs: string | undefined): number | undefined {
  if (outputCrs === undefined) return undefined;
  const resolved = resolveCrs(outputCrs);
  if (resolved.ok && resolved.crs.epsg !== undefined) return resolved.crs.epsg;
  throw new PipelineError("processing_error", `output_crs ${outputCrs}: ${resolved.ok ? "a PROJ string names no EPSG code, which the LAS and GeoTIFFs need" : resolved.reason}`, "Give output_crs as EPSG:<code> of a projected system in metres.");
}

/** Where the model is, or why the photos' fixes could not say (null: no photo has a fix). */
export function locate(images: ImageRef[], model: SparseModel, outputEpsg?: number): { located: Located | null; refused?: string } {
  if (!model.views.some((v) => images[v.imageIndex]?.gps)) return { located: null };
  const held = holdByGps(model, images, outputEpsg);
  if ("refused" in held) return { located: null, refused: held.refused };
  const gsdM = groundSamplingDistance(model, held.modelToTarget);
  return {
    located: {
      frame: held.frame,
      modelToTarget: held.modelToTarget,
      report: { crs: held.frame.crs, offset: held.frame.offset, source: "gps", gsdM, gpsFixes: held.fixes, gpsResidualRmsM: held.residualRmsM },
    },
  };
}

/** The export's input in the output system's metres minus the offset, Z up; unchanged without a georeference. */
export function surveyInputs(located: Located | null, input: exporter.Input): exporter.Input {
  if (!located) return input;
  const toSurvey = composeSimilarities(located.modelToTarget, TARGET_TO_SURVEY);
  return {
    ...input,
    views: mapViews(toSurvey, input.views),
    cloud: mapCloud(toSurvey, input.cloud),
    mesh: input.mesh ? mapMesh(toSurvey, input.mesh) : null,
    textured: input.textured ? mapTexturedMesh(toSurvey, input.textured) : input.textured,
    ...(input.sparse ? { sparse: mapSparsePoints(toSurvey, input.sparse) } : {}),
  };
}
