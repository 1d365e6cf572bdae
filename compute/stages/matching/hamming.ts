/**
 * @module Brute-force binary descriptor matching on flat Uint32Arrays: Hamming distance by
 * SWAR popcount (Warren, Hacker's Delight §5-1), nearest and second-nearest neighbours in
 * both directions in one pass (the bookkeeping and the ratio + mutual test are
 * math/mutual-nearest.ts).
 */
import { allocNeighbours, type Neighbours } from "../../math/mutual-nearest.js";

/** 32-bit words per descriptor row once padded (AKAZE MLDB: 61 bytes → 16 words). */
export function wordsPerDescriptor(descriptorBytes: number): number {
  return Math.ceil(descriptorBytes / 4);
}

/** Copy descriptors (`bytes` each) into zero-padded 32-bit rows, so distance loops run on whole words. */
export function packDescriptors(descriptors: Uint8Array, count: number, bytes: number, out: Uint32Array = new Uint32Array(count * wordsPerDescriptor(bytes))): Uint32Array {
  const words = wordsPerDescriptor(bytes);
  const padded = new Uint8Array(words * 4);
  const view = new Uint32Array(padded.buffer);
  for (let i = 0; i < count; i++) {
    padded.fill(0);
    padded.set(descriptors.subarray(i * bytes, (i + 1) * bytes));
    out.set(view, i * words);
  }
  return out;
}

/** Hamming distance between the packed rows at word offsets oa of `a` and ob of `b`. */
export function hammingDistance(a: Uint32Array, oa: number, b: Uint32Array, ob: number, words: number): number {
  let d = 0;
  for (let k = 0; k < words; k++) {
    let v = a[oa + k] ^ b[ob + k];
    v -= (v >>> 1) & 0x55555555;
    v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
    d += Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
  }
  return d;
}

/** Plain TypeScript reference of wasm/hamming.ts (the tests compare the two). */
export function nearestNeighboursReference(a: Uint32Array, countA: number, b: Uint32Array, countB: number, words: number): Neighbours {
  const nb = allocNeighbours(countA, countB);
  const { bestB, secondB, argB } = nb;
  for (let i = 0; i < countA; i++) {
    let d1 = 0xffffffff;
    let d2 = 0xffffffff;
    let j1 = -1;
    for (let j = 0; j < countB; j++) {
      const d = hammingDistance(a, i * words, b, j * words, words);
      if (d < d1) {
        d2 = d1;
        d1 = d;
        j1 = j;
      } else if (d < d2) d2 = d;
      if (d < bestB[j]) {
        secondB[j] = bestB[j];
        bestB[j] = d;
        argB[j] = i;
      } else if (d < secondB[j]) secondB[j] = d;
    }
    nb.argA[i] = j1;
    nb.bestA[i] = d1;
    nb.secondA[i] = d2;
  }
  return nb;
}
