/**
 * @module Exact confirmation of matches from the approximate search (ann.ts). The index can
 * miss a row's true second-nearest, and then Lowe's ratio passes a match the exhaustive search
 * rejects. Confirming compares each tentative match's A row with every B row and its B row
 * with every A row, and keeps the match only if it is the mutual nearest with both ratios
 * passing: the confirmed matches are exactly those of the exhaustive search that the index
 * offered. The cost is matches × (countA + countB) distances instead of countA × countB, so
 * it pays on pairs with few matches, where the surplus hurts most: a weak pair's few true
 * matches drown among the surplus and RANSAC no longer finds them (see ann.ts's callers).
 */
import { nearestNeighbours } from "./kernel.js";

/**
 * The (indexA, indexB, distance) triples of `tentative` that the exhaustive search also
 * gives: both sides the exact mutual nearest, both ratios below `ratio`.
 */
export function confirmMatches(tentative: Uint32Array, a: Uint32Array, countA: number, b: Uint32Array, countB: number, words: number, ratio: number): Uint32Array {
  const count = tentative.length / 3;
  if (count === 0) return tentative;
  const kept = new Uint8Array(count).fill(1);
  confirmSide(tentative, 0, a, b, countB, words, ratio, kept);
  confirmSide(tentative, 1, b, a, countA, words, ratio, kept);
  const out = new Uint32Array(3 * kept.reduce((s, k) => s + k, 0));
  for (let k = 0, n = 0; k < count; k++) if (kept[k]) out.set(tentative.subarray(3 * k, 3 * k + 3), 3 * n++);
  return out;
}

/**
 * For each tentative match, its row on `side` (0: A, 1: B) against every row of the other
 * set (the exhaustive kernel on the gathered rows): clears kept[k] unless its partner is the
 * nearest and passes the ratio.
 */
function confirmSide(tentative: Uint32Array, side: 0 | 1, from: Uint32Array, to: Uint32Array, countTo: number, words: number, ratio: number, kept: Uint8Array): void {
  const count = kept.length;
  const gathered = new Uint32Array(count * words);
  for (let k = 0; k < count; k++) {
    const row = tentative[3 * k + side];
    gathered.set(from.subarray(row * words, (row + 1) * words), k * words);
  }
  const { bestA, secondA, argA } = nearestNeighbours(gathered, count, to, countTo, words);
  // A tie for the nearest fails the ratio, so the nearest is unique whenever the ratio passes.
  for (let k = 0; k < count; k++) if (argA[k] !== tentative[3 * k + 1 - side] || bestA[k] >= ratio * secondA[k]) kept[k] = 0;
}
