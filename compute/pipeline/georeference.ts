/**
 * @module Where a reconstruction is on Earth: the output coordinate system, its offset, and the
 * similarity from the stages' own model frame into it.
 *
 * The output system (docs/API.md "Coordinate systems"): `output_crs` when given; else the
 * control points' system when it is projected in metres, else the UTM zone holding them; else
 * the UTM zone of the photos' GPS fixes; else none, and the model keeps its own frame.
 *
 * Frames: the "target" frame is the output system's metres minus the offset, turned to the
 * API's axes (x east, y up, z south), which is what SfM with control (compute/stages/sfm) and
 * the survey rasters (compute/stages/survey) work in; the deliverables are written Z up
 * (east, north, height minus offset; TARGET_TO_SURVEY). The stages between SfM and export keep
 * working in a model frame of about unit size (frame.ts's convention), so none of their
 * thresholds meets metres.
 *
 * The offset: whole metres at the centre of the control points (or the fixes) horizontally, so
 * float32 model coordinates keep sub-millimetre precision over kilometres; none vertically, so
 * heights read as heights.
 */
import { robustSimilarity } from "../geometry/similarity.js";
import { cameraCenter, type ImageRef, type SparseModel } from "../scene/index.js";
import { IDENTITY_ROTATION, mapSparsePoints, mapViews, type Similarity } from "../scene/index.js";
import { epsgEntry, isProjectedMetres, transformBetween, utmEpsg, WGS84_GEOGRAPHIC, type EpsgEntry, type Transform3 } from "./crs.js";

export interface SurveyFrame {
  epsg: number;
  /** "EPSG:<code>" (docs/API.md `georeference.crs`). */
  crs: string;
  wkt: string;
  offset: [number, number, number];
  /** What chose the system and holds the model in it. */
  source: "control" | "gps";
}

/** Target frame (x east, y up, z south) → survey axes (east, north, up): (x, −z, y). */
export const TARGET_TO_SURVEY: Similarity = { R: new Float64Array([1, 0, 0, 0, 0, -1, 0, 1, 0]), s: 1, t: new Float64Array(3) };

/** The output system's coordinates of a point → target frame. */
export function toTarget(frame: SurveyFrame, [east, north, height]: [number, number, number]): [number, number, number] {
  return [east - frame.offset[0], height - frame.offset[2], -(north - frame.offset[1])];
}

function entryOrThrow(code: number): EpsgEntry {
  const entry = epsgEntry(code);
  if (!entry) throw new Error(`EPSG:${code} has no definition in the EPSG set`);
  return entry;
}

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
}

/** The frame of a set of positions given in `fromProj4`, written in `outputEpsg` or the system chosen by the rule above. */
export function chooseFrame(fromProj4: string, fromEpsg: number | undefined, positions: Array<[number, number, number]>, source: SurveyFrame["source"], outputEpsg?: number): { frame: SurveyFrame; toOutput: Transform3 } {
  let code = outputEpsg;
  if (code === undefined && fromEpsg !== undefined) {
    const given = epsgEntry(fromEpsg);
    if (given && isProjectedMetres(given)) code = fromEpsg;
  }
  if (code === undefined) {
    const toGeographic = transformBetween(fromProj4, WGS84_GEOGRAPHIC);
    const geographic = positions.map(toGeographic);
    code = utmEpsg(mean(geographic.map((p) => p[0])), mean(geographic.map((p) => p[1])));
  }
  const entry = entryOrThrow(code);
  const toOutput = transformBetween(fromProj4, entry.proj4);
  const projected = positions.map(toOutput);
  const offset: [number, number, number] = [Math.round(mean(projected.map((p) => p[0]))), Math.round(mean(projected.map((p) => p[1]))), 0];
  return { frame: { epsg: code, crs: `EPSG:${code}`, wkt: entry.wkt, offset, source }, toOutput };
}

/** Fixes closer together than this many times their scatter about the model give no georeference. */
export const GPS_MIN_SPREAD_TO_SCATTER = 10;

export type GpsHold = { frame: SurveyFrame; modelToTarget: Similarity; residualRmsM: number; fixes: number } | { refused: string };

/**
 * The similarity that carries the model onto its photos' GPS fixes (metres of the UTM zone, or
 * `outputEpsg`): robust, so a multipath jump is left out. Refused where the fixes are too few,
 * have no altitude, or spread too little against their scatter about the model (a phone walking
 * round a statue: metres of scatter over metres of walk would give a scale off by tens of
 * per cent).
 */
