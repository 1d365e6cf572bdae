/**
 * @module Ground control from the job to SfM and back: the job's control points (shared/
 * control-points.ts, coordinates in the client's system) become SfM's targets in the target frame
 * of the output system (georeference.ts), and SfM's control report becomes the located model and
 * the quality report's residual table.
 */
import type { ControlPoints } from "../../shared/control-points.js";
import { resolveCrs } from "../../shared/crs.js";
import { PipelineError, type ImageRef, type SparseModel } from "../scene/index.js";
import type * as sfm from "../stages/sfm/index.js";
import type { ControlResidual } from "../stages/quality-report/index.js";
import { chooseFrame, groundSamplingDistance, normalizeTargetModel, toTarget, type SurveyFrame } from "./georeference.js";
import type { Located } from "./locate.js";

export interface ControlSetup {
  frame: SurveyFrame;
  targets: sfm.ControlTarget[];
}

/** SfM's targets and the output frame; marks on photos ingest did not keep are left out (the report names the photo). */
export function controlSetup(control: ControlPoints, images: ImageRef[], outputEpsg?: number): ControlSetup {
  const resolved = resolveCrs(control.crs);
  if (!resolved.ok) throw new PipelineError("invalid_request", `control points: ${resolved.reason}`, "Give the control points' coordinate system as EPSG:<code>, WGS84 UTM <zone><N|S> or a PROJ string.");
  const { frame, toOutput } = chooseFrame(resolved.crs.proj4, resolved.crs.epsg, control.points.map((p) => p.coordinates as [number, number, number]), "control", outputEpsg);
  const indexOf = new Map(images.map((image) => [image.name, image.index]));
  const targets = control.points.map((point) => ({
    name: point.name,
    role: point.role,
    position: toTarget(frame, toOutput(point.coordinates as [number, number, number])),
    sigma: { horizontal: point.accuracy.horizontal, vertical: point.accuracy.vertical },
    marks: point.marks.filter((m) => indexOf.has(m.image)).map((m) => ({ imageIndex: indexOf.get(m.image)!, x: m.x, y: m.y })),
  }));
  return { frame, targets: targets.filter((t) => t.marks.length > 0) };
}

/** The model SfM put into the control's frame, brought back to the stages' frame, and where it is. */
export function locateByControl(setup: ControlSetup, model: SparseModel): Located {
  const modelToTarget = normalizeTargetModel(model);
  return {
    frame: setup.frame,
    modelToTarget,
    report: { crs: setup.frame.crs, offset: setup.frame.offset, source: "control", gsdM: groundSamplingDistance(model, modelToTarget) },
  };
}

/** SfM's control report as the quality report's table (points that could not be measured are listed with zero residuals and why). */
export function controlResiduals(report: sfm.ControlReport): ControlResidual[] {
  return report.points.map((p) => ({
    name: p.name,
    role: p.role,
    used: p.used && p.residualM !== null,
    ...(p.reason ? { reason: p.reason } : p.residualM === null ? { reason: "could not be triangulated from its marks" } : {}),
    dx: p.residualM?.dx ?? 0,
    dy: p.residualM?.dy ?? 0,
    dz: p.residualM?.dz ?? 0,
    ...(p.reprojectionRmsPx !== null ? { reprojectionPx: p.reprojectionRmsPx } : {}),
    marks: p.marks,
  }));
}
