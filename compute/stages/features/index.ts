/**
 * @module Stage `features`: AKAZE keypoints and binary descriptors for every image, on all
 * cores (one opencv-js instance per worker thread, worker.ts), at most `maxFeatures` per
 * image spread over the frame (select.ts), in full-resolution pixel coordinates.
 */
import type { ImageFeatures } from "../../scene/features.js";
import type { ImageRef } from "../../scene/images.js";
import type { ProgressFn, StageReport } from "../../scene/report.js";
import { WorkerPool, type TaskRunner } from "../../util/pool.js";
import type { FeatureResult, FeatureTask } from "./detect.js";
import type { FeatureBatch } from "./encode.js";
import { detectInLanes } from "./lanes.js";
import { DEFAULTS, type Options } from "./options.js";

export { decodeFeatureBatch, encodeFeatureBatch, type FeatureBatch } from "./encode.js";
export const NAME = "features";

export { DEFAULTS, type Options } from "./options.js";

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
  try {
    const results = await detectInLanes(input.images, opts, pool, (image, pixels): FeatureTask => ({ imageIndex: image.index, width: image.width, height: image.height, pixels, maxFeatures: opts.maxFeatures, threshold: opts.threshold, octaveLayers: opts.octaveLayers }), (done) => progress?.(done / input.images.length, done));
    const features: ImageFeatures[] = results.map(({ imageIndex, count, xy, scale, angle, descriptors, descriptorBytes, rgb }) => ({ imageIndex, count, xy, scale, angle, descriptors, descriptorBytes, rgb }));
    const keypoints = results.reduce((sum, r) => sum + r.count, 0);
    const warnings = results.flatMap((r, i) => (r.count < 100 ? [`${input.images[i].name}: only ${r.count} keypoints (little texture?)`] : []));
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

/**
 * Detects the features of a job's images somewhere else (batches as tasks on other
 * containers, compute/service) and gives them back in the images' order; null when it leaves
 * them to this process (a set too small to split).
 */
export type BatchRunner = (images: ImageRef[], options: Options, progress: (fraction: number) => void) => Promise<FeatureBatch[] | null>;

/** The stage's output from batches detected elsewhere, in the order of `images`. */
export function fromBatches(images: ImageRef[], batches: FeatureBatch[], wallMs: number): Output {
  const byIndex = new Map(batches.flatMap((b) => b.features).map((f) => [f.imageIndex, f]));
  const features = images.map((image) => {
    const found = byIndex.get(image.index);
    if (!found) throw new Error(`features: no batch holds image ${image.name}`);
    return found;
  });
  const keypoints = features.reduce((sum, f) => sum + f.count, 0);
  return {
    features,
    report: {
      stage: NAME,
      wallMs,
      counts: { images: features.length, keypoints, meanKeypoints: features.length ? keypoints / features.length : 0, batches: batches.length },
      perImage: batches.flatMap((b) => b.perImage),
      warnings: batches.flatMap((b) => b.warnings),
    },
  };
}

/** One batch detected here, as a task does it. */
export async function runBatch(images: ImageRef[], options: Partial<Options>, progress?: ProgressFn): Promise<FeatureBatch> {
  const out = await run({ images }, options, progress);
  return { features: out.features, perImage: out.report.perImage ?? [], warnings: out.report.warnings ?? [] };
}

export { simulateViews, VIEW_DEFAULTS, type ViewOptions } from "./simulate.js";
