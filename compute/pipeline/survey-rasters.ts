/**
 * @module The survey rasters in the pipeline: a georeferenced model's true orthophoto and DSM
 * (compute/stages/survey), from the textured mesh carried into the target frame (the output
 * system's metres minus the offset, x east, y up, z south), at the photos' ground sampling distance.
 */
import { mapTexturedMesh, type StageReport, type TexturedMesh } from "../scene/index.js";
import * as survey from "../stages/survey/index.js";
import type { Located } from "./locate.js";
import type { PipelineOutput } from "./report.js";

export async function writeSurveyRasters(located: Located, atlas: TexturedMesh, outDir: string): Promise<{ files: PipelineOutput[]; report: StageReport }> {
  const textured = mapTexturedMesh(located.modelToTarget, atlas);
  // The GSD of the photos as stored; a finer raster would only interpolate.
  const gsd = located.report.gsdM ?? 0.05;
  const written = await survey.run({ mesh: textured.mesh, textured, epsg: located.frame.epsg, offset: located.frame.offset, gsd }, { outDir });
  return { files: written.files.map((f) => ({ format: f.product, path: f.path, bytes: f.bytes })), report: written.report };
}
