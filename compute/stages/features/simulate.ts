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
import { viewAngles, type ViewsResult, type ViewsTask } from "./views.js";

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
    const parts = partsPerImage(images.length, pool.size, viewAngles(viewOptions.tilt).length);
    const runner = parts > 1 ? splitViews(pool, parts) : pool;
    return await detectInLanes(images, options, runner, (image, pixels): ViewsTask => ({ imageIndex: image.index, width: image.width, height: image.height, pixels, tilt: viewOptions.tilt, maxPerView, threshold: options.threshold, octaveLayers: options.octaveLayers }));
  } finally {
    await own?.close();
  }
}

/**
 * Into how many tasks each image's views are split. One image per task leaves a worker idle at
 * the end when the images do not divide among the workers: 3 photos of fountain-P11 on two
 * workers took 8.8 s of views, two images' worth on one worker, while the other waited. Split so
 * that the tasks divide evenly or are many (at least 4 per worker), at most one view per task.
 */
export function partsPerImage(images: number, workers: number, views: number): number {
  for (let parts = 1; parts < views; parts++) {
    const tasks = images * parts;
    if (tasks % workers === 0 || tasks >= 4 * workers) return parts;
  }
  return views;
}

/** A runner that detects an image's views as `parts` tasks (each with its own copy of the pixels) and joins their views in order. */
function splitViews(pool: TaskRunner<ViewsTask, ViewsResult>, parts: number): TaskRunner<ViewsTask, ViewsResult> {
  return {
    size: pool.size,
    async run(task: ViewsTask): Promise<ViewsResult> {
      const all = viewAngles(task.tilt).map((_, i) => i);
      const groups = Array.from({ length: parts }, (_, part) => all.filter((i) => i % parts === part));
      const results = await Promise.all(
        groups.map((viewIndices) => {
          const pixels = { ...task.pixels, rgb: task.pixels.rgb.slice() };
          return pool.run({ ...task, pixels, viewIndices }, [pixels.rgb.buffer as ArrayBuffer]);
        }),
      );
      // Back into viewAngles' order: view i is in group i % parts, at position ⌊i / parts⌋.
      return { imageIndex: task.imageIndex, views: all.map((i) => results[i % parts].views[Math.floor(i / parts)]) };
    },
  };
}
