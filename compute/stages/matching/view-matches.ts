/**
 * @module One pair's view-by-view matching for the wide-baseline pass
 * (match-simulated-views.ts): plain A against each simulated view of B and each view of A
 * against plain B, each with Lowe's ratio and the mutual test, pooled one match per position. A pure function of the packed keypoint sets, so
 * it runs in a worker thread as well as here.
 */
import type { TransferListItem } from "node:worker_threads";
import { mutualRatioMatches } from "../../math/mutual-nearest.js";
import { nearestNeighbours } from "./kernel.js";

/** A photo's keypoint sets: 0 its plain keypoints, 1… its simulated views'. */
export interface PackedSets {
  xy: Float32Array[];
  /** Descriptors packed as Hamming rows (hamming.ts). */
  rows: Uint32Array[];
  counts: number[];
}

export interface ViewPairTask {
  kind: "views";
  a: PackedSets;
  b: PackedSets;
  /** The pair's plain matches verified before, as (plain index in A, plain index in B) pairs; they come first. */
  before: Uint32Array | null;
  ratio: number;
  words: number;
}

/** Pooled matches as (set in A, index, set in B, index) quads, set 0 = plain. */
export interface ViewPairResult {
  pooled: Uint32Array;
}

export function poolViewMatches(task: ViewPairTask): ViewPairResult {
  const { a, b } = task;
  const pooled: number[] = [];
  const seenA = new Set<number>();
  const seenB = new Set<number>();
  const offer = (setA: number, indexA: number, setB: number, indexB: number): void => {
    const keyA = pixelKey(a.xy[setA], indexA);
    const keyB = pixelKey(b.xy[setB], indexB);
    if (seenA.has(keyA) || seenB.has(keyB)) return;
    seenA.add(keyA);
    seenB.add(keyB);
    pooled.push(setA, indexA, setB, indexB);
  };
  if (task.before) for (let k = 0; k < task.before.length; k += 2) offer(0, task.before[k], 0, task.before[k + 1]);
  const matchings: [number, number][] = [];
  for (let v = 1; v < b.counts.length; v++) matchings.push([0, v]);
  for (let v = 1; v < a.counts.length; v++) matchings.push([v, 0]);
  for (const [setA, setB] of matchings) {
    if (a.counts[setA] === 0 || b.counts[setB] === 0) continue;
    const found = mutualRatioMatches(nearestNeighbours(a.rows[setA], a.counts[setA], b.rows[setB], b.counts[setB], task.words), task.ratio);
    for (let k = 0; k < found.length; k += 3) offer(setA, found[k], setB, found[k + 1]);
  }
  return { pooled: Uint32Array.from(pooled) };
}

/** The keypoint's pixel (rounded), as one number. */
function pixelKey(xy: Float32Array, index: number): number {
  return Math.round(xy[2 * index + 1]) * 65_536 + Math.round(xy[2 * index]);
}

/** A worker's task: the pooled matches, their buffer transferred. */
export function viewPairTask(task: ViewPairTask): { value: ViewPairResult; transfer: TransferListItem[] } {
  const value = poolViewMatches(task);
  return { value, transfer: [value.pooled.buffer as ArrayBuffer] };
}
