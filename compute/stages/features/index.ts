/**
 * @module Stage `features`: AKAZE keypoints and binary descriptors for every image, on all
 * cores (one opencv-js instance per worker thread, worker.ts), at most `maxFeatures` per
 * image spread over the frame (select.ts), in full-resolution pixel coordinates.
 */
import { availableParallelism } from "node:os";
import type { ImageFeatures } from "../../scene/features.js";
import type { ImageRef } from "../../scene/images.js";
import type { ProgressFn, StageReport } from "../../scene/report.js";
import { WorkerPool, type TaskRunner } from "../../util/pool.js";
import type { FeatureResult, FeatureTask } from "./detect.js";

export const NAME = "features";

export interface Options {
  /** Detection runs on the image downscaled to this long side (presets: preview 1200, standard 2000, high 2400; opencv-js heap ~1 GiB). */
  maxImageSide: number;
  /**
   * Images whose long side is at most this are detected on a 2× upsampled copy (worker.ts,
   * Lowe's octave −1), keypoints reported in the image's own pixels; 0 turns it off.
   */
  upsampleMaxSide: number;
  /** Keypoints kept per image, strongest first, spread over a grid. */
  maxFeatures: number;
  /**
   * AKAZE detector response threshold (OpenCV default 0.001). Low enough that detection finds
   * more than maxFeatures on ordinary photos (fountain-P11 at 2000 px: ~3.6k at 0.0006, ~10k at
   * 0.0002) and the grid selection chooses; detection time hardly depends on it. Lowered per
   * image (÷4, at most twice, not below 2e-5) when fewer than maxFeatures/4 are found.
   */
  threshold: number;
  /** Worker threads; default all cores. */
  workers: number;
}

export const DEFAULTS: Options = {
  maxImageSide: 2000,
  upsampleMaxSide: 1000,
  maxFeatures: 8000,
  threshold: 0.0002,
  workers: availableParallelism(),
};

export interface Input {
  images: ImageRef[];
}

export interface Output {
  features: ImageFeatures[];
  report: StageReport;
}

/**
 * Detects on `workers` when given (the pipeline's front workers, started before ingest so
 * that OpenCV.js initialises while the uploads decode; the caller closes them), else on
 * workers of its own.
 */
export async function run(input: Input, options: Partial<Options> = {}, progress?: ProgressFn, workers?: TaskRunner<FeatureTask, FeatureResult>): Promise<Output> {
  const started = performance.now();
  const opts: Options = { ...DEFAULTS, ...options };
  const own = workers ? null : new WorkerPool<FeatureTask, FeatureResult>(new URL("./worker.ts", import.meta.url), { size: Math.min(opts.workers, input.images.length) });
  const pool: TaskRunner<FeatureTask, FeatureResult> = workers ?? own!;
  let done = 0;
  try {
    const results = await Promise.all(
      input.images.map(async (image) => {
        const result = await pool.run({ imageIndex: image.index, path: image.path, width: image.width, height: image.height, maxImageSide: opts.maxImageSide, upsampleMaxSide: opts.upsampleMaxSide, maxFeatures: opts.maxFeatures, threshold: opts.threshold });
        done++;
        progress?.(done / input.images.length, done);
        return result;
      }),
    );
    const features: ImageFeatures[] = results.map(({ imageIndex, count, xy, scale, angle, descriptors, descriptorBytes, rgb }) => ({ imageIndex, count, xy, scale, angle, descriptors, descriptorBytes, rgb }));
    const keypoints = results.reduce((sum, r) => sum + r.count, 0);
    const warnings = results.filter((r) => r.count < 100).map((r) => `${input.images[r.imageIndex]?.name ?? r.imageIndex}: only ${r.count} keypoints (little texture?)`);
    return {
      features,
      report: {
        stage: NAME,
        wallMs: performance.now() - started,
        counts: { images: features.length, keypoints, meanKeypoints: features.length ? keypoints / features.length : 0, workers: pool.size },
        perImage: results.map((r, i) => ({ name: input.images[i].name, keypoints: r.count, detected: r.detected, detectWidth: r.detectWidth, threshold: r.threshold })),
        warnings,
      },
    };
  } finally {
    await own?.close();
  }
}
