/**
 * @module Quality presets: one choice of the client, mapped to options of every stage.
 *
 * | preset   | stored side | detect side, keypoints | SfM                                | depth side, iters | mesh faces | time |
 * |----------|------------:|------------------------|------------------------------------|------------------:|-----------:|-----:|
 * | preview  | 1600 px     | 1200 px, 4000          | fewer BA iterations, one model     | 480 px, 3, 4 src  | 50k        | ~0.3×|
 * | standard | 2400 px     | 2000 px, 8000          | defaults (COLMAP-like)             | 800 px, 3, 4 src  | 200k       | 1×   |
 * | high     | 3200 px     | 2400 px, 12000         | more BA iterations, more seeds     | 1600 px, 5, 6 src | 1M         | ~4×  |
 *
 * The image side bounds everything downstream: keypoints (and so matching cost, quadratic
 * in the number of images), depth-map resolution and mesh detail. OpenCV.js's heap (~1 GiB)
 * caps detection at about 2400 px (DESIGN.md), so `high` stores larger images for dense
 * stereo while features detect on a downscaled copy.
 *
 * Dense stereo dominates the time: one 640×480 view with 4 sources costs ~18 s of CPU at 3
 * PatchMatch iterations and ~26 s at 5 (the 5th iteration moves the median depth error from
 * 0.06 % to 0.02 %), and cost grows with pixels × sources × iterations. So `standard` works at
 * 800 px with 3 iterations and 4 sources; `high` pays for 1600 px, 5 iterations, 6 sources.
 */
import type { Quality } from "../../shared/jobs.js";
import type { Options as DenseOptions } from "../stages/dense/index.js";
import type { Options as FeaturesOptions } from "../stages/features/index.js";
import type { Options as IngestOptions } from "../stages/ingest/index.js";
import type { Options as MatchingOptions } from "../stages/matching/index.js";
import type { Options as MeshOptions } from "../stages/mesh/index.js";
import type { Options as SfmOptions } from "../stages/sfm/index.js";

export interface StagePresets {
  ingest: Partial<IngestOptions>;
  features: Partial<FeaturesOptions>;
  /** Matching stays at the stage's defaults for every preset (its cost follows the keypoint count). */
  matching: Partial<MatchingOptions>;
  sfm: Partial<SfmOptions>;
  dense: Partial<DenseOptions>;
  mesh: Partial<MeshOptions>;
}

export const QUALITY_PRESETS: Record<Quality, StagePresets> = {
  preview: {
    ingest: { maxImageSide: 1600, videoMaxKeyframes: 40 },
    features: { maxImageSide: 1200, maxFeatures: 4000 },
    matching: {},
    sfm: { localBaIterations: 6, globalBaIterations: 20, registrationRetries: 1, initCandidates: 6, maxModels: 1 },
    dense: { maxImageSide: 480, iterations: 3, sourceViews: 4 },
    mesh: { faceBudget: 50_000 },
  },
  standard: {
    ingest: { maxImageSide: 2400, videoMaxKeyframes: 80 },
    features: { maxImageSide: 2000, maxFeatures: 8000 },
    matching: {},
    sfm: {},
    dense: { maxImageSide: 800, iterations: 3, sourceViews: 4 },
    mesh: { faceBudget: 200_000 },
  },
  high: {
    ingest: { maxImageSide: 3200, videoMaxKeyframes: 120 },
    features: { maxImageSide: 2400, maxFeatures: 12_000 },
    matching: {},
    sfm: { localBaIterations: 20, globalBaIterations: 60, registrationRetries: 3, initCandidates: 20 },
    dense: { maxImageSide: 1600, iterations: 5, sourceViews: 6 },
    mesh: { faceBudget: 1_000_000 },
  },
};
