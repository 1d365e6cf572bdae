/** @module Verified matches between image pairs, and the tracks built from them. */

export type PairModel = "fundamental" | "essential" | "homography";

export interface VerifiedPair {
  imageA: number;
  imageB: number;
  /** Inlier correspondences as keypoint index pairs (a0, b0, a1, b1, ...). */
  matches: Uint32Array;
  /** The model that best explains the pair; `homography` flags planar scenes or pure rotation. */
  model: PairModel;
  /** Row-major 3×3 fundamental matrix (x_bᵀ F x_a = 0), when estimated. */
  F?: Float64Array;
  /** Row-major 3×3 homography x_b ~ H x_a, when estimated. */
  H?: Float64Array;
  /** Homography inliers / fundamental inliers: high means little parallax. */
  homographyRatio: number;
}

/**
 * Tracks in CSR form: track k observes (trackImages[j], trackKeypoints[j]) for
 * j in [trackOffsets[k], trackOffsets[k+1]). At most one keypoint per image per track.
 */
export interface Tracks {
  count: number;
  trackOffsets: Uint32Array;
  trackImages: Uint32Array;
  trackKeypoints: Uint32Array;
}
