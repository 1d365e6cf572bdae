/** @module Ingest, features, matching and keypoint refinement the way compute/pipeline runs them, for the benches that time the stages one by one. */
import { FRESH_FRONT, type FrontLease } from "../compute/pipeline/front-pool.js";
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
    const refined = await keypoints.run({ images, features: detected.features, tracks: matched.tracks }, preset.keypoints);
    lap("keypoints");
    return { images, detected: { ...detected, features: refined.features }, matched, refined: refined.report, unrefined: detected.features };
  } finally {
    await lease.release(front);
  }
}
