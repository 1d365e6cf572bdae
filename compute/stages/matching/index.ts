/**
 * @module Stage `matching`: choose image pairs (pairs.ts), match binary descriptors on all
 * cores with the WebAssembly Hamming kernel, Lowe's ratio test and a mutual check (kernel.ts,
 * hamming.ts), verify each pair geometrically and flag low-parallax pairs (verify.ts), and
 * link the verified matches into tracks (tracks.ts).
 */
import { availableParallelism } from "node:os";
import type { ImageFeatures } from "../../scene/features.js";
import type { ImageRef } from "../../scene/images.js";
import type { Tracks, VerifiedPair } from "../../scene/matches.js";
import type { ProgressFn, StageReport } from "../../scene/report.js";
import { WorkerPool, type TaskRunner } from "../../util/pool.js";
import { packDescriptors, wordsPerDescriptor } from "./hamming.js";
import { kernelName } from "./kernel.js";
import { selectPairs, type PairOptions } from "./pairs.js";
import { buildTracks } from "./tracks.js";
import type { VerifyOptions } from "./verify.js";
import type { MatchingShared, PairResult, PairTask, SubsetShared } from "./pair.js";

export const NAME = "matching";

export interface Options extends PairOptions, VerifyOptions {
  /** Lowe's ratio: nearest / second-nearest Hamming distance must be below it (both directions). */
  ratio: number;
  /** Worker threads; default all cores. */
  workers: number;
  /**
   * Guided matching (geometry/epipolar-band.ts): a pair of images that both have at least `guidedMinKeypoints`
   * first matches only their `guidedSubset` largest-scale keypoints (large-scale features
   * repeat best across views: Wu, "Towards linear-time incremental structure from motion",
   * 3DV 2013), and if the subset gives a trustworthy F, matches all keypoints along its
   * epipolar lines. 0 = off.
   */
  guidedSubset: number;
  /**
   * Keypoints both images need for guided matching. A pair whose subset does not verify pays
   * the subset search on top of the exhaustive one, which only pays off when the exhaustive
   * search is much dearer than the subset's: on 16 images of ~3,600 keypoints (a sparse ring
   * where most pairs do not overlap) guidance at 1,500 cost 11.4 → 15.1 s of CPU; on 10
   * images of ~4,300 with half the pairs weak, 5.9 → 5.6 s.
   */
  guidedMinKeypoints: number;
  /** Verified subset inliers off the pair's dominant homography (inliers × (1 − H ratio)) needed before F guides the matching. */
  guidedMinInliers: number;
  /** Band half-width around each epipolar line, as a multiple of the verification threshold. */
  guidedBand: number;
  /**
   * Lowe's ratio among the band's candidates, stricter than `ratio`: the second-nearest now
   * comes from a few dozen candidates instead of thousands, so it is farther and a plain 0.8
   * lets through wrong matches that happen to lie on the line. Measured median rotation errors
   * (Herz-Jesus-P8 / fountain-P11): exhaustive 0.078° / 0.044°; guided at 0.8 0.137° / –, at
   * 0.7 0.086° / 0.044°, at 0.6 0.043° / 0.036°, at 0.5 0.093° / 0.041°.
   */
  guidedRatio: number;
  /**
   * The search over a pair's full keypoint sets (the guided search keeps its band): "off"
   * compares every descriptor of A with every one of B (kernel.ts); "mih" compares only the
   * candidates multi-index hashing finds (ann.ts), for pairs where both images have at least
   * `annMinKeypoints`, and searches weak pairs again exhaustively (`annWeakMatches`).
   */
  ann: "off" | "mih";
  /**
   * Keypoints both images need before the approximate search is used. Per pair it takes
   * 2.4–2.8× less CPU than the exhaustive search at 4,000 keypoints, 3.6–4.4× at 8,000 and
   * 4.5–5.3× at 12,000 (`npm run bench -- ann`, Herz-Jesus-P8 and fountain-P11). In the stage,
   * with weak pairs searched twice: at 12,000 (high) 6.9 → 5.8 s and 16.5 → 12.1 s of CPU with
   * the same verified pairs and as many inliers; at 8,000 (standard) guided matching takes the
   * strong pairs and most of those left are weak: 3.9 → 4.2 s and 8.4 → 8.2 s; at 4,000
   * (preview) 2.4 → 1.9 s and 4.3 → 3.6 s, but fountain-P11 kept 1.3 % fewer inliers and
   * tracks. So it is on for the high preset's keypoint counts only.
   */
  annMinKeypoints: number;
  /**
   * A pair whose approximate search gives at most this many ratio + mutual matches is searched
   * again exhaustively (0: never). On a weak pair a few matches decide verification, and the
   * index both misses true matches (those 80–100 bits apart 51–81 % of the time) and passes
   * matches whose second-nearest it missed. Measured by verifying such pairs under 20 RANSAC
   * seeds: wrong pairs (most inliers off the published cameras' epipolar lines) verified 9 and
   * 11 times out of 20 from the approximate matches against 3 and 1 from the exhaustive ones,
   * and a true pair 16 times against 20. No pair with more than 150 approximate matches
   * verified differently.
   */
  annWeakMatches: number;
}

export const DEFAULTS: Options = {
  ratio: 0.8,
  exhaustiveMaxImages: 40,
  sequentialWindow: 10,
  loopClosureNeighbours: 3,
  retrievalNeighbours: 20,
  gpsNeighbours: 12,
  gpsMinShare: 0.8,
  retrieval: { branching: 10, depth: 4, trainingSample: 100_000, iterations: 4, perImage: 3000 },
  epipolarThreshold: 0.0013,
  homographyThreshold: 0.0013,
  minInliers: 15,
  homographyMinRatio: 0.8,
  maxRansacIterations: 2000,
  workers: availableParallelism(),
  guidedSubset: 1500,
  guidedMinKeypoints: 6000,
  guidedMinInliers: 15,
  guidedBand: 2,
  guidedRatio: 0.6,
  ann: "mih",
  annMinKeypoints: 10_000,
  annWeakMatches: 150,
};

