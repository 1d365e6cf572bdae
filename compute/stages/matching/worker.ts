/**
 * @module Worker thread of the matching stage. All images' packed descriptors and keypoint
 * coordinates arrive once, in SharedArrayBuffers (workerData), so a task is just a pair of
 * image indices: match descriptors (kernel.ts), ratio + mutual test (hamming.ts), verify
 * (verify.ts).
 */
import { workerData } from "node:worker_threads";
import { createRng } from "../../math/random.js";
import { serveTasks } from "../../util/pool.js";
import { mutualRatioMatches } from "./hamming.js";
import { nearestNeighbours } from "./kernel.js";
import { verifyPair, type VerifyOptions } from "./verify.js";
import type { VerifiedPair } from "../../scene/matches.js";

export interface MatchingShared {
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
}

export interface PairTask {
  a: number;
  b: number;
}

export interface PairResult {
  a: number;
  b: number;
  putative: number;
  pair?: VerifiedPair;
  reason?: string;
}

const shared = workerData as MatchingShared;
const descriptors = new Uint32Array(shared.descriptors);
const xy = new Float32Array(shared.xy);

function matchPair({ a, b }: PairTask): PairResult {
  const { offsets, counts, words } = shared;
  const rowsA = descriptors.subarray(offsets[a] * words, (offsets[a] + counts[a]) * words);
  const rowsB = descriptors.subarray(offsets[b] * words, (offsets[b] + counts[b]) * words);
  const putative = mutualRatioMatches(nearestNeighbours(rowsA, counts[a], rowsB, counts[b], words), shared.ratio);
  const xyA = xy.subarray(2 * offsets[a], 2 * (offsets[a] + counts[a]));
  const xyB = xy.subarray(2 * offsets[b], 2 * (offsets[b] + counts[b]));
  // Seeded per pair: results do not depend on which worker ran which pair.
  const rng = createRng(0x9e3779b1 ^ (a * 65599 + b));
  const verified = verifyPair(a, b, xyA, xyB, putative, Math.max(shared.longSides[a], shared.longSides[b]), shared.verify, rng);
  return { a, b, putative: putative.length / 3, ...verified };
}

serveTasks<PairTask, PairResult>((task) => {
  const value = matchPair(task);
  return { value, transfer: value.pair ? [value.pair.matches.buffer as ArrayBuffer] : [] };
});
