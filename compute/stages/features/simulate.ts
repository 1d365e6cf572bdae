/**
 * @module The features stage's second pass, run only when the pipeline asks for it: keypoints
 * of simulated oblique views (views.ts) of the given images, on the given workers (the
 * pipeline's front workers) or on workers of its own.
 */
import type { SimulatedViews } from "../../scene/features.js";
import type { ImageRef } from "../../scene/images.js";
import { WorkerPool, type TaskRunner } from "../../util/pool.js";
import { detectInLanes } from "./lanes.js";
import type { FeatureResult, FeatureTask } from "./detect.js";
import type { Options } from "./options.js";
import type { ViewsResult, ViewsTask } from "./views.js";

export interface ViewOptions {
  /** Squeeze of each simulated view: √2 covers surfaces foreshortened 1.2–1.7× between two photos (about 35–55° apart). */
  tilt: number;
  /**
   * Keypoints kept per view, as a share of the plain detection's `maxFeatures`: each view is
   * matched against the other photo's plain keypoints, so the matching costs views × this share.
   */
  keypointShare: number;
}

export const VIEW_DEFAULTS: ViewOptions = { tilt: Math.SQRT2, keypointShare: 0.5 };

export async function simulateViews(images: ImageRef[], options: Options, viewOptions: ViewOptions = VIEW_DEFAULTS, workers?: TaskRunner<ViewsTask, ViewsResult>): Promise<SimulatedViews[]> {
  const own = workers ? null : new WorkerPool<FeatureTask | ViewsTask, FeatureResult | ViewsResult>(new URL("./worker.ts", import.meta.url), { size: Math.max(1, Math.min(options.workers, images.length)) });
  const pool = (workers ?? own!) as TaskRunner<ViewsTask, ViewsResult>;
  try {
    const maxPerView = Math.max(1, Math.round(options.maxFeatures * viewOptions.keypointShare));
    return await detectInLanes(images, options, pool, (image, pixels): ViewsTask => ({ imageIndex: image.index, width: image.width, height: image.height, pixels, tilt: viewOptions.tilt, maxPerView, threshold: options.threshold, octaveLayers: options.octaveLayers }));
  } finally {
    await own?.close();
  }
}
