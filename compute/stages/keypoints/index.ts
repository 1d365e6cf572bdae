/**
 * @module Stage `keypoints`: refine the keypoints of every track photometrically before
 * structure from motion. A detector localises each keypoint on its own, to a few tenths of a
 * pixel; what the bundle adjustment needs is that the observations of one track agree with each
 * other. So each track keeps one reference observation (the one of median scale) and every
 * other observation is moved to where its patch best matches the reference's (align.ts), the
 * idea of "Pixel-Perfect Structure-from-Motion with Featuremetric Refinement" (Lindenberger
 * et al., ICCV 2021) with image intensities in place of learnt features and a star around one
 * reference in place of their graph. An error the reference has is shared by the whole track and
 * only moves its 3-D point.
 *
 * Two passes over the images, each image one task on a worker thread (image-task.ts): first the
 * references' patches, into one shared buffer, then the alignments. A worker holds one image's
 * pyramid at a time, so memory is one patch per track plus a pyramid per worker.
 */
import { availableParallelism } from "node:os";
import type { ImageFeatures } from "../../scene/features.js";
import type { ImageRef } from "../../scene/images.js";
import type { Tracks } from "../../scene/matches.js";
import type { ProgressFn, StageReport } from "../../scene/report.js";
import { callingThread, WorkerPool, type TaskRunner } from "../../util/pool.js";
import type { AlignOptions } from "./align.js";
import { dropSpareArrays } from "./pyramid.js";
import { OUTCOMES, runImageTask, type ImageTask, type ImageTaskResult, type Outcome } from "./image-task.js";

export const NAME = "keypoints";

export interface Options extends AlignOptions {
  /** Refine at all; false hands the detector's keypoints on unchanged. */
  enabled: boolean;
  /** Pyramid levels: coarse keypoints are aligned on the level matching their scale. */
  levels: number;
  /**
   * A keypoint's scale (the detector's size) that corresponds to one sample of spacing; a patch
   * of a keypoint of size s is sampled every s / sizePerSample pixels. AKAZE's finest keypoints
   * are about 5 px across, so they are sampled at the pixel.
   */
  sizePerSample: number;
  /** Largest change of the patch's scale the alignment may make, as a factor either way. */
  maxScaleChange: number;
  /** Worker threads; default all cores; 1 runs on the calling thread. */
  workers: number;
}

export const DEFAULTS: Options = {
  enabled: true,
  levels: 5,
  sizePerSample: 5,
  patchRadius: 6,
  maxIterations: 12,
  minZncc: 0.8,
  maxShiftLevelPx: 2,
  minContrast: 2,
  maxScaleChange: 1.5,
  workers: availableParallelism(),
};

export interface Input {
  images: ImageRef[];
  features: ImageFeatures[];
  tracks: Tracks;
}

export interface Output {
  /** The features with refined xy (the same objects when refinement is off). */
  features: ImageFeatures[];
  report: StageReport;
}

/**
 * Per track, the observation (index into trackImages) of median keypoint scale: the other
 * observations are then as often finer as coarser, and the scale gap the warp must bridge is
 * smallest. (The observation in the first image, which would let one pass over the images do,
 * left Herz-Jesus-P8 without every 2nd photo at 0.142° instead of 0.076° and the smoke set at
 * 0.043° instead of 0.029°, with twice the alignments rejected.)
 */
function chooseReferences(tracks: Tracks, features: ImageFeatures[]): Uint32Array {
  const refs = new Uint32Array(tracks.count);
  const scales: Array<[number, number]> = [];
  for (let t = 0; t < tracks.count; t++) {
    scales.length = 0;
    for (let o = tracks.trackOffsets[t]; o < tracks.trackOffsets[t + 1]; o++) scales.push([features[tracks.trackImages[o]].scale[tracks.trackKeypoints[o]], o]);
    scales.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    refs[t] = scales[(scales.length - 1) >> 1][1];
  }
  return refs;
}

/** Observations (indices into trackImages) grouped by image, and each observation's track. */
function observationsByImage(tracks: Tracks, imageCount: number): { byImage: number[][]; trackOf: Uint32Array } {
  const byImage: number[][] = Array.from({ length: imageCount }, () => []);
  const trackOf = new Uint32Array(tracks.trackImages.length);
  for (let t = 0; t < tracks.count; t++) {
    for (let o = tracks.trackOffsets[t]; o < tracks.trackOffsets[t + 1]; o++) {
      trackOf[o] = t;
      byImage[tracks.trackImages[o]].push(o);
    }
  }
  return { byImage, trackOf };
}

/** Observations per worker thread: fewer (about two seconds of alignment) are done on the calling thread. */
const OBSERVATIONS_PER_WORKER = 20_000;

/**
 * `runner`: threads already loaded (the pipeline's front workers, which serve image-task.ts's
 * tasks too); without it the stage starts its own for a large job, and a small one runs on the
 * calling thread. The result is the same on any threads: each task writes its own observations.
 */
