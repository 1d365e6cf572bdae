/** @module Ingest then features the way compute/pipeline runs them, for the benches that time the stages one by one. */
import type { StagePresets } from "../compute/pipeline/presets.js";
import type { ImageRef } from "../compute/scene/index.js";
import * as features from "../compute/stages/features/index.js";
import * as ingest from "../compute/stages/ingest/index.js";

/**
 * Runs ingest and features with the feature workers started before ingest (they load
 * OpenCV.js while the images decode, as in the pipeline), and records each stage's wall time
 * in seconds into `seconds`.
 */
export async function ingestAndDetect(files: Array<{ path: string; name: string }>, workDir: string, preset: StagePresets, seconds: Record<string, number>): Promise<{ images: ImageRef[]; detected: features.Output }> {
  const workers = features.startWorkers(preset.features.workers);
  try {
    let started = performance.now();
    const { images } = await ingest.run({ files, workDir }, preset.ingest);
    seconds.ingest = (performance.now() - started) / 1000;
    started = performance.now();
    const detected = await features.run({ images }, preset.features, undefined, workers);
    seconds.features = (performance.now() - started) / 1000;
    return { images, detected };
  } finally {
    await workers.close();
  }
}
