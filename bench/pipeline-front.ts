/** @module Ingest, features, matching and keypoint refinement the way compute/pipeline runs them, for the benches that time the stages one by one. */
import { FRESH_FRONT, holdFront, type FrontLease, type FrontWorkers } from "../compute/pipeline/front-pool.js";
import { placeCameras, WIDE_BASELINE_MAX_IMAGES, type PlacedCameras } from "../compute/pipeline/place-cameras.js";
import type { StagePresets } from "../compute/pipeline/presets.js";
import type { ImageFeatures, ImageRef } from "../compute/scene/index.js";
import * as features from "../compute/stages/features/index.js";
import * as ingest from "../compute/stages/ingest/index.js";
import * as keypoints from "../compute/stages/keypoints/index.js";
import * as matching from "../compute/stages/matching/index.js";

export interface FrontResult {
  images: ImageRef[];
  detected: features.Output;
  matched: matching.Output;
  /** The keypoint refinement's report (detected.features are the refined ones). */
  refined: keypoints.Output["report"];
  /** The features before refinement, which the wide-baseline matching adds to (compute/pipeline/place-cameras.ts). */
  unrefined: ImageFeatures[];
}

/**
 * Runs ingest, features and matching on the pipeline's front workers, from `lease`: started
 * before ingest by default (they load OpenCV.js while the images decode), or kept loaded from
 * earlier work as the compute service keeps them (KeptFrontWorkers); records each stage's wall
 * time in seconds into `seconds`.
 */
export async function runFront(files: Array<{ path: string; name: string }>, workDir: string, preset: StagePresets, seconds: Record<string, number>, lease: FrontLease = FRESH_FRONT): Promise<FrontResult> {
  const front = lease.acquire(preset.features.workers ?? features.DEFAULTS.workers);
  try {
    return await frontStages(files, workDir, preset, seconds, front);
  } finally {
    await lease.release(front);
  }
}

/**
 * The front, then camera placement, as compute/pipeline/index.ts runs them: a small upload's
 * front workers stay loaded for placeCameras' second matching. `seconds.sfm` is placement alone
 * (both SfM tries and the second matching), recorded also when placement refuses (and throws).
 */
export async function placeAsPipeline(files: Array<{ path: string; name: string }>, workDir: string, preset: StagePresets, seconds: Record<string, number>, lease: FrontLease = FRESH_FRONT): Promise<FrontResult & { placed: PlacedCameras }> {
  const held = holdFront(lease, preset.features.workers ?? features.DEFAULTS.workers);
  try {
    const result = await frontStages(files, workDir, preset, seconds, held.workers);
    const small = result.images.length <= WIDE_BASELINE_MAX_IMAGES;
    if (!small) await held.giveBack();
    const started = performance.now();
    try {
      const { images, detected, matched, unrefined } = result;
      const placed = await placeCameras({ images, refined: detected.features, unrefined: small ? unrefined : null, pairs: matched.pairs, tracks: matched.tracks, ...(held.held ? { front: held.workers } : {}) }, preset);
      return { ...result, placed };
    } finally {
      seconds.sfm = (performance.now() - started) / 1000;
    }
  } finally {
    await held.giveBack();
  }
}

async function frontStages(files: Array<{ path: string; name: string }>, workDir: string, preset: StagePresets, seconds: Record<string, number>, front: FrontWorkers): Promise<FrontResult> {
  let started = performance.now();
  const lap = (stage: string): void => {
    seconds[stage] = (performance.now() - started) / 1000;
    started = performance.now();
  };
  const { images } = await ingest.run({ files, workDir }, preset.ingest);
  lap("ingest");
  const detected = await features.run({ images }, preset.features, undefined, front.features);
  lap("features");
  const matched = await matching.run({ images, features: detected.features }, preset.matching, undefined, front.matching);
  lap("matching");
  const refined = await keypoints.run({ images, features: detected.features, tracks: matched.tracks }, preset.keypoints, undefined, front.keypoints);
  lap("keypoints");
  return { images, detected: { ...detected, features: refined.features }, matched, refined: refined.report, unrefined: detected.features };
}
