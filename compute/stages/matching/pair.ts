/**
 * @module One task of the matching stage, inside a worker thread (worker.ts, or the pipeline's
 * shared front workers). All images' packed descriptors and keypoint coordinates live in
 * SharedArrayBuffers that every task carries: their memory is shared, and only the small
 * per-image tables (offsets, counts) are copied with each task. Beyond those, a task is a
 * pair of image indices: match descriptors (kernel.ts, ann.ts, geometry/epipolar-band.ts), ratio + mutual test
 * (hamming.ts), verify (verify.ts).
 */
import type { TransferListItem } from "node:worker_threads";
import { createRng } from "../../math/random.js";
import { epipolarBandNeighbours } from "../../geometry/epipolar-band.js";
import { mutualRatioMatches } from "../../math/mutual-nearest.js";
import { approximateNeighbours } from "./ann.js";
import { candidateDistances, nearestNeighbours } from "./kernel.js";
import { verifyPair, type VerifyOptions } from "./verify.js";
import type { VerifiedPair } from "../../scene/matches.js";

export interface MatchingShared {
  /** Identifies one run of the stage, so a worker builds its typed views once per run. */
  run: number;
  /** Per image, the index its pairs' random seeds use (default its own): a batch of a larger set seeds as the whole set would. */
  seedIndex?: Uint32Array;
  /** Packed descriptor rows of all images, `words` Uint32 per keypoint (SharedArrayBuffer). */
  descriptors: SharedArrayBuffer;
  /** x, y per keypoint of all images, pixels (SharedArrayBuffer of Float32). */
  xy: SharedArrayBuffer;
  /** Per image: index of its first keypoint in the concatenated arrays, and its count. */
  offsets: Uint32Array;
  counts: Uint32Array;
  longSides: Float64Array;
  words: number;
  ratio: number;
  verify: VerifyOptions;
  /** The largest-scale keypoints of each image that has enough for guided matching (index.ts). */
  subset: SubsetShared;
  guided: GuidedSettings;
  ann: AnnSettings;
}

/** When the exhaustive search of a pair is approximate (ann.ts): mode "mih" and both images with at least minKeypoints. */
export interface AnnSettings {
  mode: "off" | "mih";
  minKeypoints: number;
  /** A pair with at most this many approximate matches is searched again exhaustively (0: never). */
  weakMatches: number;
}

/** Per image: `counts[i]` keypoints (0 when the image is matched exhaustively only), packed like the full set. */
export interface SubsetShared {
  descriptors: SharedArrayBuffer;
  /** Keypoint index (into the image's full set) of each subset row (Uint32). */
  keypoints: SharedArrayBuffer;
  offsets: Uint32Array;
  counts: Uint32Array;
}

export interface GuidedSettings {
  /** Verified subset inliers off the dominant homography a pair needs before its F guides the full matching. */
  minInliers: number;
  /** Epipolar band half-width as a multiple of the verification threshold. */
  band: number;
  /** Lowe's ratio among the band's candidates. */
  ratio: number;
}

export interface PairTask {
  a: number;
  b: number;
  shared: MatchingShared;
}

export interface PairResult {
  a: number;
  b: number;
  putative: number;
  /** Whether the matches came from guided matching (geometry/epipolar-band.ts) rather than the exhaustive search. */
  guided: boolean;
  /** Which search over all keypoints gave the matches (none: guided matching did). */
  search?: FullSearch;
  pair?: VerifiedPair;
  reason?: string;
}

/** Typed views over one run's shared buffers, built by the first task of the run a worker sees. */
interface Views {
  run: number;
  descriptors: Uint32Array;
  xy: Float32Array;
  subsetDescriptors: Uint32Array;
  subsetKeypoints: Uint32Array;
}

let cached: Views | null = null;

function viewsOf(shared: MatchingShared): Views {
  if (cached?.run !== shared.run) {
    cached = {
      run: shared.run,
      descriptors: new Uint32Array(shared.descriptors),
      xy: new Float32Array(shared.xy),
      subsetDescriptors: new Uint32Array(shared.subset.descriptors),
      subsetKeypoints: new Uint32Array(shared.subset.keypoints),
    };
  }
  return cached;
}

function matchPair({ a, b, shared }: PairTask): PairResult {
  const { offsets, counts, words } = shared;
  const { descriptors, xy } = viewsOf(shared);
  const rowsA = descriptors.subarray(offsets[a] * words, (offsets[a] + counts[a]) * words);
  const rowsB = descriptors.subarray(offsets[b] * words, (offsets[b] + counts[b]) * words);
  const xyA = xy.subarray(2 * offsets[a], 2 * (offsets[a] + counts[a]));
  const xyB = xy.subarray(2 * offsets[b], 2 * (offsets[b] + counts[b]));
  const longSide = Math.max(shared.longSides[a], shared.longSides[b]);
  // Seeded per pair: results do not depend on which worker, or which container, ran which pair.
  const seedA = shared.seedIndex?.[a] ?? a;
  const seedB = shared.seedIndex?.[b] ?? b;
  const rng = createRng(0x9e3779b1 ^ (seedA * 65599 + seedB));
  const guided = guidedPair(a, b, shared, { rowsA, rowsB, xyA, xyB, longSide, rng });
  if (guided) return guided;
  const { putative, search } = fullSearch(rowsA, counts[a], rowsB, counts[b], shared);
  const verified = verifyPair(a, b, xyA, xyB, putative, longSide, shared.verify, rng);
  return { a, b, putative: putative.length / 3, guided: false, search, ...verified };
}

