/** @module Options of the structure-from-motion stage, with defaults (COLMAP's mapper defaults where they apply). */
import type { ControlTarget } from "./control.js";

export const NAME = "sfm";

export interface Options {
  /** RANSAC inlier threshold for the essential matrix and PnP, in pixels. */
  ransacThresholdPx: number;
  /** Initial-pair candidates to try before giving up (best scored first). */
  initCandidates: number;
  /** A candidate pair is skipped when its homography/fundamental inlier ratio is above this (little parallax). */
  initMaxHomographyRatio: number;
  /** Minimum points a two-view model must keep after BA to be accepted. */
  initMinPoints: number;
  /** Minimum median triangulation angle of the two-view model, degrees. */
  initMinMedianAngleDeg: number;
  /** Minimum 2-D–3-D inliers for PnP registration. */
  minPnpInliers: number;
  /** Minimum inlier ratio of PnP registration. */
  minPnpInlierRatio: number;
  /**
   * When no image registers by PnP, an image may register from a verified pair of at least
   * this many matches with a registered image (register-pair.ts); 0 turns it off.
   */
  pairRegistrationMinMatches: number;
  /** Triangulated points that must agree on the baseline length of a pair registration. */
  pairRegistrationMinPoints: number;
  /**
   * Sampson threshold of the pair registration's essential matrix, as a fraction of the
   * image's long side (at least 0.5 px). Tighter than `ransacThresholdPx` on purpose: the
   * pair's matches are already verified at about this accuracy, and a loose threshold lets
   * the rotation–translation (bas-relief) ambiguity of a narrow field of view pick a wrong
   * rotation (temple ring, f ≈ 2.4 × width: at 4 px two of five links came out 25–29°
   * wrong with every match still an inlier; at 0.5 px all five were within 3.8°).
   */
  pairRegistrationThreshold: number;
  /** A new point needs at least this triangulation angle (degrees) between some pair of its rays. */
  minTriangulationAngleDeg: number;
  /** Observations with a larger reprojection error are dropped (pixels). */
  maxReprojectionErrorPx: number;
  /** Cameras in a local bundle adjustment: the new one plus its best-connected registered neighbours. */
  localBaCameras: number;
  /** Global BA runs when the registered set grew by this fraction since the last one… */
  globalBaGrowth: number;
  /**
   * …and by this larger fraction once it has `largeModelCameras` cameras. A global BA costs in
   * proportion to the model, so the ones while it grows add up to 1 / (1 − 1/(1 + growth)) BAs of
   * the final size: 7.7 at 0.15, 4.3 at 0.3. On the 800-photo survey SfM took 383 s instead of
   * 432 s (global BA 251 s instead of 296 s) with the same cameras to the third decimal
   * (0.135/0.461°); at 200 photos, 0.3 throughout gave 54.1 s instead of 60.6 s, also with the
   * same cameras. The final refinement rounds reach the same optimum, and local BA keeps each new
   * camera consistent in between (`npm run bench -- scale --sizes=200,800 --sparse-only`;
   * docs/decisions.md, "Global bundle adjustments grow geometrically in large models"). Below
   * `largeModelCameras` global BAs are cheap and a small model has little redundancy, so the
   * small ratio stays (every set in ../shared/datasets is below it).
   */
  largeModelGlobalBaGrowth: number;
  largeModelCameras: number;
  /**
   * Robust loss scale for bundle adjustment (Cauchy), pixels for the image's finest keypoints;
   * a coarser keypoint's residual is divided by its σ first (bundle.ts keypointSigma), so its
   * scale in pixels is σ times this.
   */
  baLossScalePx: number;
  localBaIterations: number;
  globalBaIterations: number;
  /**
   * Threads of the bundle adjustments of a model of at least `baParallelMinImages` registered
   * photos, local and global, that have at least `baParallelMinObservations` observations
   * (solvers/bundle-adjustment/team.ts): 0 = every available core, 1 = the calling thread
   * alone. A team sums in another order (the same cameras to rounding). Every model size uses
   * it: Herz-Jesus-P8's 8 photos run 34 adjustments of ~24k observations, and its SfM went
   * 10.0 → 6.2 s with the team (docs/decisions.md, "Bundle adjustment shares its passes with a
   * thread team").
   */
  baThreads: number;
  baParallelMinImages: number;
  baParallelMinObservations: number;
  /** Refine focal and k1, k2 per intrinsics group in global BA. */
  refineIntrinsics: boolean;
  /** Refine radial distortion (k1, k2) when it is observable (bundle.ts distortionObservable); false keeps it at 0. */
  refineDistortion: boolean;
  /**
   * Try refining the principal point in the last global BA; the result is kept only when no
   * group's principal point moved more than this fraction of its image diagonal (0 = never try).
   * 4 %: templeSparseRing's published principal point is 19 px (2.3 % of the diagonal) from
   * the centre; the refinement's other test, a real drop of the reprojection error, is what
   * rejects the rotation trade-off on sets whose centre is exact.
   */
  principalPointMaxShift: number;
  /**
   * Loop closure (closure.ts): at most this many registered pairs without a verified pair
   * are matched along their epipolar lines once the model stops growing; 0 turns it off.
   */
  loopClosureMaxPairs: number;
  /** Largest angle between two cameras' optical axes for them to be a loop-closure candidate, degrees. */
  loopClosureMaxAngleDeg: number;
  /** Half-width of the epipolar band of guided matching, pixels. */
  loopClosureThresholdPx: number;
  /** Guided matches a pair needs before they are added to the tracks. */
  loopClosureMinMatches: number;
  /** Passes over the failed images after the model grows (COLMAP retries registration too). */
  registrationRetries: number;
  /** Extra final refinement rounds (BA, filter, re-triangulation) while the observations still change. */
  finalRefinementRounds: number;
  /**
   * Models to seed at most, each on images no earlier model took, while some group of
   * connected images is larger than the largest model so far (an upload of several scenes,
   * or a weak link that split one); only the largest model is kept.
   */
  maxModels: number;
  /**
   * Other first guesses of a focal that only the default prior gave (no EXIF), in multiples of
   * the image's longest side, tried in turn while the model from the prior leaves out photos
   * that verified matches connect to it (focal-guess.ts). Empty: the prior only.
   */
  focalGuessFactors: number[];
  /**
   * Where several starts are sure to run (a small upload without EXIF, and the one-camera
   * fallback), one of them runs on a thread of its own beside the calling thread's
   * (start-thread.ts), from the same inputs and seed: the same models as in turn, in less time.
   */
  parallelStarts: boolean;
  /**
   * Photos' GPS positions (EXIF) as priors on their camera centres in every global bundle
   * adjustment (georeference.ts), when they are spread widely enough to mean something.
   */
  gpsPriors: boolean;
  /** Standard deviation of a GPS position, horizontal and vertical, metres (a consumer receiver's, without RTK). */
  gpsSigmaM: number;
  gpsVerticalSigmaM: number;
  /**
   * Positions whose spread is below this many horizontal σ across the capture's second-widest
   * direction say nothing a photo does not (a walk around an object: the fixes scatter within
   * the noise), or leave the block free to turn about a line (one straight strip): no priors.
   */
  gpsMinSpreadSigmas: number;
  /**
   * Ground control and checkpoints of a survey (control.ts): surveyed targets in the API frame
   * in metres, with their marks in the photos. With three or more usable control points the
   * model ends in that frame, adjusted with them (control-adjust.ts); empty: none.
   */
  controlPoints: ControlTarget[];
  /** Standard deviation of a control mark (a click on a target's centre), pixels of the photo as ingest stored it. */
  controlMarkSigmaPx: number;
  /** A mark is dropped when its reprojection error exceeds max(this, 4 × controlMarkSigmaPx), pixels (control.ts). */
  controlMarkMaxErrorPx: number;
  /**
   * A control point is left out when its residual to its stated position exceeds max(this many
   * of its stated σ, controlMedianFactor × the median residual of the other control points).
   */
  controlMaxSigmas: number;
  controlMedianFactor: number;
  /** Seed of the RANSAC random generator, so runs are reproducible. */
  seed: number;
}

