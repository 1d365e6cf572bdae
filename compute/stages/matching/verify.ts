/**
 * @module Geometric verification of one image pair's putative matches: a robust fundamental
 * matrix (LO-RANSAC over 7-point samples, Sampson distance; compute/geometry/fundamental.ts),
 * then a robust homography on the F inliers. When H explains most F inliers the pair has little
 * parallax (a plane, or a camera turning about its centre) and is flagged "homography" so SfM
 * does not initialise from it (COLMAP's two-view geometry configuration, Schönberger & Frahm,
 * CVPR 2016, §4.2).
 *
 * Why compute/geometry rather than OpenCV: opencv-js 4.12 exports findHomography but not
 * findFundamentalMat, and the project's estimators are pure TypeScript, so matching workers do
 * not have to load the OpenCV wasm at all.
 */
import { estimateFundamental } from "../../geometry/fundamental.js";
import { estimateHomography, transferError } from "../../geometry/homography.js";
import type { Rng } from "../../math/random.js";
import type { VerifiedPair } from "../../scene/matches.js";

export interface VerifyOptions {
  /** Sampson-distance threshold as a fraction of the larger image's long side (e.g. 0.0012 → 3.7 px at 3072). */
  epipolarThreshold: number;
  /** Homography transfer-error threshold, same unit; looser than F: H models are only checked for dominance. */
  homographyThreshold: number;
  /** Fewer F inliers than this and the pair is rejected. */
  minInliers: number;
  /** A pair whose homography explains at least this share of the F inliers is flagged "homography". */
  homographyMinRatio: number;
  maxRansacIterations: number;
}

export type Verified = { pair: VerifiedPair; reason?: undefined } | { pair?: undefined; reason: string };

/**
 * `matches` are (indexA, indexB, distance) triples into the keypoints `xyA`, `xyB` (pixels);
 * `longSide` is max(width, height) over both images.
 */
export function verifyPair(imageA: number, imageB: number, xyA: Float32Array, xyB: Float32Array, matches: Uint32Array, longSide: number, options: VerifyOptions, rng: Rng): Verified {
  const count = matches.length / 3;
  if (count < options.minInliers) return { reason: `${count} putative matches < ${options.minInliers}` };
  const x1 = new Float64Array(2 * count);
  const x2 = new Float64Array(2 * count);
  for (let k = 0; k < count; k++) {
    const i = matches[3 * k];
    const j = matches[3 * k + 1];
    x1[2 * k] = xyA[2 * i];
    x1[2 * k + 1] = xyA[2 * i + 1];
    x2[2 * k] = xyB[2 * j];
    x2[2 * k + 1] = xyB[2 * j + 1];
  }
  const thresholdPx = Math.max(1, options.epipolarThreshold * longSide);
  const robust = { confidence: 0.999, maxIterations: options.maxRansacIterations, rng };
  const fundamental = estimateFundamental(x1, x2, count, { ...robust, thresholdPx });
  if (!fundamental || fundamental.inlierCount < options.minInliers) return { reason: `${fundamental?.inlierCount ?? 0} epipolar inliers < ${options.minInliers}` };
  const inlierCount = fundamental.inlierCount;
  const inlierMatches = new Uint32Array(2 * inlierCount);
  const y1 = new Float64Array(2 * inlierCount);
  const y2 = new Float64Array(2 * inlierCount);
  for (let k = 0, n = 0; k < count; k++) {
    if (!fundamental.inliers[k]) continue;
    inlierMatches[2 * n] = matches[3 * k];
    inlierMatches[2 * n + 1] = matches[3 * k + 1];
    y1.set(x1.subarray(2 * k, 2 * k + 2), 2 * n);
    y2.set(x2.subarray(2 * k, 2 * k + 2), 2 * n);
    n++;
  }
  const homographyThresholdPx = Math.max(1, options.homographyThreshold * longSide);
  const homographyRatio = dominantHomography(y1, y2, inlierCount, homographyThresholdPx, robust);
  const homography = homographyRatio.H;
  return {
    pair: {
      imageA,
      imageB,
      matches: inlierMatches,
      model: homographyRatio.ratio >= options.homographyMinRatio ? "homography" : "fundamental",
      F: fundamental.F,
      ...(homography ? { H: homography } : {}),
      homographyRatio: homographyRatio.ratio,
    },
  };
}

/**
 * RANSAC iterations of the homography test. 200 four-point samples contain an all-inlier one
 * with probability 1 − (1 − 0.4⁴)²⁰⁰ > 99.4 % when some H explains 40 % of the correspondences,
 * so every decision against 0.8 (and SfM's 0.85) is safe; below 40 % the ratio only lowers an
 * initial-pair score. The full 2000 spent ~10 ms per non-planar pair on a ratio near 0.2.
 */
const HOMOGRAPHY_ITERATIONS = 200;

/** Correspondences used to estimate H; the ratio is then counted over all of them. */
const HOMOGRAPHY_SAMPLE = 400;

/**
 * Share of the correspondences one homography explains. H is estimated on an evenly strided
 * subset of at most HOMOGRAPHY_SAMPLE (its LO refits solve a DLT over every inlier, which on
 * a thousand inliers cost more than the descriptor matching), then scored on all of them: the
 * ratio carries a sampling error of ~2.5% at most, and the decision is against 0.8.
 */
function dominantHomography(x1: Float64Array, x2: Float64Array, count: number, thresholdPx: number, robust: { confidence: number; maxIterations: number; rng: Rng }): { ratio: number; H?: Float64Array } {
  const stride = Math.max(1, count / HOMOGRAPHY_SAMPLE);
  const take = Math.min(count, HOMOGRAPHY_SAMPLE);
  const s1 = new Float64Array(2 * take);
  const s2 = new Float64Array(2 * take);
  for (let k = 0; k < take; k++) {
    const i = Math.floor(k * stride);
    s1.set(x1.subarray(2 * i, 2 * i + 2), 2 * k);
    s2.set(x2.subarray(2 * i, 2 * i + 2), 2 * k);
  }
  const estimate = estimateHomography(s1, s2, take, { ...robust, maxIterations: Math.min(robust.maxIterations, HOMOGRAPHY_ITERATIONS), thresholdPx });
  if (!estimate) return { ratio: 0 };
  let explained = 0;
  for (let i = 0; i < count; i++) if (transferError(estimate.H, x1, x2, i) < thresholdPx) explained++;
  return { ratio: explained / count, H: estimate.H };
}
