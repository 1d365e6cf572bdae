/**
 * @module The mutable state of one incremental reconstruction, in flat typed arrays.
 *
 * A 3-D point is identified with the track it triangulates (at most one point per track),
 * as in COLMAP's correspondence graph: registering an image or re-triangulating never has to
 * merge points, and the observations of a point are the track's observations in registered
 * images that have not been rejected as outliers.
 */
import { ESSENTIAL_MIN_ITERATIONS } from "../../geometry/essential.js";
import type { ImageFeatures, ImageRef, Tracks } from "../../scene/index.js";

export interface SfmState {
  readonly images: ImageRef[];
  readonly features: ImageFeatures[];
  readonly tracks: Tracks;
  /** Intrinsics group of each image (images of one physical camera share a group; groups.ts may merge groups as focals are refined). */
  readonly groupOfImage: Uint32Array;
  /** focal, cx, cy, k1, k2 per group (pixels, unitless k). */
  readonly intrinsics: Float64Array;
  /** camFromWorld rotation per image, row-major 3×3 (9 per image). */
  readonly rotation: Float64Array;
  /** camFromWorld translation per image (3 per image). */
  readonly translation: Float64Array;
  /** 1 when the image is registered in this model. */
  readonly registered: Uint8Array;
  /** Registration order (image indices). */
  readonly order: number[];
  /** 1 when the track has a triangulated point. */
  readonly hasPoint: Uint8Array;
  /** World position of each track's point (3 per track). */
  readonly pointXyz: Float64Array;
  /** Per track observation j (index into tracks.trackImages): 1 when rejected as an outlier. */
  readonly obsRejected: Uint8Array;
  /** Per image: for each keypoint, the observation index j into the track arrays, or -1. */
  readonly keypointObs: Int32Array[];
  /** Track of each observation j (the inverse of the CSR offsets). */
  readonly obsTrack: Uint32Array;
  /** Per image: undistorted normalized keypoint coordinates (2 per keypoint), or null until needed; cleared when intrinsics change. */
  readonly normalizedXy: Array<Float64Array | null>;
}

export function createState(
  images: ImageRef[],
  features: ImageFeatures[],
  tracks: Tracks,
  groupOfImage: Uint32Array,
  intrinsics: Float64Array,
): SfmState {
  const n = images.length;
  const keypointObs = features.map((f) => new Int32Array(f.count).fill(-1));
  for (let k = 0; k < tracks.count; k++) {
    for (let j = tracks.trackOffsets[k]; j < tracks.trackOffsets[k + 1]; j++) {
      keypointObs[tracks.trackImages[j]][tracks.trackKeypoints[j]] = j;
    }
  }
  return {
    images,
    features,
    tracks,
    groupOfImage,
    intrinsics,
    rotation: new Float64Array(9 * n),
    translation: new Float64Array(3 * n),
    registered: new Uint8Array(n),
    order: [],
    hasPoint: new Uint8Array(tracks.count),
    pointXyz: new Float64Array(3 * tracks.count),
    obsRejected: new Uint8Array(tracks.trackImages.length),
    keypointObs,
    obsTrack: observationTrack(tracks),
    normalizedXy: images.map(() => null),
  };
}

/** Track index of every observation j (inverse of the CSR offsets), built once per run. */
export function observationTrack(tracks: Tracks): Uint32Array {
  const out = new Uint32Array(tracks.trackImages.length);
  for (let k = 0; k < tracks.count; k++) {
    out.fill(k, tracks.trackOffsets[k], tracks.trackOffsets[k + 1]);
  }
  return out;
}

/** Number of tracks with a triangulated point. */
export function pointCount(state: SfmState): number {
  let count = 0;
  for (let k = 0; k < state.hasPoint.length; k++) count += state.hasPoint[k];
  return count;
}

/** Copy image i's camFromWorld pose into the state. */
export function setPose(state: SfmState, i: number, R: ArrayLike<number>, t: ArrayLike<number>): void {
  for (let a = 0; a < 9; a++) state.rotation[9 * i + a] = R[a];
  for (let a = 0; a < 3; a++) state.translation[3 * i + a] = t[a];
}

export function registerImage(state: SfmState, i: number): void {
  if (state.registered[i] === 0) {
    state.registered[i] = 1;
    state.order.push(i);
  }
}

/** A copy of everything a global adjustment changes (poses, points, intrinsics), to undo a rejected refinement. */
export function snapshotSolution(state: SfmState): Float64Array[] {
  return [state.rotation.slice(), state.translation.slice(), state.pointXyz.slice(), state.intrinsics.slice()];
}

/** Put back a snapshotSolution. Normalized keypoints depend on the intrinsics: the caller clears them. */
export function restoreSolution(state: SfmState, saved: Float64Array[]): void {
  [state.rotation, state.translation, state.pointXyz, state.intrinsics].forEach((target, a) => target.set(saved[a]));
}

/**
 * The fewest RANSAC samples the relative pose of images `a` and `b` is drawn from: the essential
 * matrix's minimum (geometry/essential.ts) when both focals come from EXIF, none beyond RANSAC's
 * adaptive count when either is a guess. The minimum lets MSAC's cost pick the right matrix among
 * ones that explain nearly every match, which holds at the right focal: a street walked along
 * (bench/street.ts) was seeded on a wall's wrong matrix without it. At a guessed focal no matrix
 * fits exactly, the lowest cost need not be the right one, and the starts from other focals
 * cross-check the model instead ("Small EXIF-less uploads are cross-checked…"): with the minimum
 * there too, the rendered courtyard's EXIF-less SfM took 58 s instead of 18 s, its starts taking
 * other seeds, for the same cameras (docs/decisions.md, "The seed pair's essential matrix draws at
 * least 200 samples").
 */
export function essentialMinIterations(state: SfmState, a: number, b: number): number {
  const known = (i: number) => state.images[i]!.focalPriorSource !== "default";
  return known(a) && known(b) ? ESSENTIAL_MIN_ITERATIONS : 0;
}