export const DEFAULTS: Options = {
  ransacThresholdPx: 4,
  initCandidates: 12,
  initMaxHomographyRatio: 0.85,
  initMinPoints: 30,
  initMinMedianAngleDeg: 2,
  minPnpInliers: 20,
  minPnpInlierRatio: 0.2,
  pairRegistrationMinMatches: 50,
  pairRegistrationMinPoints: 1,
  pairRegistrationThreshold: 0.0008,
  minTriangulationAngleDeg: 1.5,
  maxReprojectionErrorPx: 4,
  localBaCameras: 6,
  globalBaGrowth: 0.15,
  largeModelGlobalBaGrowth: 0.3,
  largeModelCameras: 100,
  baLossScalePx: 1,
  localBaIterations: 12,
  globalBaIterations: 40,
  baThreads: 0,
  baParallelMinImages: 0,
  baParallelMinObservations: 5_000,
  refineIntrinsics: true,
  refineDistortion: true,
  principalPointMaxShift: 0.04,
  loopClosureMaxPairs: 40,
  loopClosureMaxAngleDeg: 60,
  loopClosureThresholdPx: 2,
  loopClosureMinMatches: 30,
  registrationRetries: 2,
  finalRefinementRounds: 3,
  maxModels: 6,
  // A phone's or drone's wide lens (~65° across the long side) and a short telephoto (~28°),
  // either side of the ingest prior's 1.2 (~45°, a normal lens).
  focalGuessFactors: [0.8, 2.0],
  parallelStarts: true,
  gpsPriors: true,
  gpsSigmaM: 2,
  gpsVerticalSigmaM: 4,
  gpsMinSpreadSigmas: 5,
  controlPoints: [],
  controlMarkSigmaPx: 1,
  controlMarkMaxErrorPx: 4,
  controlMaxSigmas: 5,
  controlMedianFactor: 5,
  seed: 1,
};