/** "exhaustive" (kernel.ts), "approximate" (ann.ts), or "escalated": approximate, then exhaustive because the pair was weak. */
export type FullSearch = "exhaustive" | "approximate" | "escalated";

/**
 * Ratio + mutual matches over all keypoints of a pair: approximate where the settings allow,
 * and exhaustive again when that leaves a weak pair, whose verification hangs on a few matches
 * the index may miss or let through (the stage's `annWeakMatches`).
 */
function fullSearch(rowsA: Uint32Array, countA: number, rowsB: Uint32Array, countB: number, shared: MatchingShared): { putative: Uint32Array; search: FullSearch } {
  const { words, ratio, ann } = shared;
  const exhaustive = () => mutualRatioMatches(nearestNeighbours(rowsA, countA, rowsB, countB, words), ratio);
  if (ann.mode !== "mih" || Math.min(countA, countB) < ann.minKeypoints) return { putative: exhaustive(), search: "exhaustive" };
  const putative = mutualRatioMatches(approximateNeighbours(rowsA, countA, rowsB, countB, words), ratio);
  return putative.length / 3 > ann.weakMatches ? { putative, search: "approximate" } : { putative: exhaustive(), search: "escalated" };
}

interface PairData {
  rowsA: Uint32Array;
  rowsB: Uint32Array;
  xyA: Float32Array;
  xyB: Float32Array;
  longSide: number;
  rng: ReturnType<typeof createRng>;
}

/**
 * Guided matching when both images have a subset: match the subsets exhaustively, verify, and
 * if that gives a trustworthy fundamental matrix, match all keypoints along its epipolar lines
 * and verify again. Trustworthy means enough inliers that the dominant homography does not
 * explain: a plane (or a turn about the centre) fixes F only up to a family, and RANSAC then
 * returns one of them, right on the plane and wrong off it (Chum, Werner & Matas, CVPR 2005);
 * parallax inliers are what pin it down. Null sends the pair to the exhaustive search: a weak
 * or planar pair pays for the subset and then for the full search, which keeps the weak links
 * of a sparse ring.
 */
function guidedPair(a: number, b: number, shared: MatchingShared, pair: PairData): PairResult | null {
  const { subset, words, ratio, verify, guided } = shared;
  const { subsetDescriptors, subsetKeypoints } = viewsOf(shared);
  if (subset.counts[a] === 0 || subset.counts[b] === 0) return null;
  const rowsOf = (image: number): Uint32Array => subsetDescriptors.subarray(subset.offsets[image] * words, (subset.offsets[image] + subset.counts[image]) * words);
  const coarse = mutualRatioMatches(nearestNeighbours(rowsOf(a), subset.counts[a], rowsOf(b), subset.counts[b], words), ratio);
  for (let k = 0; k < coarse.length; k += 3) {
    coarse[k] = subsetKeypoints[subset.offsets[a] + coarse[k]];
    coarse[k + 1] = subsetKeypoints[subset.offsets[b] + coarse[k + 1]];
  }
  const seed = verifyPair(a, b, pair.xyA, pair.xyB, coarse, pair.longSide, verify, pair.rng);
  const F = seed.pair?.F;
  if (!seed.pair || !F || (seed.pair.matches.length / 2) * (1 - seed.pair.homographyRatio) < guided.minInliers) return null;
  const bandPx = guided.band * Math.max(1, verify.epipolarThreshold * pair.longSide);
  const distances = candidateDistances(pair.rowsA, shared.counts[a], pair.rowsB, shared.counts[b], words);
  const neighbours = epipolarBandNeighbours({ F, xyA: pair.xyA, countA: shared.counts[a], xyB: pair.xyB, countB: shared.counts[b], bandPx }, distances);
  const putative = mutualRatioMatches(neighbours, guided.ratio);
  const verified = verifyPair(a, b, pair.xyA, pair.xyB, putative, pair.longSide, verify, pair.rng);
  if (!verified.pair) return null;
  return { a, b, putative: putative.length / 3, guided: true, ...verified };
}

/** One task of the matching stage: the result, and the match buffer to transfer rather than copy. */
export function matchTask(task: PairTask): { value: PairResult; transfer: TransferListItem[] } {
  const value = matchPair(task);
  return { value, transfer: value.pair ? [value.pair.matches.buffer as ArrayBuffer] : [] };
}
