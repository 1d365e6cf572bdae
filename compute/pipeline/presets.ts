/**
 * @module Quality presets: one choice of the client, mapped to options of every stage.
 *
 * | preset   | stored side | detect side, keypoints | SfM                                | depth side, iterations per level | mesh faces | time |
 * |----------|------------:|------------------------|------------------------------------|------------------:|-----------:|-----:|
 * | preview  | 1600 px     | 1200 px, 4000          | fewer local BA iters, one model    | 480 px, 3+1, 4 src  | 50k      | ~0.3×|
 * | standard | 2400 px     | 2000 px, 8000          | defaults (COLMAP-like)             | 800 px, 3+1+1, 4 src | 200k    | 1×   |
 * | high     | 3200 px     | 2400 px, 12000         | more BA iterations, more seeds     | 1200 px, 3+1+1, 6 src | 1M     | ~3×  |
 *
 * The image side bounds everything downstream: keypoints (and so matching cost, quadratic
 * in the number of images), depth-map resolution and mesh detail. OpenCV.js's heap (~1 GiB)
 * caps detection at about 2400 px (docs/DESIGN.md), so `high` stores larger images for dense
 * stereo while features detect on a downscaled copy.
 *
 * Dense stereo dominates the time; its cost grows with pixels × sources × hypotheses per pixel.
 * Coarse to fine (dense `pyramidLevels`): the full search runs on a quarter (or sixteenth) of
 * the pixels and each finer level only polishes the upsampled planes for `refineIterations`.
 * Measured on fountain-P11 at 800 px, 4 sources (PatchMatch alone on one SfM model, load ~4): single
 * scale with 3 iterations scored 166 M hypotheses in 364 s of PatchMatch wall time; two levels
 * (200 → 400 → 800 px, 3 + 1 + 1 iterations) 49 M in 94 s, with 96 % of the fused points; on
 * object-ring it fused a cloud with F 0.945 at 1 % of the radius (`npm run bench -- dense`).
 * `high` pays for 1200 px and 6 sources.
 *
 * Video keyframes: one per 10 % of the frame width the view moved (ingest's keyframes.ts), so
 * their number follows the path, not the duration; the caps (120, 400, 600) only bound a very
 * long walk. At the former cap of 80, a 2-minute drone video (bench scale --video=120) kept
 * 78 keyframes spaced by the cap instead of the motion, and 3 of them split off into a
 * model of their own at a turn.
 *
 * The stored side and the keyframe cap live in shared/presets.ts (PRESET_CAPS): the edge's
 * first time estimate (edge/scheduling/estimate.ts) costs a job by the same caps.
 *
 * Texture pages (texture stage): the photos' own pixel density, scaled down only when it does
 * not fit: preview one 4096² page, standard up to four 4096² pages (one 8192² worth, which
 * every WebGL viewer can load page by page), high up to four 8192² pages.
 */
import type { Quality } from "../../shared/jobs.js";
import { PRESET_CAPS } from "../../shared/presets.js";
import type { Options as DenseOptions } from "../stages/dense/index.js";
import type { Options as FeaturesOptions } from "../stages/features/index.js";
import type { Options as IngestOptions } from "../stages/ingest/index.js";
import type { Options as KeypointsOptions } from "../stages/keypoints/index.js";
import type { Options as MatchingOptions } from "../stages/matching/index.js";
import type { Options as MeshOptions } from "../stages/mesh/index.js";
import type { Options as SfmOptions } from "../stages/sfm/index.js";
import type { Options as TextureOptions } from "../stages/texture/index.js";

export interface StagePresets {
  ingest: Partial<IngestOptions>;
  features: Partial<FeaturesOptions>;
  /** Matching stays at the stage's defaults for every preset (its cost follows the keypoint count). */
  matching: Partial<MatchingOptions>;
  /** Keypoint refinement along tracks, at the stage's defaults for every preset (its cost is a fraction of matching's). */
  keypoints: Partial<KeypointsOptions>;
  sfm: Partial<SfmOptions>;
  dense: Partial<DenseOptions>;
  mesh: Partial<MeshOptions>;
  texture: Partial<TextureOptions>;
}

