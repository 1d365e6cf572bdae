import { describe, expect, it } from "vitest";
import { mutualRatioMatches } from "../../../compute/math/mutual-nearest.js";
import { nearestNeighboursReference, packDescriptors } from "../../../compute/stages/matching/hamming.js";
import { nearestNeighboursWasm as nearestNeighbours, wasmKernelName } from "../../../compute/stages/matching/kernel.js";
import { rng } from "../../support/fixtures.js";

const BYTES = 61;

function randomDescriptors(count: number, seed: number): Uint8Array {
  const random = rng(seed);
  return Uint8Array.from({ length: count * BYTES }, () => Math.floor(random() * 256));
}

/** Copy row `from` of `src` into row `to` of `dst`, flipping the listed bits. */
function plant(dst: Uint8Array, to: number, src: Uint8Array, from: number, flips: number[]): void {
  dst.set(src.subarray(from * BYTES, (from + 1) * BYTES), to * BYTES);
  for (const bit of flips) dst[to * BYTES + (bit >> 3)] ^= 1 << (bit & 7);
}

describe("stages/matching descriptor kernel", () => {
  it("the WebAssembly SIMD kernel equals the TypeScript reference", () => {
    const a = randomDescriptors(300, 1);
    const b = randomDescriptors(420, 2);
    for (let k = 0; k < 100; k++) plant(b, (k * 3 + 1) % 420, a, k, [k % 488, (k * 13) % 488]);
    const pa = packDescriptors(a, 300, BYTES);
    const pb = packDescriptors(b, 420, BYTES);
    expect(wasmKernelName()).toBe("wasm-simd");
    const fast = nearestNeighbours(pa, 300, pb, 420, 16);
    const reference = nearestNeighboursReference(pa, 300, pb, 420, 16);
    for (const key of ["bestA", "secondA", "argA", "bestB", "secondB", "argB"] as const) expect(Array.from(fast[key])).toEqual(Array.from(reference[key]));
    const matches = mutualRatioMatches(fast, 0.8);
    expect(matches.length / 3).toBe(100);
    for (let m = 0; m < matches.length; m += 3) expect([matches[m + 1], matches[m + 2]]).toEqual([(matches[m] * 3 + 1) % 420, 2 - Number(matches[m] % 488 === (matches[m] * 13) % 488) * 2]);
  });

  it("the kernel's two-row passes resolve ties and an odd last row as the reference does", () => {
    // Many equal distances: rows of A repeat in A and in B, so bests tie on both sides and the
    // lowest index must win, as in the reference's row-by-row scan.
    const a = randomDescriptors(57, 5);
    const b = randomDescriptors(44, 6);
    for (let k = 0; k < 20; k++) plant(a, 30 + k, a, k, []);
    for (let k = 0; k < 30; k++) plant(b, k, a, k % 12, k % 2 ? [k] : []);
    const pa = packDescriptors(a, 57, BYTES);
    const pb = packDescriptors(b, 44, BYTES);
    const fast = nearestNeighbours(pa, 57, pb, 44, 16);
    const reference = nearestNeighboursReference(pa, 57, pb, 44, 16);
    for (const key of ["bestA", "secondA", "argA", "bestB", "secondB", "argB"] as const) expect(Array.from(fast[key])).toEqual(Array.from(reference[key]));
    // Rows 0–11 reappear in B exactly (even rows) or one bit off (odd rows), three times each.
    expect(Array.from(fast.bestA.subarray(0, 12))).toEqual(Array.from({ length: 12 }, (_, k) => k % 2));
    expect(Array.from(fast.argA.subarray(30, 42))).toEqual(Array.from(fast.argA.subarray(0, 12)));
  });

  it("ratio + mutual test removes ambiguous matches and keeps distinctive ones", () => {
    const a = randomDescriptors(3, 3);
    const b = randomDescriptors(6, 4);
    plant(b, 0, a, 0, [5]); // a0: one clear partner (distance 1)
    plant(b, 1, a, 1, [9]); // a1: two partners at distance 1 — a repeated pattern
    plant(b, 2, a, 1, [40]);
    plant(b, 3, a, 2, [1, 2, 3, 4, 5, 6, 7, 8]); // a2: partner at 8, a decoy at 9 — ratio 0.89 fails
    plant(b, 4, a, 2, [100, 101, 102, 103, 104, 105, 106, 107, 108]);
    const nb = nearestNeighboursReference(packDescriptors(a, 3, BYTES), 3, packDescriptors(b, 6, BYTES), 6, 16);
    expect(Array.from(mutualRatioMatches(nb, 0.8))).toEqual([0, 0, 1]);
    expect(mutualRatioMatches(nb, 0.95).length / 3).toBe(2); // a looser ratio admits a2, never the tie of a1
  });
});
