/**
 * @module Approximate nearest and second-nearest neighbours of AKAZE descriptors by
 * multi-index hashing (Norouzi, Punjani & Fleet, "Fast search in Hamming space with
 * multi-index hashing", CVPR 2012): the 486 bits are split into `tables` disjoint substrings
 * of `keyBits` bits; every B row is filed in one table per substring under that substring's
 * value; an A row's candidates are the B rows that equal it on at least one substring (probe
 * radius 0); the exact distance to each candidate is then taken (kernel.ts) and offered to both
 * sides' bookkeeping (math/mutual-nearest.ts), so the ratio + mutual test runs unchanged.
 * The candidate relation is symmetric, so one pass over A gives B's side too.
 *
 * Why these choices (measured on Herz-Jesus-P8's descriptors, 8,000 per image; the figures of
 * `npm run bench -- ann` are in BENCHMARKS.md; the measurements and the variants not kept in
 * docs/decisions.md, "Approximate nearest neighbours only from 10,000 keypoints, weak pairs
 * searched again"):
 *  - Substrings of random bits, not of neighbouring ones. MLDB's neighbouring bits compare
 *    the same grid cells and are strongly correlated, so contiguous 16-bit substrings put a
 *    few very common values in huge buckets: 26–30 % of B was a candidate of the average
 *    query, and two random bytes per table 19–22 %. Random bit subsets (as LSH's bit sampling,
 *    Gionis, Indyk & Motwani, VLDB 1999, which FLANN uses for binary features) gave 1.1 %.
 *  - 16 bits per key: Norouzi et al. advise log₂ N bits (13 for 8,000 rows), but the skew of
 *    real descriptors fills buckets more than that rule assumes. A table has about one bucket
 *    per row, addressed by the key's low bits, and checks the full key.
 *  - Radius 0 and 30 tables (all 480 bits of 30 disjoint 16-bit subsets): a row at distance D
 *    shares an exact substring with probability 1 − (1 − C(486 − D, 16)/C(486, 16))³⁰ when its
 *    differing bits fall at random: 98 % at D = 60 (the median distance of true matches is
 *    41–74), 81 % at 80, 51 % at 100. Probing radius 1 would multiply the lookups by 17.
 *
 * The second-nearest: Lowe's ratio needs it, and a search that misses the true second reports
 * a farther one, so the test passes matches the exhaustive search rejects (on a pair of
 * Herz-Jesus-P8 with 71 exhaustive matches, 48 such extra matches beside 65 shared). So the
 * second is bounded by the search's reach: the largest distance a row is found at with
 * probability at least `coverage` under the model above. A second beyond the reach is taken
 * to lie just past it, so the ratio test also caps the nearest at ratio × (reach + 1), and a
 * nearest beyond the reach fails. Coverage ¼ (reach 120 bits, nearest < 96.8): on
 * Herz-Jesus-P8 and fountain-P11 at 8,000 and 12,000 keypoints it kept the verified inliers
 * per pair at or above the exhaustive search's, with as many verified pairs and 99.7–99.9 %
 * of the inliers on the published cameras' epipolar lines either way. At ½ (reach 100) the cap
 * rejected good matches (7.9 % fewer verified inliers on fountain-P11); with no bound, 3
 * points more of the putative matches were wrong.
 *
 * Weak pairs, where a few matches decide verification, are searched again exhaustively by the
 * matching stage (its `annWeakMatches`): there the surplus made wrong pairs verify more often.
 * Tried instead and not kept: confirming each match of a weak pair against every row of the
 * other image (the confirmed matches are exactly the exhaustive search's that the index
 * offered), which lost weak true pairs through the matches the index missed (fountain-P11 at
 * 4,000 and 12,000 keypoints: a pair of 18 and one of 16 inliers).
 */
import type { CandidateDistances } from "../../geometry/epipolar-band.js";
import { allocNeighbours, type Neighbours } from "../../math/mutual-nearest.js";
import { createRng } from "../../math/random.js";
import { candidateDistances, nearestNeighbours } from "./kernel.js";

/** Bits of an AKAZE MLDB descriptor (3 channels × (6 + 36 + 120) comparisons); bits 486–511 of a packed row are padding. */
export const INDEXED_BITS = 486;
/** 32-bit words of the rows the index takes (AKAZE's 61 bytes, padded to 64); other rows are matched exhaustively. */
export const INDEXED_WORDS = 16;

