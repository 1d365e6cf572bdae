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

/** Largest angle (deg) between the rays of any two of the given images at the track's point. */
export function maxRayAngleDeg(state: SfmState, k: number, imagesOfPoint: number[], centers: Float64Array): number {
  let best = 0;
  for (let a = 0; a < imagesOfPoint.length; a++) {
    for (let b = a + 1; b < imagesOfPoint.length; b++) {
      best = Math.max(best, rayAngleDeg(state.pointXyz, 3 * k, centers, 3 * imagesOfPoint[a], centers, 3 * imagesOfPoint[b]));
    }
  }
  return best;
}

/** Camera centres of all images (3 per image; meaningful for registered ones). */
export function allCenters(state: SfmState): Float64Array {
  const centers = new Float64Array(3 * state.images.length);
  for (const i of state.order) centerOf(state, i, centers, 3 * i);
  return centers;
}

/**
 * Try to triangulate track k from its active observations. Returns true when a point was
 * created. Rejected views are marked in obsRejected so later passes need not retry them.
 */
export function triangulateTrack(state: SfmState, k: number, centers: Float64Array, options: Options): boolean {
  const { trackOffsets, trackImages, trackKeypoints } = state.tracks;
  const obsIdx: number[] = [];
  for (let j = trackOffsets[k]; j < trackOffsets[k + 1]; j++) {
    if (state.registered[trackImages[j]] === 1 && state.obsRejected[j] === 0) obsIdx.push(j);
  }
  if (obsIdx.length < 2) return false;
  const poses = obsIdx.map((j) => poseOf(state, trackImages[j]));
  const normalized = new Float64Array(2 * obsIdx.length);
  obsIdx.forEach((j, m) => {
    const xy = normalizedKeypoints(state, trackImages[j]);
    normalized[2 * m] = xy[2 * trackKeypoints[j]];
    normalized[2 * m + 1] = xy[2 * trackKeypoints[j] + 1];
  });
  const X = triangulateMultiView(poses, normalized, obsIdx.length);
  if (X === null || !Number.isFinite(X[0] + X[1] + X[2])) return false;
  state.pointXyz.set([X[0], X[1], X[2]], 3 * k);
  const maxSq = options.maxReprojectionErrorPx * options.maxReprojectionErrorPx;
  const kept: number[] = [];
  for (const j of obsIdx) {
    const i = trackImages[j];
    const xy = state.features[i].xy;
    const ok =
      depthInImage(state, i, state.pointXyz, 3 * k) > 0 &&
      squaredReprojectionError(state, i, state.pointXyz, 3 * k, xy[2 * trackKeypoints[j]], xy[2 * trackKeypoints[j] + 1]) <= maxSq;
    if (ok) kept.push(j);
  }
  if (kept.length < 2) return false;
  if (maxRayAngleDeg(state, k, kept.map((j) => trackImages[j]), centers) < options.minTriangulationAngleDeg) return false;
  for (const j of obsIdx) if (!kept.includes(j)) state.obsRejected[j] = 1;
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
