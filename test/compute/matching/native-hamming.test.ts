import { describe, expect, it } from "vitest";
import { packDescriptors } from "../../../compute/stages/matching/hamming.js";
import { kernelName, nativeSearch, nearestNeighbours, nearestNeighboursWasm } from "../../../compute/stages/matching/kernel.js";
import { rng } from "../../support/fixtures.js";
import { canBuildNative } from "../../support/native-build.js";

const BYTES = 61;
const KEYS = ["bestA", "secondA", "argA", "bestB", "secondB", "argB"] as const;

/** `count` rows; every third is a row of `near` (if given) with a few bits flipped, so bests and ties occur. */
function descriptors(count: number, seed: number, near?: Uint8Array, nearCount = 0): Uint32Array {
  const random = rng(seed);
  const rows = Uint8Array.from({ length: count * BYTES }, () => Math.floor(random() * 256));
  if (near && nearCount > 0) {
    for (let i = 0; i < count; i += 3) {
      const from = Math.floor(random() * nearCount);
      rows.set(near.subarray(from * BYTES, (from + 1) * BYTES), i * BYTES);
      for (let f = 0; f < i % 5; f++) rows[i * BYTES + Math.floor(random() * BYTES)] ^= 1 << f;
    }
  }
  return packDescriptors(rows, count, BYTES);
}

function bytesOf(packed: Uint32Array, count: number): Uint8Array {
  const out = new Uint8Array(count * BYTES);
  const bytes = new Uint8Array(packed.buffer, packed.byteOffset, packed.byteLength);
  for (let i = 0; i < count; i++) out.set(bytes.subarray(i * 64, i * 64 + BYTES), i * BYTES);
  return out;
}

describe("stages/matching native descriptor search", () => {
  it("is built wherever a C compiler and Node-API's header are, and chosen over the wasm kernel", () => {
    if (!canBuildNative()) return;
    expect(nativeSearch(), "the native addon is missing: run `node scripts/build-native.mjs` (npm ci's postinstall)").not.toBeNull();
    expect(kernelName()).toMatch(/^native-(avx512|popcnt|portable)$/);
  });

  it("gives the WebAssembly kernel's neighbours to the bit, at every remainder of its eight-row blocks", () => {
    if (!nativeSearch()) return;
    const sizes: Array<[number, number]> = [[0, 5], [5, 0], [1, 1], [8, 8], [9, 17], [57, 44], [300, 423], [1201, 1000]];
    for (const [countA, countB] of sizes) {
      const a = descriptors(countA, countA + 1);
      const b = descriptors(countB, countB + 7, bytesOf(a, countA), countA);
      const native = nearestNeighbours(a, countA, b, countB, 16);
      const wasm = nearestNeighboursWasm(a, countA, b, countB, 16);
      for (const key of KEYS) expect(Array.from(native[key]), `${countA}×${countB} ${key}`).toEqual(Array.from(wasm[key]));
    }
    // Repeated rows on both sides: ties, which the lowest index must win.
    const a = descriptors(40, 3);
    const repeated = new Uint32Array(80 * 16);
    for (let i = 0; i < 80; i++) repeated.set(a.subarray((i % 10) * 16, (i % 10) * 16 + 16), i * 16);
    const native = nearestNeighbours(repeated, 80, repeated, 80, 16);
    const wasm = nearestNeighboursWasm(repeated, 80, repeated, 80, 16);
    for (const key of KEYS) expect(Array.from(native[key]), key).toEqual(Array.from(wasm[key]));
    expect(Array.from(native.argA.subarray(0, 12))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1]);
  });

  it("refuses arrays of the wrong kind or too short for their counts", () => {
    const native = nativeSearch();
    if (!native) return;
    const rows = new Uint32Array(4 * 16);
    const outA = new Uint32Array(12), best = new Uint32Array(4), second = new Uint32Array(4), arg = new Int32Array(4);
    expect(() => native.nearestNeighbours(rows, 4, rows, 4, outA, best, second, new Uint32Array(4) as unknown as Int32Array)).toThrow(TypeError);
    expect(() => native.nearestNeighbours(rows, 5, rows, 4, outA, best, second, arg)).toThrow(RangeError);
    expect(() => native.nearestNeighbours(rows, 4, rows, -1, outA, best, second, arg)).toThrow(TypeError);
    native.nearestNeighbours(rows, 4, rows, 4, outA, best, second, arg);
    expect(Array.from(best)).toEqual([0, 0, 0, 0]);
    expect(Array.from(arg)).toEqual([0, 0, 0, 0]);
  });
});