export interface AnnParameters {
  /** Hash tables, one per substring. */
  tables: number;
  /** Bits per substring (the key of each table), at most 16. */
  keyBits: number;
  /** Probability of finding a row at the reach (the bound of the second-nearest distance). */
  coverage: number;
  /** Seed of the random choice of substring bits. */
  seed: number;
}

export const ANN_PARAMETERS: AnnParameters = { tables: 30, keyBits: 16, coverage: 0.25, seed: 0x5eed };

/**
 * Nearest and second-nearest neighbours both ways, approximately, in the layout of the
 * exhaustive search. Rows other than INDEXED_WORDS words, and empty sets, go to the exact
 * search (kernel.ts).
 */
export function approximateNeighbours(a: Uint32Array, countA: number, b: Uint32Array, countB: number, words: number, parameters: AnnParameters = ANN_PARAMETERS): Neighbours {
  if (words !== INDEXED_WORDS || countA === 0 || countB === 0) return nearestNeighbours(a, countA, b, countB, words);
  return substringNeighbours(a, countA, b, countB, candidateDistances(a, countA, b, countB, words), parameters);
}

/** The search itself, given a source of exact distances (kernel.ts's WebAssembly one, or the tests'). */
export function substringNeighbours(a: Uint32Array, countA: number, b: Uint32Array, countB: number, distances: CandidateDistances, parameters: AnnParameters): Neighbours {
  const { tables, keyBits } = parameters;
  const bits = substringBits(tables, keyBits, parameters.seed);
  const keysA = substringKeys(a, countA, bits, tables, keyBits);
  const index = fileRows(substringKeys(b, countB, bits, tables, keyBits), countB, tables);
  const { bucketStart, bucketRows, bucketKeys, mask } = index;
  const stride = mask + 2;
  const nb = allocNeighbours(countA, countB);
  const { candidates } = distances;
  const seen = new Int32Array(countB).fill(-1); // per B row: the last A row that took it as a candidate
  for (let i = 0; i < countA; i++) {
    let n = 0;
    for (let t = 0; t < tables; t++) {
      const key = keysA[i * tables + t];
      const at = t * stride + (key & mask);
      for (let k = bucketStart[at], end = bucketStart[at + 1]; k < end; k++) {
        const j = bucketRows[k];
        if (bucketKeys[k] !== key || seen[j] === i) continue;
        seen[j] = i;
        candidates[n++] = j;
      }
    }
    if (n > 0) offerCandidates(nb, i, candidates, distances.compute(i, n), n);
  }
  boundSeconds(nb, searchReach(parameters));
  return nb;
}

/** recordDistance for n candidates of A row i, with the row's own best and second kept in locals. */
function offerCandidates(nb: Neighbours, i: number, candidates: Uint32Array, d: ArrayLike<number>, n: number): void {
  const { bestB, secondB, argB } = nb;
  let best = nb.bestA[i];
  let second = nb.secondA[i];
  let arg = nb.argA[i];
  for (let k = 0; k < n; k++) {
    const j = candidates[k];
    const dk = d[k];
    if (dk < best) {
      second = best;
      best = dk;
      arg = j;
    } else if (dk < second) second = dk;
    if (dk < bestB[j]) {
      secondB[j] = bestB[j];
      bestB[j] = dk;
      argB[j] = i;
    } else if (dk < secondB[j]) secondB[j] = dk;
  }
  nb.bestA[i] = best;
  nb.secondA[i] = second;
  nb.argA[i] = arg;
}

/**
 * The largest distance D at which a row is found with probability ≥ coverage, when its D
 * differing bits fall at random among INDEXED_BITS: a table's key avoids them with
 * probability C(bits − D, keyBits) / C(bits, keyBits), and a row is found when one of the
 * tables does.
 */
export function searchReach({ tables, keyBits, coverage }: Pick<AnnParameters, "tables" | "keyBits" | "coverage">): number {
  let reach = 0;
  for (let d = 1; d <= INDEXED_BITS - keyBits; d++) {
    let avoid = 1;
    for (let s = 0; s < keyBits; s++) avoid *= (INDEXED_BITS - d - s) / (INDEXED_BITS - s);
    if (1 - (1 - avoid) ** tables < coverage) break;
    reach = d;
  }
  return reach;
}

/**
 * A second-nearest the search did not find within its reach is taken to lie just past it
 * (reach + 1), so the ratio test cannot pass on a second the search could not see; a nearest
 * beyond the reach gets second = nearest, a tie, which the test rejects.
 */