export function holdByGps(model: SparseModel, images: ImageRef[], outputEpsg?: number): GpsHold {
  const fixed = model.views.filter((v) => images[v.imageIndex]?.gps?.altitudeM !== undefined && Number.isFinite(images[v.imageIndex].gps!.altitudeM));
  if (fixed.length < 3) return { refused: `${fixed.length} registered photos have a GPS fix with altitude; a georeference needs 3` };
  const fixes = fixed.map((v) => {
    const gps = images[v.imageIndex].gps!;
    return [gps.longitudeDeg, gps.latitudeDeg, gps.altitudeM!] as [number, number, number];
  });
  const { frame, toOutput } = chooseFrame(WGS84_GEOGRAPHIC, 4326, fixes, "gps", outputEpsg);
  const targets = fixes.map((f) => toTarget(frame, toOutput(f)));
  const centres = fixed.flatMap((v) => [...cameraCenter(v.camFromWorld)]);
  const sim = robustSimilarity(centres, targets.flat(), fixed.length);
  if (!sim || sim.inlierCount < 3) return { refused: "the GPS fixes do not fit the cameras by one similarity" };
  let squares = 0;
  const kept: number[] = [];
  for (let k = 0; k < fixed.length; k++) {
    if (!sim.inliers[k]) continue;
    kept.push(k);
    const c = centres.slice(3 * k, 3 * k + 3);
    for (let a = 0; a < 3; a++) {
      const mapped = sim.s * (sim.R[3 * a] * c[0] + sim.R[3 * a + 1] * c[1] + sim.R[3 * a + 2] * c[2]) + sim.t[a];
      squares += (mapped - targets[k][a]) ** 2;
    }
  }
  const residualRmsM = Math.sqrt(squares / kept.length);
  const cx = mean(kept.map((k) => targets[k][0]));
  const cz = mean(kept.map((k) => targets[k][2]));
  const spreadM = Math.sqrt(mean(kept.map((k) => (targets[k][0] - cx) ** 2 + (targets[k][2] - cz) ** 2)));
  if (spreadM < GPS_MIN_SPREAD_TO_SCATTER * residualRmsM) {
    return { refused: `the GPS fixes spread ${spreadM.toFixed(1)} m and scatter ${residualRmsM.toFixed(1)} m about the cameras: too little spread to fix the scale` };
  }
  return { frame, modelToTarget: { R: sim.R, s: sim.s, t: sim.t }, residualRmsM, fixes: kept.length };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[sorted.length >> 1] : 0;
}

/**
 * A model in the target frame (metres) brought to the stages' model frame (frame.ts: origin at
 * the median point, median distance 1) in place, and the similarity that carries it back.
 */
export function normalizeTargetModel(model: SparseModel): Similarity {
  const { xyz, count } = model.points;
  const origin = new Float64Array([0, 1, 2].map((a) => median(Array.from({ length: count }, (_, p) => xyz[3 * p + a]))));
  const distances = Array.from({ length: count }, (_, p) => Math.hypot(xyz[3 * p] - origin[0], xyz[3 * p + 1] - origin[1], xyz[3 * p + 2] - origin[2]));
  const unit = median(distances) || 1;
  const toModel: Similarity = { R: IDENTITY_ROTATION, s: 1 / unit, t: new Float64Array([-origin[0] / unit, -origin[1] / unit, -origin[2] / unit]) };
  model.views = mapViews(toModel, model.views);
  model.points = mapSparsePoints(toModel, model.points);
  return { R: IDENTITY_ROTATION, s: unit, t: origin };
}

/**
 * Ground sampling distance in metres per pixel: the median over the photos of their median
 * depth to the points they see, over their focal length in pixels (at the size the cameras were
 * solved for, the stored photos').
 */
export function groundSamplingDistance(model: SparseModel, modelToTarget: Similarity): number {
  const { points, views } = model;
  const depths: number[][] = views.map(() => []);
  for (let p = 0; p < points.count; p++) {
    for (let o = points.obsOffsets[p]; o < points.obsOffsets[p + 1]; o++) {
      const { R, t } = views[points.obsViews[o]].camFromWorld;
      depths[points.obsViews[o]].push(R[6] * points.xyz[3 * p] + R[7] * points.xyz[3 * p + 1] + R[8] * points.xyz[3 * p + 2] + t[2]);
    }
  }
  const perView = views.map((v, i) => (median(depths[i]) * modelToTarget.s) / v.intrinsics.focal).filter((g) => Number.isFinite(g) && g > 0);
  return median(perView);
}