/**
 * Mesh faces for a capture: the preset's floor, plus `facesPerMegapixel` for every megapixel
 * of the registered photos, up to the preset's ceiling. A capture of many or large photos
 * holds more surface detail than the floor can show (fountain-P11: 11 × 3.8 MP stored at
 * standard stays at the floor; 100 such photos get 1M faces).
 */
export interface FaceBudget {
  floor: number;
  facesPerMegapixel: number;
  ceiling: number;
}

export const FACE_BUDGETS: Record<Quality, FaceBudget> = {
  preview: { floor: 50_000, facesPerMegapixel: 1_500, ceiling: 200_000 },
  standard: { floor: 200_000, facesPerMegapixel: 4_000, ceiling: 1_000_000 },
  high: { floor: 1_000_000, facesPerMegapixel: 12_000, ceiling: 3_000_000 },
};

export function faceBudgetFor(quality: Quality, photos: Array<{ width: number; height: number }>): number {
  const budget = FACE_BUDGETS[quality];
  const megapixels = photos.reduce((sum, p) => sum + (p.width * p.height) / 1e6, 0);
  return Math.round(Math.min(budget.ceiling, Math.max(budget.floor, budget.facesPerMegapixel * megapixels)));
}

export const QUALITY_PRESETS: Record<Quality, StagePresets> = {
  preview: {
    ingest: { maxImageSide: PRESET_CAPS.preview.storedSide, videoMaxKeyframes: PRESET_CAPS.preview.videoMaxKeyframes },
    features: { maxImageSide: 1200, maxFeatures: 4000 },
    matching: {},
    keypoints: {},
    // Global BA keeps the standard 40 iterations: at 20 a ring joined by pair registrations
    // (templeSparseRing at preview) converged to a wrong model (6/16 registered, 17° off).
    sfm: { localBaIterations: 6, globalBaIterations: 40, registrationRetries: 1, initCandidates: 6, maxModels: 1 },
    dense: { maxImageSide: 480, iterations: 3, pyramidLevels: 1, refineIterations: 1, sourceViews: 4 },
    mesh: { faceBudget: 50_000 },
    texture: { maxPageSize: 4096, maxPages: 1 },
  },
  standard: {
    ingest: { maxImageSide: PRESET_CAPS.standard.storedSide, videoMaxKeyframes: PRESET_CAPS.standard.videoMaxKeyframes },
    features: { maxImageSide: 2000, maxFeatures: 8000 },
    matching: {},
    keypoints: {},
    sfm: {},
    dense: { maxImageSide: 800, iterations: 3, pyramidLevels: 2, refineIterations: 1, sourceViews: 4 },
    mesh: { faceBudget: 200_000 },
    texture: { maxPageSize: 4096, maxPages: 4 },
  },
  high: {
    ingest: { maxImageSide: PRESET_CAPS.high.storedSide, videoMaxKeyframes: PRESET_CAPS.high.videoMaxKeyframes },
    features: { maxImageSide: 2400, maxFeatures: 12_000 },
    matching: {},
    keypoints: {},
    sfm: { localBaIterations: 20, globalBaIterations: 60, registrationRetries: 3, initCandidates: 20 },
    // Dense at 1200 px: 2.25× standard's pixels, × 6/4 sources ≈ 3.4× its hypotheses, to stay
    // near the "at most three times standard's time" of issue 13 (dense is about half of
    // standard's time). The former 1600 px with 5+2+2 iterations and 6 sources scored 4× the
    // pixels with more iterations at every level.
    dense: { maxImageSide: 1200, iterations: 3, pyramidLevels: 2, refineIterations: 1, sourceViews: 6 },
    mesh: { faceBudget: 1_000_000 },
    texture: { maxPageSize: 8192, maxPages: 4 },
  },
};
