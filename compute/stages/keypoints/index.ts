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
 * Images are decoded twice, one at a time (references first, then the others), so memory holds
 * two images' pyramids and one patch per track, never every image.
 */
import sharp from "sharp";
import type { ImageFeatures } from "../../scene/features.js";
import type { ImageRef } from "../../scene/images.js";
import type { Tracks } from "../../scene/matches.js";
import type { ProgressFn, StageReport } from "../../scene/report.js";
import { alignPatch, alignScratch, patchOffsets, referencePatch, type AlignOptions, type AlignOutcome } from "./align.js";
import { buildPyramid, withGradients, type Pyramid } from "./pyramid.js";

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
};

export interface Input {
  images: ImageRef[];
  features: ImageFeatures[];
  tracks: Tracks;
}

export interface Output {
  /** The features with refined xy (the same objects when nothing moved). */
  features: ImageFeatures[];
  report: StageReport;
}

async function loadPyramid(image: ImageRef, levels: number): Promise<Pyramid> {
  const { data, info } = await sharp(image.path).greyscale().raw().toBuffer({ resolveWithObject: true });
  if (info.width !== image.width || info.height !== image.height) throw new Error(`keypoints: ${image.name} decodes to ${info.width}×${info.height}, expected ${image.width}×${image.height}`);
  return buildPyramid(new Uint8Array(data.buffer, data.byteOffset, info.width * info.height), info.width, info.height, levels);
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

/** Visits the images that have observations in order, each decoded while the previous one is visited (sharp decodes on libuv's threads). */
async function sweep(images: ImageRef[], wanted: (i: number) => boolean, levels: number, visit: (i: number, pyramid: Pyramid) => void): Promise<void> {
  const decode = (i: number) => (i < images.length && wanted(i) ? loadPyramid(images[i], levels) : Promise.resolve(null));
  let next = decode(0);
  for (let i = 0; i < images.length; i++) {
    const pyramid = await next;
    next = decode(i + 1);
    if (pyramid !== null) visit(i, pyramid);
  }
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

export async function run(input: Input, options: Partial<Options> = {}, progress?: ProgressFn): Promise<Output> {
  const started = performance.now();
  const opts: Options = { ...DEFAULTS, ...options };
  const { images, tracks } = input;
  const byIndex = new Map(input.features.map((f) => [f.imageIndex, f]));
  const features = images.map((im) => byIndex.get(im.index)!);
  const outcomes: Record<AlignOutcome | "flatReference" | "references", number> = { aligned: 0, outside: 0, diverged: 0, dissimilar: 0, flatReference: 0, references: 0 };
  if (!opts.enabled || tracks.count === 0) return { features: input.features, report: report(outcomes, [], performance.now() - started, opts.enabled) };

  const offsets = patchOffsets(opts.patchRadius);
  const patchSize = offsets.length / 2;
  const refs = chooseReferences(tracks, features);
  const { byImage, trackOf } = observationsByImage(tracks, images.length);
  const isReference = new Uint8Array(tracks.trackImages.length);
  for (const o of refs) isReference[o] = 1;
  const spacingOf = (o: number) => Math.max(1, features[tracks.trackImages[o]].scale[tracks.trackKeypoints[o]] / opts.sizePerSample);

  const patches = new Float32Array(tracks.count * patchSize);
  const hasPatch = new Uint8Array(tracks.count);
  const patchOf = (t: number) => patches.subarray(t * patchSize, (t + 1) * patchSize);
  // Pass 1: each track's reference patch.
  await sweep(images, (i) => byImage[i].some((o) => isReference[o]), opts.levels, (i, pyramid) => {
    const f = features[i];
    for (const o of byImage[i]) {
      if (!isReference[o]) continue;
      const t = trackOf[o];
      const k = tracks.trackKeypoints[o];
      if (referencePatch(pyramid, f.xy[2 * k], f.xy[2 * k + 1], spacingOf(o), offsets, opts.minContrast, patchOf(t))) hasPatch[t] = 1;
      else outcomes.flatReference++;
    }
    progress?.((i + 1) / (2 * images.length));
  });
  outcomes.references = hasPatch.reduce((a, b) => a + b, 0);

  // Pass 2: every other observation aligned to its track's reference.
  const refined = features.map((f) => ({ ...f, xy: f.xy.slice() }));
  const shifts: number[] = [];
  const scratch = alignScratch(opts.patchRadius);
  const warp = new Float64Array(6);
  const toAlign = (o: number) => !isReference[o] && hasPatch[trackOf[o]] === 1;
  await sweep(images, (i) => byImage[i].some(toAlign), opts.levels, (i, pyramid) => {
    withGradients(pyramid);
    const f = features[i];
    for (const o of byImage[i]) {
      if (!toAlign(o)) continue;
      const t = trackOf[o];
      const ref = refs[t];
      const refScale = features[tracks.trackImages[ref]].scale[tracks.trackKeypoints[ref]];
      const refAngle = features[tracks.trackImages[ref]].angle[tracks.trackKeypoints[ref]];
      const k = tracks.trackKeypoints[o];
      initialWarp(f.scale[k] / refScale, f.angle[k] - refAngle, warp);
      const x = f.xy[2 * k];
      const y = f.xy[2 * k + 1];
      let outcome = alignPatch(pyramid, x, y, patchOf(t), spacingOf(ref), offsets, warp, opts, scratch);
      if (outcome === "aligned" && !scaleKept(warp, f.scale[k] / refScale, opts.maxScaleChange)) outcome = "diverged";
      outcomes[outcome]++;
      if (outcome !== "aligned") continue;
      refined[i].xy[2 * k] = x + warp[0];
      refined[i].xy[2 * k + 1] = y + warp[1];
      shifts.push(Math.hypot(warp[0], warp[1]));
    }
    progress?.((images.length + i + 1) / (2 * images.length));
  });
  const byImageIndex = new Map(refined.map((f) => [f.imageIndex, f]));
  return { features: input.features.map((f) => byImageIndex.get(f.imageIndex)!), report: report(outcomes, shifts, performance.now() - started, true) };
}

/** The similarity from reference offsets to this keypoint's: their scale ratio and orientation difference. */
function initialWarp(scaleRatio: number, angle: number, warp: Float64Array): void {
  const c = scaleRatio * Math.cos(angle);
  const s = scaleRatio * Math.sin(angle);
  warp.set([0, 0, c, -s, s, c]);
}

/** Whether the aligned warp's scale stayed within `maxChange` of the keypoints' ratio. */
function scaleKept(warp: Float64Array, ratio: number, maxChange: number): boolean {
  const scale = Math.sqrt(Math.abs(warp[2] * warp[5] - warp[3] * warp[4]));
  return scale <= ratio * maxChange && scale >= ratio / maxChange;
}

function report(outcomes: Record<string, number>, shifts: number[], wallMs: number, enabled: boolean): StageReport {
  const sorted = shifts.sort((a, b) => a - b);
  return {
    stage: NAME,
    wallMs,
    counts: {
      enabled: enabled ? 1 : 0,
      ...outcomes,
      medianShiftPx: sorted.length ? sorted[sorted.length >> 1] : 0,
    },
    warnings: [],
  };
}
