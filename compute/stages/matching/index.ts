/**
 * @module Stage `matching`: choose image pairs (pairs.ts), match binary descriptors on all
 * cores with the native or WebAssembly Hamming kernel, Lowe's ratio test and a mutual check (kernel.ts,
 * hamming.ts), verify each pair geometrically and flag low-parallax pairs (verify.ts), and
 * link the verified matches into tracks (tracks.ts).
 */
import type { ImageFeatures } from "../../scene/features.js";
import type { ImageRef } from "../../scene/images.js";
import type { Tracks, VerifiedPair } from "../../scene/matches.js";
import type { ProgressFn, StageReport } from "../../scene/report.js";
import { WorkerPool, type TaskRunner } from "../../util/pool.js";
import { kernelName } from "./kernel.js";
import { matchPairList, type PairBatchRunner } from "./match-pairs.js";
import { DEFAULTS, type Options } from "./options.js";
import type { PairResult, PairTask } from "./pair.js";
import { selectPairs } from "./pairs.js";
import { orderFeatures, shareFeatures } from "./shared.js";
import { buildTracks } from "./tracks.js";
import type { ViewPairResult, ViewPairTask } from "./view-matches.js";
import { rematchWideBaseline as rematch, WIDE_BASELINE_DEFAULTS, type WideBaselineInput, type WideBaselineOptions } from "./match-simulated-views.js";

export const NAME = "matching";

export { DEFAULTS, type Options } from "./options.js";
export { runPairBatch, type PairBatchRunner } from "./match-pairs.js";
export { decodePairResults, encodePairResults } from "./encode.js";
export type { PairResult } from "./pair.js";

export interface Input {
  images: ImageRef[];
  features: ImageFeatures[];
}

export interface Output {
  pairs: VerifiedPair[];
  tracks: Tracks;
  report: StageReport;
}

/**
 * Matching tasks run on `workers` when given (e.g. the pipeline's front workers, which detected
 * the features; the caller closes them), else on workers of its own; or, when `remote` takes
 * them, as batches on other containers.
 */
export async function run(input: Input, options: Partial<Options> = {}, progress?: ProgressFn, workers?: TaskRunner<PairTask, PairResult>, remote?: PairBatchRunner): Promise<Output> {
  const started = performance.now();
  const opts: Options = { ...DEFAULTS, ...options, retrieval: { ...DEFAULTS.retrieval, ...options.retrieval } };
  const { images } = input;
  const features = orderFeatures(images, input.features);
  const shared = shareFeatures(images, features, opts);
  const packed = features.map((f, i) => ({ rows: new Uint32Array(shared.descriptors, shared.offsets[i] * shared.words * 4, f.count * shared.words), count: f.count }));
  const selection = selectPairs(images, packed, shared.words, opts);
  // Pair selection (retrieval on large sets) stays with the job; the pairs can go out as tasks.
  const selectionMs = performance.now() - started;
  const elsewhere = remote ? await remote(images, features, selection.pairs, opts, (fraction) => progress?.(fraction)) : null;
  const results = elsewhere?.results ?? (await matchHere(selection.pairs, shared, images.length, opts, progress, workers));
  const pairs = results.flatMap((r) => (r.pair ? [r.pair] : []));
  const { tracks, stats } = buildTracks(pairs, features.map((f) => f.count));
  return { pairs, tracks, report: report(images, results, pairs, tracks, stats, selection.strategy, { remoteBatches: elsewhere?.batches ?? 0, selectionMs }, performance.now() - started) };
}

/** The selected pairs matched in this process; progress counts pairs and the images whose pairs are all done. */
async function matchHere(pairList: Uint32Array, shared: ReturnType<typeof shareFeatures>, imageCount: number, opts: Options, progress?: ProgressFn, workers?: TaskRunner<PairTask, PairResult>): Promise<PairResult[]> {
  const pairCount = pairList.length / 2;
  const pendingPerImage = new Uint32Array(imageCount); // candidate pairs not yet matched, per image
  for (const index of pairList) pendingPerImage[index]++;
  let imagesDone = pendingPerImage.filter((p) => p === 0).length;
  let pairsDone = 0;
  const own = workers ? null : new WorkerPool<PairTask, PairResult>(new URL("./worker.ts", import.meta.url), { size: Math.max(1, Math.min(opts.workers, pairCount)) });
  try {
    return await matchPairList(pairList, shared, workers ?? own!, (result) => {
      pairsDone++;
      for (const image of [result.a, result.b]) if (--pendingPerImage[image] === 0) imagesDone++;
      progress?.(pairsDone / pairCount, imagesDone);
    });
  } finally {
    await own?.close();
  }
}

function report(images: ImageRef[], results: PairResult[], pairs: VerifiedPair[], tracks: Tracks, stats: { inconsistent: number; observations: number }, strategy: string, split: { remoteBatches: number; selectionMs: number }, wallMs: number): StageReport {
  const verifiedPerImage = new Uint32Array(images.length);
  for (const p of pairs) {
    verifiedPerImage[p.imageA]++;
    verifiedPerImage[p.imageB]++;
  }
  const observationsPerImage = new Uint32Array(images.length);
  for (const image of tracks.trackImages) observationsPerImage[image]++;
  const warnings = images.filter((_, i) => verifiedPerImage[i] === 0).map((im) => `${im.name}: no verified pair (too little overlap with the other images?)`);
  if (kernelName() === "typescript") warnings.push("matching: neither the native nor the WebAssembly SIMD kernel loaded, used the slower TypeScript reference");
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
      remoteBatches: split.remoteBatches,
      selectionMs: split.selectionMs,
      // 1 when this process's exhaustive search is the native addon's (kernel.ts), 0 for the wasm kernel.
      nativeSearch: kernelName().startsWith("native-") ? 1 : 0,
    },
    perImage: images.map((im, i) => ({ name: im.name, verifiedPairs: verifiedPerImage[i], trackObservations: observationsPerImage[i] })),
    warnings,
  };
}

export { WIDE_BASELINE_DEFAULTS, type WideBaselineOptions } from "./match-simulated-views.js";
export type { ViewPairResult, ViewPairTask } from "./view-matches.js";

/**
 * Matching's second pass for photos taken far apart (match-simulated-views.ts): the pairs of
 * `targets` matched again against simulated oblique views (on `workers` when given,
 * view-matches.ts), and the tracks rebuilt. Returns the features with the keypoints the new matches use added.
 */
export async function rematchWideBaseline(input: WideBaselineInput, options: Partial<Options> = {}, wideOptions: WideBaselineOptions = WIDE_BASELINE_DEFAULTS, workers?: TaskRunner<ViewPairTask, ViewPairResult>): Promise<Output & { features: ImageFeatures[] }> {
  const started = performance.now();
  const opts: Options = { ...DEFAULTS, ...options, retrieval: { ...DEFAULTS.retrieval, ...options.retrieval } };
  const features = orderFeatures(input.images, input.features);
  const result = await rematch({ ...input, features }, opts, wideOptions, workers);
  const { tracks, stats } = buildTracks(result.pairs, result.features.map((f) => f.count));
  return {
    features: result.features,
    pairs: result.pairs,
    tracks,
    report: {
      stage: "wide-baseline matching",
      wallMs: performance.now() - started,
      counts: { ...result.counts, verifiedPairs: result.pairs.length, tracks: tracks.count, trackObservations: stats.observations, inconsistentTracks: stats.inconsistent },
      warnings: [],
    },
  };
}
