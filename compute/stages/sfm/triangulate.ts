/**
 * @module Triangulation of tracks seen by registered images, with the checks of
 * Schönberger & Frahm 2016 (§4.4): a point is kept only when some pair of its rays meets at
 * a wide enough angle, it lies in front of every camera, and it reprojects within the
 * threshold in every view (views that fail are dropped while two or more remain).
 */
import { normalizePoints } from "../../geometry/camera.js";
import { triangulateMultiView } from "../../geometry/triangulation.js";
import type { RigidTransform } from "../../scene/index.js";
import type { Options } from "./options.js";
import { centerOf, depthInImage, intrinsicsOf, rayAngleDeg, squaredReprojectionError } from "./projection.js";
import type { SfmState } from "./state.js";

/** Normalized undistorted keypoints of image i, computed once per intrinsics change. */
export function normalizedKeypoints(state: SfmState, i: number): Float64Array {
  let cached = state.normalizedXy[i];
  if (cached === null) {
    const f = state.features[i];
    cached = normalizePoints(intrinsicsOf(state, i), f.xy, f.count);
    state.normalizedXy[i] = cached;
  }
  return cached;
}

/** Forget the normalized keypoints of every image (after intrinsics were refined). */
export function clearNormalizedCache(state: SfmState): void {
  state.normalizedXy.fill(null);
}

function poseOf(state: SfmState, i: number): RigidTransform {
  return { R: state.rotation.slice(9 * i, 9 * i + 9), t: state.translation.slice(3 * i, 3 * i + 3) };
}

/**
 * True when some two of the given images see the track's point under at least `minDeg`.
 * Stops at the first such pair: with long tracks the full O(n²) maximum is the filter's cost.
 */
export function hasWideRayPair(state: SfmState, k: number, imagesOfPoint: number[], centers: Float64Array, minDeg: number): boolean {
  for (let a = 0; a < imagesOfPoint.length; a++) {
    for (let b = a + 1; b < imagesOfPoint.length; b++) {
      if (rayAngleDeg(state.pointXyz, 3 * k, centers, 3 * imagesOfPoint[a], centers, 3 * imagesOfPoint[b]) >= minDeg) return true;
    }
  }
  return false;
}

/** Camera centres of all images (3 per image; meaningful for registered ones). */
export function allCenters(state: SfmState): Float64Array {
  const centers = new Float64Array(3 * state.images.length);
  for (const i of state.order) centerOf(state, i, centers, 3 * i);
  return centers;
}

function triangulateObservations(state: SfmState, obsIdx: number[]): Float64Array | null {
  const { trackImages, trackKeypoints } = state.tracks;
  const poses = obsIdx.map((j) => poseOf(state, trackImages[j]));
  const normalized = new Float64Array(2 * obsIdx.length);
  obsIdx.forEach((j, m) => {
    const xy = normalizedKeypoints(state, trackImages[j]);
    normalized[2 * m] = xy[2 * trackKeypoints[j]];
    normalized[2 * m + 1] = xy[2 * trackKeypoints[j] + 1];
  });
  const X = triangulateMultiView(poses, normalized, obsIdx.length);
  return X !== null && Number.isFinite(X[0] + X[1] + X[2]) ? X : null;
}

/** Squared reprojection error of observation j against the track's current point; Infinity behind the camera. */
function observationErrorSq(state: SfmState, k: number, j: number): number {
  const i = state.tracks.trackImages[j];
  const kp = state.tracks.trackKeypoints[j];
  const xy = state.features[i].xy;
  if (depthInImage(state, i, state.pointXyz, 3 * k) <= 0) return Infinity;
  return squaredReprojectionError(state, i, state.pointXyz, 3 * k, xy[2 * kp], xy[2 * kp + 1]);
}

/**
 * Try to triangulate track k from its active observations. Linear multi-view triangulation
 * is least squares, so one wrong observation drags the point away from all the others: drop
 * the worst-reprojecting view and re-solve until every remaining view agrees (a deterministic
 * stand-in for COLMAP's RANSAC triangulation, cheap at track lengths of a few to tens).
 * Returns true when a point was created; the views dropped are marked as outliers.
 */
export function triangulateTrack(state: SfmState, k: number, centers: Float64Array, options: Options): boolean {
  const { trackOffsets, trackImages } = state.tracks;
  const active: number[] = [];
  for (let j = trackOffsets[k]; j < trackOffsets[k + 1]; j++) {
    if (state.registered[trackImages[j]] === 1 && state.obsRejected[j] === 0) active.push(j);
  }
  const maxSq = options.maxReprojectionErrorPx * options.maxReprojectionErrorPx;
  const kept = [...active];
  while (kept.length >= 2) {
    const X = triangulateObservations(state, kept);
    if (X === null) return false;
    state.pointXyz.set([X[0], X[1], X[2]], 3 * k);
    let worst = -1;
    let worstErr = maxSq;
    kept.forEach((j, m) => {
      const err = observationErrorSq(state, k, j);
      if (err > worstErr) {
        worstErr = err;
        worst = m;
      }
    });
    if (worst < 0) break;
    kept.splice(worst, 1);
  }
  if (kept.length < 2) return false;
  if (!hasWideRayPair(state, k, kept.map((j) => trackImages[j]), centers, options.minTriangulationAngleDeg)) return false;
  for (const j of active) if (!kept.includes(j)) state.obsRejected[j] = 1;
  state.hasPoint[k] = 1;
  return true;
}

/** Triangulate every point-less track observed by `image` (after it registered). Returns points created. */
export function triangulateImage(state: SfmState, image: number, options: Options): number {
  const centers = allCenters(state);
  let created = 0;
  for (const j of state.keypointObs[image]) {
    if (j < 0) continue;
    const k = state.obsTrack[j];
    if (state.hasPoint[k] === 0 && triangulateTrack(state, k, centers, options)) created++;
  }
  return created;
}

/**
 * Re-triangulation (Schönberger & Frahm 2016, §4.5): after a global BA the poses are better,
 * so retry every point-less track, and re-admit rejected observations of existing points
 * that now reproject within the threshold.
 */
export function retriangulateAll(state: SfmState, options: Options): { created: number; readmitted: number } {
  const centers = allCenters(state);
  const { trackOffsets, trackImages, trackKeypoints } = state.tracks;
  const maxSq = options.maxReprojectionErrorPx * options.maxReprojectionErrorPx;
  let created = 0;
  let readmitted = 0;
  for (let k = 0; k < state.tracks.count; k++) {
    if (state.hasPoint[k] === 0) {
      if (triangulateTrack(state, k, centers, options)) created++;
      continue;
    }
    for (let j = trackOffsets[k]; j < trackOffsets[k + 1]; j++) {
      const i = trackImages[j];
      if (state.obsRejected[j] === 0 || state.registered[i] === 0) continue;
      const xy = state.features[i].xy;
      if (squaredReprojectionError(state, i, state.pointXyz, 3 * k, xy[2 * trackKeypoints[j]], xy[2 * trackKeypoints[j] + 1]) <= maxSq) {
        state.obsRejected[j] = 0;
        readmitted++;
      }
    }
  }
  return { created, readmitted };
}
