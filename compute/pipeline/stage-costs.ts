/**
 * @module What each stage of one job will cost, from the job's shape, so that the overall
 * progress (progress.ts) advances in proportion to wall time and the time left extrapolated from
 * it is truthful for a job of 10 photos and one of 800 alike.
 *
 * Fixed weights could not be: dense had 33 % of the percentage and takes 46–69 % of the time
 * depending on the capture, so at dense start a job was told less than half the time it had
 * left (`npm run bench -- eta`). Each stage's cost here follows what its work grows with,
 * with constants fitted on the development machine's runs of that bench (2 cores;
 * docs/decisions.md, "Stage weights come from the job's shape"; the current figures are in
 * BENCHMARKS.md). Only ratios matter: a machine uniformly faster or slower keeps the shares, and
 * the extrapolation takes its speed from the elapsed time.
 *
 * - features: per image, a fixed part (decode, upload to the detector) and a part per detected
 *   megapixel (the pyramid and descriptors);
 * - matching: per selected pair (every pair up to `exhaustiveMaxImages`, then sequential,
 *   retrieval and GPS neighbours), growing with the keypoints, plus keypoint refinement per image;
 * - sfm: superlinear in the images (the global bundle adjustments' reduced system), measured
 *   as about n^1.35 from 50 to 800 photos (docs/decisions.md, "SfM's cost grows as about n^1.35");
 * - dense: per view, plus per depth-map pixel × the PatchMatch work per pixel (sources ×
 *   iterations over the pyramid);
 * - mesh, export: per depth-map pixel (the fused cloud follows it);
 * - texture: per image (projection and blending) and per stored megapixel (the atlas' reads).
 */
import type { Stage } from "../../shared/records.js";
import type { ImageRef } from "../scene/images.js";
import type { StagePresets } from "./presets.js";
import type { StageWeights } from "./progress.js";

/** The stage options the costs depend on, with the stages' defaults filled in by the caller. */
export interface CostOptions {
  featureSide: number;
  maxFeatures: number;
  exhaustiveMaxImages: number;
  retrievalNeighbours: number;
  sequentialWindow: number;
  loopClosureNeighbours: number;
  depthSide: number;
  sourceViews: number;
  /** PatchMatch iterations at the coarsest level, and at each finer one. */
  iterations: number;
  pyramidLevels: number;
  refineIterations: number;
  /** The working level's last propagation sweep (dense Options.finalPropagation). */
  finalPropagation: boolean;
}

/** Seconds on the development machine (2 cores), per unit named by each constant. */
export const COSTS = {
  featuresPerImage: 0.5,
  featuresPerMegapixel: 0.03,
  /** Per pair, per (keypoints / 1,000)^1.3 (fitted: 22 ms a pair at 3,400 keypoints, 64–71 at 8,000). */
  matchingPerPair: 0.00456,
  matchingKeypointPower: 1.3,
  /** Per image and per stored megapixel: keypoint refinement reads each photo around its tracks. */
  matchingPerImage: 0.05,
  matchingPerMegapixel: 0.06,
  /** Keypoints a detected megapixel gives, below the preset's cap. */
  keypointsPerMegapixel: 11_000,
  /** Model selection (focal starts, the principal point's split-half check) costs a small set several seconds whatever its size. */
  sfmFixed: 8,
  sfmPerImagePower: 0.028,
  sfmPower: 1.35,
  /**
   * Per depth map, whatever its size: reading and undistorting the view and its sources, the
   * cluster's set-up. Fitted on fountain-P11 at standard (800 px) and preview (480 px): 4.1 and
   * 3.05 s a view, so most of a view's cost does not follow its pixels.
   */
  densePerImage: 1.5,
  /** Per depth-map megapixel per unit of PatchMatch work (one source, one iteration at full size). */
  densePerMegapixelWork: 0.88,
  /**
   * The working level's final propagation, in iterations at full size: it scores 20 % more
   * hypotheses than the rest of PatchMatch at standard (synthetic facade 119.0 → 142.6 M) and took
   * Herz-Jesus-P8's dense stage from 22.0 to 26.9 s (docs/decisions.md, "The working level's planes
   * are spread once more"): a fifth more than the standard pyramid's 1.44 iterations.
   */
  denseFinalPropagationWork: 0.3,
  meshFixed: 2,
  meshPerMegapixel: 0.15,
  /** The atlas: a fixed part (pages, packing), per image (visibility, blending), per stored megapixel (reads). */
  textureFixed: 4,
  texturePerImage: 0.05,
  texturePerMegapixel: 0.14,
  exportFixed: 2,
  /** A sparse-only job exports cameras and the sparse cloud only. */
  exportSparse: 0.3,
  exportPerMegapixel: 0.08,
} as const;

/** The megapixels of an image scaled to fit `side` (never enlarged). */
function megapixelsAt(image: { width: number; height: number }, side: number): number {
  const scale = Math.min(1, side / Math.max(image.width, image.height));
  return (image.width * scale * (image.height * scale)) / 1e6;
}

