/**
 * @module The features of a set of images packed for the matching workers (pair.ts): every
 * image's descriptors and keypoints in SharedArrayBuffers, and the largest-scale subsets that
 * guided matching starts from.
 */
import type { ImageFeatures } from "../../scene/features.js";
import type { ImageRef } from "../../scene/images.js";
import { packDescriptors, wordsPerDescriptor } from "./hamming.js";
import type { Options } from "./options.js";
import type { MatchingShared, SubsetShared } from "./pair.js";
import type { VerifyOptions } from "./verify.js";

/** Features in image order (features[i] describes images[i]); throws on a missing image. */
export function orderFeatures(images: ImageRef[], features: ImageFeatures[]): ImageFeatures[] {
  const byIndex = new Map(features.map((f) => [f.imageIndex, f]));
  return images.map((im) => {
    const f = byIndex.get(im.index);
    if (!f) throw new Error(`matching: no features for image ${im.index} (${im.name})`);
    return f;
  });
}

/** Run ids: a worker that serves several runs (the pipeline's front workers) rebuilds its views when the id changes. */
let nextRun = 1;

/**
 * Pack all descriptors and keypoints once into SharedArrayBuffers for the workers.
 * `seedIndex` gives each image the index its pairs' random seeds use: a batch of a larger set
 * (a task on another container) seeds by the whole set's indices, so its pairs verify exactly
 * as they would in one process.
 */
export function shareFeatures(images: ImageRef[], features: ImageFeatures[], opts: Options, seedIndex?: Uint32Array): MatchingShared {
  // Images without keypoints say nothing about the descriptor size.
  const described = features.filter((f) => f.count > 0);
  const bytes = described[0]?.descriptorBytes ?? 61;
  if (described.some((f) => f.descriptorBytes !== bytes)) throw new Error("matching: images have descriptors of different sizes");
  const words = wordsPerDescriptor(bytes);
  const offsets = new Uint32Array(images.length);
  const counts = new Uint32Array(images.length);
  let total = 0;
  features.forEach((f, i) => {
    offsets[i] = total;
    counts[i] = f.count;
    total += f.count;
  });
  const descriptors = new SharedArrayBuffer(Math.max(4, total * words * 4));
  const xy = new SharedArrayBuffer(Math.max(8, total * 8));
  features.forEach((f, i) => {
    packDescriptors(f.descriptors, f.count, bytes, new Uint32Array(descriptors, offsets[i] * words * 4, f.count * words));
    new Float32Array(xy, offsets[i] * 8, 2 * f.count).set(f.xy.subarray(0, 2 * f.count));
  });
  const longSides = Float64Array.from(images, (im) => Math.max(im.width, im.height));
  const verify: VerifyOptions = { epipolarThreshold: opts.epipolarThreshold, homographyThreshold: opts.homographyThreshold, minInliers: opts.minInliers, homographyMinRatio: opts.homographyMinRatio, maxRansacIterations: opts.maxRansacIterations };
  const subset = shareSubsets(features, descriptors, offsets, words, opts.guidedSubset, opts.guidedMinKeypoints);
  return { run: nextRun++, ...(seedIndex ? { seedIndex } : {}), descriptors, xy, offsets, counts, longSides, words, ratio: opts.ratio, verify, subset, guided: { minInliers: opts.guidedMinInliers, band: opts.guidedBand, ratio: opts.guidedRatio }, ann: { mode: opts.ann, minKeypoints: opts.annMinKeypoints, weakMatches: opts.annWeakMatches } };
}

/** The `size` largest-scale keypoints of every image with at least max(minKeypoints, 2·size) (none when size is 0), packed for the workers. */
function shareSubsets(features: ImageFeatures[], descriptors: SharedArrayBuffer, offsets: Uint32Array, words: number, size: number, minKeypoints: number): SubsetShared {
  const chosen = features.map((f) => (size > 0 && f.count >= Math.max(minKeypoints, 2 * size) ? largestScale(f, size) : new Uint32Array(0)));
  const subsetOffsets = new Uint32Array(features.length);
  const subsetCounts = Uint32Array.from(chosen, (c) => c.length);
  let total = 0;
  chosen.forEach((c, i) => {
    subsetOffsets[i] = total;
    total += c.length;
  });
  const rows = new Uint32Array(new SharedArrayBuffer(Math.max(4, total * words * 4)));
  const keypoints = new Uint32Array(new SharedArrayBuffer(Math.max(4, total * 4)));
  const all = new Uint32Array(descriptors);
  chosen.forEach((c, i) => {
    keypoints.set(c, subsetOffsets[i]);
    for (let k = 0; k < c.length; k++) {
      const from = (offsets[i] + c[k]) * words;
      rows.set(all.subarray(from, from + words), (subsetOffsets[i] + k) * words);
    }
  });
  return { descriptors: rows.buffer as SharedArrayBuffer, keypoints: keypoints.buffer as SharedArrayBuffer, offsets: subsetOffsets, counts: subsetCounts };
}

/** Indices of the `size` keypoints of largest scale (ties by index, so the choice is deterministic). */
function largestScale(f: ImageFeatures, size: number): Uint32Array {
  const order = Array.from({ length: f.count }, (_, i) => i).sort((p, q) => f.scale[q] - f.scale[p] || p - q);
  return Uint32Array.from(order.slice(0, size)).sort();
}
