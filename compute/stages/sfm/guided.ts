/**
 * @module Guided matching of two registered images along their epipolar lines (Hartley &
 * Zisserman 2004, §11.7: once the two-view geometry is known, search for matches only near
 * each keypoint's epipolar line). The geometry comes from the model's poses, so the search
 * finds pairs the unguided matcher missed: views far apart, where the global ratio test over
 * all keypoints keeps too few matches for a verified pair, but the few keypoints near the
 * line still tell the right one from the wrong ones.
 */
import { epipolarBandNeighbours, type CandidateDistances } from "../../geometry/epipolar-band.js";
import { essentialFromPoses } from "../../geometry/essential.js";
import { mutualRatioMatches } from "../../math/mutual-nearest.js";
import type { SfmState } from "./state.js";
import { normalizedKeypoints } from "./triangulate.js";

/** Lowe's ratio between the best and second-best Hamming distance inside the band. */
export const GUIDED_RATIO = 0.8;

/** Set bits of every byte value, for Hamming distances of binary descriptors. */
const POPCOUNT = new Uint8Array(256);
for (let b = 1; b < 256; b++) POPCOUNT[b] = (b & 1) + POPCOUNT[b >> 1];

/** Essential matrix of the pair from the model's poses, x_jᵀ·E·x_i = 0 in normalized coordinates. */
export function essentialBetween(state: SfmState, i: number, j: number): Float64Array {
  const pose = (k: number) => ({ R: state.rotation.subarray(9 * k, 9 * k + 9), t: state.translation.subarray(3 * k, 3 * k + 3) });
  return essentialFromPoses(pose(i), pose(j));
}

/** Hamming distances from keypoint i of one image to chosen keypoints of another, on their byte descriptors. */
function byteDistances(da: Uint8Array, db: Uint8Array, bytes: number, countB: number): CandidateDistances {
  const candidates = new Uint32Array(countB);
  const out = new Uint32Array(countB);
  return {
    candidates,
    compute: (i, n) => {
      for (let k = 0; k < n; k++) {
        const oa = i * bytes;
        const ob = candidates[k] * bytes;
        let h = 0;
        for (let c = 0; c < bytes; c++) h += POPCOUNT[da[oa + c] ^ db[ob + c]];
        out[k] = h;
      }
      return out;
    },
  };
}

/**
 * Keypoint pairs (a in image i, b in image j; flat a, b, a, b, …) whose b lies within
 * `thresholdPx` of a's epipolar line in image j, are each other's nearest descriptor among
 * the keypoints inside the band, and pass the ratio test on both sides.
 */
export function guidedMatches(state: SfmState, i: number, j: number, thresholdPx: number): Uint32Array {
  const fi = state.features[i];
  const fj = state.features[j];
  const bytes = fi.descriptorBytes;
  if (fj.descriptorBytes !== bytes || fi.count === 0 || fj.count === 0) return new Uint32Array(0);
  // Undistorted keypoints scaled back to pixels by each image's focal (centred on the
  // principal point), so the band is in image j's pixels: F = diag(1/fⱼ, 1/fⱼ, 1)·E·diag(1/fᵢ, 1/fᵢ, 1).
  const focalI = state.intrinsics[5 * state.groupOfImage[i]];
  const focalJ = state.intrinsics[5 * state.groupOfImage[j]];
  const xyA = normalizedKeypoints(state, i).map((v) => v * focalI);
  const xyB = normalizedKeypoints(state, j).map((v) => v * focalJ);
  const E = essentialBetween(state, i, j);
  const scaleJ = [1 / focalJ, 1 / focalJ, 1];
  const scaleI = [1 / focalI, 1 / focalI, 1];
  const F = E.map((e, k) => e * scaleJ[Math.floor(k / 3)] * scaleI[k % 3]);
  const neighbours = epipolarBandNeighbours({ F, xyA, countA: fi.count, xyB, countB: fj.count, bandPx: thresholdPx }, byteDistances(fi.descriptors, fj.descriptors, bytes, fj.count));
  const triples = mutualRatioMatches(neighbours, GUIDED_RATIO);
  const pairs = new Uint32Array((2 * triples.length) / 3);
  for (let k = 0, m = 0; k < triples.length; k += 3, m += 2) {
    pairs[m] = triples[k];
    pairs[m + 1] = triples[k + 1];
  }
  return pairs;
}