export async function run(input: Input, options: Partial<Options> = {}, progress?: ProgressFn, runner?: TaskRunner<ImageTask, ImageTaskResult>): Promise<Output> {
  const started = performance.now();
  const opts: Options = { ...DEFAULTS, ...options };
  const { images, tracks } = input;
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  if (!opts.enabled || tracks.count === 0) return { features: input.features, report: report(counts, [], performance.now() - started, opts.enabled) };

  const byIndex = new Map(input.features.map((f) => [f.imageIndex, f]));
  const features = images.map((im) => byIndex.get(im.index)!);
  const refs = chooseReferences(tracks, features);
  const { byImage, trackOf } = observationsByImage(tracks, images.length);
  const isReference = new Uint8Array(tracks.trackImages.length);
  for (const o of refs) isReference[o] = 1;
  const keypointOf = (o: number) => ({ f: features[tracks.trackImages[o]], k: tracks.trackKeypoints[o] });
  const spacingOf = (o: number) => {
    const { f, k } = keypointOf(o);
    return Math.max(1, f.scale[k] / opts.sizePerSample);
  };
  const patchFloats = (2 * opts.patchRadius + 1) ** 2;
  const patches = new SharedArrayBuffer(4 * Math.max(1, tracks.count * patchFloats));
  const align: AlignOptions = { patchRadius: opts.patchRadius, maxIterations: opts.maxIterations, minZncc: opts.minZncc, maxShiftLevelPx: opts.maxShiftLevelPx, minContrast: opts.minContrast };

  /** The task of image i over its observations `mine`. */
  const taskOf = (i: number, mine: number[], kind: ImageTask["kind"]): ImageTask => {
    const xy = new Float32Array(2 * mine.length);
    mine.forEach((o, n) => {
      const { f, k } = keypointOf(o);
      xy[2 * n] = f.xy[2 * k];
      xy[2 * n + 1] = f.xy[2 * k + 1];
    });
    const base = { path: images[i].path, width: images[i].width, height: images[i].height, levels: opts.levels, align, patches, tracks: Uint32Array.from(mine, (o) => trackOf[o]), xy };
    if (kind === "references") return { ...base, kind, spacing: Float64Array.from(mine, spacingOf) };
    const reference = (o: number) => keypointOf(refs[trackOf[o]]);
    return {
      ...base, kind, maxScaleChange: opts.maxScaleChange,
      // The patch is sampled on the reference's grid, so its spacing is the reference's.
      spacing: Float64Array.from(mine, (o) => spacingOf(refs[trackOf[o]])),
      scaleRatio: Float64Array.from(mine, (o) => keypointOf(o).f.scale[keypointOf(o).k] / reference(o).f.scale[reference(o).k]),
      angle: Float64Array.from(mine, (o) => keypointOf(o).f.angle[keypointOf(o).k] - reference(o).f.angle[reference(o).k]),
    };
  };

  // A worker thread costs its start (tsx loader, sharp) of some tenths of a second: a small job
  // aligns faster on the calling thread than it starts two.
  const poolSize = runner ? 0 : Math.max(1, Math.min(opts.workers, images.length, Math.ceil(tracks.trackImages.length / OBSERVATIONS_PER_WORKER)));
  const own = poolSize > 1 ? new WorkerPool<ImageTask, ImageTaskResult>(new URL("./worker.ts", import.meta.url), { size: poolSize }) : null;
  // The calling thread: one task at a time, so one image is decoded at a time.
  const pool = runner ?? own ?? callingThread<ImageTask, ImageTaskResult>(runImageTask);
  const hasPatch = new Uint8Array(tracks.count);
  const refined = features.map((f) => ({ ...f, xy: f.xy.slice() }));
  const shifts: number[] = [];
  // Progress: the references are a third of the work (no alignment), by images done.
  let referencesDone = 0;
  let alignedDone = 0;
  const report1 = () => progress?.((referencesDone / images.length) / 3);
  const report2 = () => progress?.(1 / 3 + (2 * alignedDone) / images.length / 3);
  try {
    // Pass 1: every track's reference patch.
    await Promise.all(images.map(async (_, i) => {
      const mine = byImage[i].filter((o) => isReference[o]);
      if (mine.length > 0) {
        const result = await pool.run(taskOf(i, mine, "references"));
        mine.forEach((o, n) => {
          const outcome = OUTCOMES[result.outcome[n]];
          counts[outcome]++;
          if (outcome === "reference") hasPatch[trackOf[o]] = 1;
        });
      }
      referencesDone++;
      report1();
    }));
    // Pass 2: every other observation aligned to its track's reference.
    await Promise.all(images.map(async (_, i) => {
      const mine = byImage[i].filter((o) => !isReference[o] && hasPatch[trackOf[o]] === 1);
      if (mine.length > 0) {
        const result = await pool.run(taskOf(i, mine, "align"));
        mine.forEach((o, n) => {
          const outcome = OUTCOMES[result.outcome[n]];
          counts[outcome]++;
          if (outcome !== "aligned") return;
          const k = tracks.trackKeypoints[o];
          const xy = refined[i].xy;
          shifts.push(Math.hypot(result.xy[2 * n] - xy[2 * k], result.xy[2 * n + 1] - xy[2 * k + 1]));
          xy[2 * k] = result.xy[2 * n];
          xy[2 * k + 1] = result.xy[2 * n + 1];
        });
      }
      alignedDone++;
      report2();
    }));
  } finally {
    await own?.close();
    // On the calling thread the pyramids' spare arrays would outlive the stage.
    if (pool !== runner && pool !== own) dropSpareArrays();
  }
  const byImageIndex = new Map(refined.map((f) => [f.imageIndex, f]));
  return { features: input.features.map((f) => byImageIndex.get(f.imageIndex)!), report: report(counts, shifts, performance.now() - started, true) };
}

function report(counts: Record<Outcome, number>, shifts: number[], wallMs: number, enabled: boolean): StageReport {
  const sorted = shifts.sort((a, b) => a - b);
  const { reference, ...rest } = counts;
  return {
    stage: NAME,
    wallMs,
    counts: { enabled: enabled ? 1 : 0, references: reference, ...rest, medianShiftPx: sorted.length ? sorted[sorted.length >> 1] : 0 },
    warnings: [],
  };
}
