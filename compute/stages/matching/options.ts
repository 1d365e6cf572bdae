/** @module Options of the matching stage and their defaults (index.ts), shared with the modules that pack and match pairs. */
import { availableParallelism } from "node:os";
import type { PairOptions } from "./pairs.js";
import type { VerifyOptions } from "./verify.js";

export interface Options extends PairOptions, VerifyOptions {
  /** Lowe's ratio: nearest / second-nearest Hamming distance must be below it (both directions). */
  ratio: number;
  /** Worker threads; default all cores. */
  workers: number;
  /**
   * Guided matching (geometry/epipolar-band.ts): a pair of images that both have at least `guidedMinKeypoints`
   * first matches only their `guidedSubset` largest-scale keypoints (large-scale features
   * repeat best across views: Wu, "Towards linear-time incremental structure from motion",
   * 3DV 2013), and if the subset gives a trustworthy F, matches all keypoints along its
   * epipolar lines. 0 = off.
   */
  guidedSubset: number;
  /**
   * Keypoints both images need for guided matching. A pair whose subset does not verify pays
   * the subset search on top of the exhaustive one, which only pays off when the exhaustive
   * search is much dearer than the subset's: on 16 images of ~3,600 keypoints (a sparse ring
   * where most pairs do not overlap) guidance at 1,500 cost 11.4 → 15.1 s of CPU; on 10
   * images of ~4,300 with half the pairs weak, 5.9 → 5.6 s.
   */
  guidedMinKeypoints: number;
  /** Verified subset inliers off the pair's dominant homography (inliers × (1 − H ratio)) needed before F guides the matching. */
  guidedMinInliers: number;
  /** Band half-width around each epipolar line, as a multiple of the verification threshold. */
  guidedBand: number;
  /**
   * Lowe's ratio among the band's candidates, stricter than `ratio`: the second-nearest now
   * comes from a few dozen candidates instead of thousands, so it is farther and a plain 0.8
   * lets through wrong matches that happen to lie on the line. Measured median rotation errors
   * (Herz-Jesus-P8 / fountain-P11): exhaustive 0.078° / 0.044°; guided at 0.8 0.137° / –, at
   * 0.7 0.086° / 0.044°, at 0.6 0.043° / 0.036°, at 0.5 0.093° / 0.041°.
   */
  guidedRatio: number;
  /**
   * The search over a pair's full keypoint sets (the guided search keeps its band): "off"
   * compares every descriptor of A with every one of B (kernel.ts); "mih" compares only the
   * candidates multi-index hashing finds (ann.ts), for pairs where both images have at least
   * `annMinKeypoints`, and searches weak pairs again exhaustively (`annWeakMatches`).
   */
  ann: "off" | "mih";
  /**
   * Keypoints both images need before the approximate search is used. Per pair it takes
   * 2.4–2.8× less CPU than the exhaustive search at 4,000 keypoints, 3.6–4.4× at 8,000 and
   * 4.5–5.3× at 12,000 (`npm run bench -- ann`, Herz-Jesus-P8 and fountain-P11). In the stage,
   * with weak pairs searched twice: at 12,000 (high) 6.9 → 5.8 s and 16.5 → 12.1 s of CPU with
   * the same verified pairs and as many inliers; at 8,000 (standard) guided matching takes the
   * strong pairs and most of those left are weak: 3.9 → 4.2 s and 8.4 → 8.2 s; at 4,000
   * (preview) 2.4 → 1.9 s and 4.3 → 3.6 s, but fountain-P11 kept 1.3 % fewer inliers and
   * tracks. So it is on for the high preset's keypoint counts only.
   */
  annMinKeypoints: number;
  /**
   * A pair whose approximate search gives at most this many ratio + mutual matches is searched
   * again exhaustively (0: never). On a weak pair a few matches decide verification, and the
   * index both misses true matches (those 80–100 bits apart 51–81 % of the time) and passes
   * matches whose second-nearest it missed. Measured by verifying such pairs under 20 RANSAC
   * seeds: wrong pairs (most inliers off the published cameras' epipolar lines) verified 9 and
   * 11 times out of 20 from the approximate matches against 3 and 1 from the exhaustive ones,
   * and a true pair 16 times against 20. No pair with more than 150 approximate matches
   * verified differently.
   */
  annWeakMatches: number;
}

export const DEFAULTS: Options = {
  ratio: 0.8,
  exhaustiveMaxImages: 40,
  sequentialWindow: 10,
  loopClosureNeighbours: 3,
  retrievalNeighbours: 20,
  gpsNeighbours: 12,
  gpsMinShare: 0.8,
  retrieval: { branching: 10, depth: 4, trainingSample: 100_000, iterations: 4, perImage: 3000 },
  epipolarThreshold: 0.0013,
  homographyThreshold: 0.0013,
  minInliers: 15,
  homographyMinRatio: 0.8,
  maxRansacIterations: 2000,
  workers: availableParallelism(),
  guidedSubset: 1500,
  guidedMinKeypoints: 6000,
  guidedMinInliers: 15,
  guidedBand: 2,
  guidedRatio: 0.6,
  ann: "mih",
  annMinKeypoints: 10_000,
  annWeakMatches: 150,
};