/** Pairs matching will select for these images (pairs.ts's rules, without retrieval's overlaps between lists). */
export function expectedPairs(images: readonly Pick<ImageRef, "width" | "height" | "video">[], options: CostOptions): number {
  const n = images.length;
  if (n <= options.exhaustiveMaxImages) return (n * (n - 1)) / 2;
  let pairs = 0;
  for (const image of images) pairs += image.video ? options.sequentialWindow + options.loopClosureNeighbours : options.retrievalNeighbours;
  // A retrieval list and its partner's often name each other: about 30 % of the pairs are such duplicates.
  return Math.min((n * (n - 1)) / 2, 0.7 * pairs);
}

/** PatchMatch work per full-size pixel: sources × iterations summed over the pyramid's levels (each level a quarter of the pixels below it). */
function patchMatchWork(options: CostOptions): number {
  let work = options.iterations / 4 ** options.pyramidLevels;
  for (let level = options.pyramidLevels - 1; level >= 0; level--) work += options.refineIterations / 4 ** level;
  if (options.finalPropagation && options.pyramidLevels > 0) work += COSTS.denseFinalPropagationWork;
  return options.sourceViews * work;
}

/**
 * Expected seconds of each stage after ingest, for `images` on the development machine.
 * `keypointsPerImage`, once features has run, replaces the guess from the pixels (a textured
 * scene gives several times the keypoints of a dull one of the same size).
 */
export function stageSeconds(images: readonly Pick<ImageRef, "width" | "height" | "video">[], options: CostOptions, sparseOnly: boolean, keypointsPerImage?: number): Partial<Record<Stage, number>> {
  const n = images.length;
  let detected = 0;
  let stored = 0;
  let depth = 0;
  for (const image of images) {
    detected += megapixelsAt(image, options.featureSide);
    stored += image.width * image.height / 1e6;
    depth += megapixelsAt(image, options.depthSide);
  }
  const keypoints = keypointsPerImage ?? Math.min(options.maxFeatures, (COSTS.keypointsPerMegapixel * detected) / Math.max(1, n));
  const seconds: Partial<Record<Stage, number>> = {
    features: n * COSTS.featuresPerImage + detected * COSTS.featuresPerMegapixel,
    matching: expectedPairs(images, options) * COSTS.matchingPerPair * (keypoints / 1000) ** COSTS.matchingKeypointPower + n * COSTS.matchingPerImage + stored * COSTS.matchingPerMegapixel,
    sfm: COSTS.sfmFixed + COSTS.sfmPerImagePower * n ** COSTS.sfmPower,
  };
  if (!sparseOnly) {
    seconds.dense = n * COSTS.densePerImage + depth * COSTS.densePerMegapixelWork * patchMatchWork(options);
    seconds.mesh = COSTS.meshFixed + depth * COSTS.meshPerMegapixel;
    seconds.texture = COSTS.textureFixed + n * COSTS.texturePerImage + stored * COSTS.texturePerMegapixel;
  }
  seconds.export = sparseOnly ? COSTS.exportSparse : COSTS.exportFixed + depth * COSTS.exportPerMegapixel;
  return seconds;
}

/**
 * Progress weights for a job whose ingest took `ingestSeconds`: every stage's expected seconds,
 * ingest at what it took. The weights keep the order of `base` (the same stages). A stage that
 * has run keeps its expected seconds, not what it took: the tracker measures the machine's pace
 * as time taken over expected.
 */
export function jobWeights(base: StageWeights, images: readonly Pick<ImageRef, "width" | "height" | "video">[], options: CostOptions, sparseOnly: boolean, ingestSeconds: number, keypointsPerImage?: number): StageWeights {
  const seconds = stageSeconds(images, options, sparseOnly, keypointsPerImage);
  const weights: StageWeights = {};
  for (const stage of Object.keys(base) as Stage[]) weights[stage] = stage === "ingest" ? Math.max(0.1, ingestSeconds) : Math.max(0.01, seconds[stage] ?? 0);
  return weights;
}

/** The cost options of a preset, each stage's defaults under it. */
export function costOptions(preset: StagePresets, defaults: { features: { maxImageSide: number; maxFeatures: number }; matching: Pick<CostOptions, "exhaustiveMaxImages" | "retrievalNeighbours" | "sequentialWindow" | "loopClosureNeighbours">; dense: { maxImageSide: number; sourceViews: number; iterations: number; pyramidLevels: number; refineIterations: number; finalPropagation: boolean } }): CostOptions {
  const features = { ...defaults.features, ...preset.features };
  const matching = { ...defaults.matching, ...preset.matching };
  const dense = { ...defaults.dense, ...preset.dense };
  return {
    featureSide: features.maxImageSide,
    maxFeatures: features.maxFeatures,
    exhaustiveMaxImages: matching.exhaustiveMaxImages,
    retrievalNeighbours: matching.retrievalNeighbours,
    sequentialWindow: matching.sequentialWindow,
    loopClosureNeighbours: matching.loopClosureNeighbours,
    depthSide: dense.maxImageSide,
    sourceViews: dense.sourceViews,
    iterations: dense.iterations,
    pyramidLevels: dense.pyramidLevels,
    refineIterations: dense.refineIterations,
    finalPropagation: dense.finalPropagation,
  };
}