export interface Input {
  images: ImageRef[];
  features: ImageFeatures[];
}

export interface Output {
  pairs: VerifiedPair[];
  tracks: Tracks;
  report: StageReport;
}

/** Matching tasks run on `workers` when given (e.g. the pipeline's front workers, which detected the features; the caller closes them), else on workers of its own. */
export async function run(input: Input, options: Partial<Options> = {}, progress?: ProgressFn, workers?: TaskRunner<PairTask, PairResult>): Promise<Output> {
  const started = performance.now();
  const opts: Options = { ...DEFAULTS, ...options, retrieval: { ...DEFAULTS.retrieval, ...options.retrieval } };
  const { images } = input;
  const features = orderFeatures(images, input.features);
  const shared = shareFeatures(images, features, opts);
  const packed = features.map((f, i) => ({ rows: new Uint32Array(shared.descriptors, shared.offsets[i] * shared.words * 4, f.count * shared.words), count: f.count }));
  const selection = selectPairs(images, packed, shared.words, opts);
  const pairCount = selection.pairs.length / 2;
  const pendingPerImage = new Uint32Array(images.length); // candidate pairs not yet matched, per image
  for (const index of selection.pairs) pendingPerImage[index]++;
  let imagesDone = pendingPerImage.filter((p) => p === 0).length;
  let pairsDone = 0;
  const own = workers ? null : new WorkerPool<PairTask, PairResult>(new URL("./worker.ts", import.meta.url), { size: Math.max(1, Math.min(opts.workers, pairCount)) });
  const pool: TaskRunner<PairTask, PairResult> = workers ?? own!;
  let results: PairResult[];
  try {
    results = await Promise.all(
      Array.from({ length: pairCount }, async (_, k) => {
        const result = await pool.run({ a: selection.pairs[2 * k], b: selection.pairs[2 * k + 1], shared });
        pairsDone++;
        for (const image of [result.a, result.b]) if (--pendingPerImage[image] === 0) imagesDone++;
        progress?.(pairsDone / pairCount, imagesDone);
        return result;
      }),
    );
  } finally {
    await own?.close();
  }
  const pairs = results.flatMap((r) => (r.pair ? [r.pair] : []));
  const { tracks, stats } = buildTracks(pairs, features.map((f) => f.count));
  return { pairs, tracks, report: report(images, results, pairs, tracks, stats, selection.strategy, performance.now() - started) };
}

/** Features in image order (features[i] describes images[i]); throws on a missing image. */
function orderFeatures(images: ImageRef[], features: ImageFeatures[]): ImageFeatures[] {
  const byIndex = new Map(features.map((f) => [f.imageIndex, f]));
  return images.map((im) => {
    const f = byIndex.get(im.index);
    if (!f) throw new Error(`matching: no features for image ${im.index} (${im.name})`);
    return f;
  });
}

/** Run ids: a worker that serves several runs (the pipeline's front workers) rebuilds its views when the id changes. */
let nextRun = 1;

/** Pack all descriptors and keypoints once into SharedArrayBuffers for the workers. */
function shareFeatures(images: ImageRef[], features: ImageFeatures[], opts: Options): MatchingShared {
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
  return { run: nextRun++, descriptors, xy, offsets, counts, longSides, words, ratio: opts.ratio, verify, subset, guided: { minInliers: opts.guidedMinInliers, band: opts.guidedBand, ratio: opts.guidedRatio }, ann: { mode: opts.ann, minKeypoints: opts.annMinKeypoints, weakMatches: opts.annWeakMatches } };
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

function report(images: ImageRef[], results: PairResult[], pairs: VerifiedPair[], tracks: Tracks, stats: { inconsistent: number; observations: number }, strategy: string, wallMs: number): StageReport {
  const verifiedPerImage = new Uint32Array(images.length);
  for (const p of pairs) {
    verifiedPerImage[p.imageA]++;
    verifiedPerImage[p.imageB]++;
  }
  const observationsPerImage = new Uint32Array(images.length);
  for (const image of tracks.trackImages) observationsPerImage[image]++;
  const warnings = images.filter((_, i) => verifiedPerImage[i] === 0).map((im) => `${im.name}: no verified pair (too little overlap with the other images?)`);
  if (kernelName() !== "wasm-simd") warnings.push("matching: WebAssembly SIMD kernel unavailable, used the slower TypeScript reference");
  return {
    stage: NAME,
    wallMs,
    counts: {
      images: images.length,
      candidatePairs: results.length,
      verifiedPairs: pairs.length,
      homographyPairs: pairs.filter((p) => p.model === "homography").length,
      guidedPairs: results.filter((r) => r.guided).length,
      approximatePairs: results.filter((r) => r.search === "approximate").length,
      escalatedPairs: results.filter((r) => r.search === "escalated").length,
      putativeMatches: results.reduce((s, r) => s + r.putative, 0),
      inlierMatches: pairs.reduce((s, p) => s + p.matches.length / 2, 0),
      tracks: tracks.count,
      trackObservations: stats.observations,
      inconsistentTracks: stats.inconsistent,
      meanTrackLength: tracks.count ? stats.observations / tracks.count : 0,
      exhaustive: strategy === "exhaustive" ? 1 : 0,
    },
    perImage: images.map((im, i) => ({ name: im.name, verifiedPairs: verifiedPerImage[i], trackObservations: observationsPerImage[i] })),
    warnings,
  };
}