export function boundSeconds(nb: Neighbours, reach: number): void {
  const bound = (best: Uint32Array, second: Uint32Array) => {
    for (let k = 0; k < best.length; k++) second[k] = Math.max(best[k], Math.min(second[k], reach + 1));
  };
  bound(nb.bestA, nb.secondA);
  bound(nb.bestB, nb.secondB);
}

/**
 * Bit positions of each table's key (table t: positions t·keyBits … (t+1)·keyBits − 1), drawn
 * without replacement from a seeded shuffle of the descriptor's bits, so the tables are
 * disjoint while tables × keyBits ≤ INDEXED_BITS (a fresh shuffle serves any further tables).
 */
export function substringBits(tables: number, keyBits: number, seed: number): Uint16Array {
  const rng = createRng(seed);
  const bits = new Uint16Array(tables * keyBits);
  const shuffle = new Uint16Array(INDEXED_BITS);
  for (let at = 0; at < bits.length; at += INDEXED_BITS) {
    for (let k = 0; k < INDEXED_BITS; k++) shuffle[k] = k;
    for (let k = INDEXED_BITS - 1; k > 0; k--) {
      const r = Math.floor(rng() * (k + 1));
      const swap = shuffle[k];
      shuffle[k] = shuffle[r];
      shuffle[r] = swap;
    }
    bits.set(shuffle.subarray(0, Math.min(INDEXED_BITS, bits.length - at)), at);
  }
  return bits;
}

/** Per row i and table t, the row's key in that table at keys[i·tables + t]. */
function substringKeys(rows: Uint32Array, count: number, bits: Uint16Array, tables: number, keyBits: number): Uint32Array {
  // Where each descriptor bit goes: its table (NONE if no table takes it) and its place in the key.
  const NONE = 0xffff;
  const tableOf = new Uint16Array(INDEXED_WORDS * 32).fill(NONE);
  const placeOf = new Uint8Array(INDEXED_WORDS * 32);
  bits.forEach((bit, p) => {
    tableOf[bit] = Math.floor(p / keyBits);
    placeOf[bit] = p % keyBits;
  });
  const keys = new Uint32Array(count * tables);
  for (let i = 0; i < count; i++) {
    const out = i * tables;
    for (let w = 0; w < INDEXED_WORDS; w++) {
      // Visit the set bits only: about half of them, instead of every bit of every key.
      for (let v = rows[i * INDEXED_WORDS + w]; v !== 0; v &= v - 1) {
        const bit = (w << 5) + 31 - Math.clz32(v & -v);
        if (tableOf[bit] !== NONE) keys[out + tableOf[bit]] |= 1 << placeOf[bit];
      }
    }
  }
  return keys;
}

/**
 * The rows filed by key, per table (CSR): table t's rows whose key has low bits h are
 * bucketRows[bucketStart[t·(mask + 2) + h] …] up to the next bucket's start, with their full
 * keys beside them in bucketKeys. About one bucket per row (mask + 1 = the power of two at or
 * above the row count) keeps the bucket starts of all tables in cache: 2¹⁶ buckets per table
 * (7.9 MiB for 30 tables) spent most of the search in cache misses.
 */
interface SubstringTables {
  mask: number;
  bucketStart: Uint32Array;
  bucketRows: Uint32Array;
  bucketKeys: Uint32Array;
}

function fileRows(keys: Uint32Array, count: number, tables: number): SubstringTables {
  const buckets = 2 ** Math.ceil(Math.log2(Math.max(2, count)));
  const mask = buckets - 1;
  const stride = buckets + 1;
  const bucketStart = new Uint32Array(tables * stride);
  const bucketRows = new Uint32Array(tables * count);
  const bucketKeys = new Uint32Array(tables * count);
  const cursor = new Uint32Array(buckets); // per bucket of the current table: where its next row goes
  for (let t = 0; t < tables; t++) {
    const starts = bucketStart.subarray(t * stride, (t + 1) * stride);
    for (let i = 0; i < count; i++) starts[(keys[i * tables + t] & mask) + 1]++;
    starts[0] = t * count;
    for (let h = 0; h < buckets; h++) starts[h + 1] += starts[h];
    cursor.set(starts.subarray(0, buckets));
    for (let i = 0; i < count; i++) {
      const key = keys[i * tables + t];
      const at = cursor[key & mask]++;
      bucketRows[at] = i;
      bucketKeys[at] = key;
    }
  }
  return { mask, bucketStart, bucketRows, bucketKeys };
}
