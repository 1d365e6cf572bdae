/**
 * Selected inversion (math/selected-inverse.ts) against the full inverse: a block-banded
 * symmetric positive definite matrix with dense corner blocks (as a reduced camera system with
 * shared intrinsics is), factored by the bundle adjuster's Cholesky; every entry on the block
 * pattern equals the inverse's, including entries of touched blocks that are exactly zero in S.
 */
import { describe, expect, it } from "vitest";
import { selectedInverseUpper } from "../../../compute/math/selected-inverse.js";
import { choleskyUpper } from "../../../compute/solvers/bundle-adjustment/dense-cholesky.js";

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  };
}

/** Full inverse by Gauss–Jordan (reference). */
function inverse(a: Float64Array, n: number): Float64Array {
  const m = a.slice();
  const inv = new Float64Array(n * n);
  for (let i = 0; i < n; i++) inv[i * n + i] = 1;
  for (let c = 0; c < n; c++) {
    const p = m[c * n + c];
    for (let j = 0; j < n; j++) { m[c * n + j] /= p; inv[c * n + j] /= p; }
    for (let i = 0; i < n; i++) {
      if (i === c) continue;
      const f = m[i * n + c];
      for (let j = 0; j < n; j++) { m[i * n + j] -= f * m[c * n + j]; inv[i * n + j] -= f * inv[c * n + j]; }
    }
  }
  return inv;
}

describe("math: selected inverse", () => {
  it("gives the inverse's entries on the factor's block pattern of a block-banded matrix", () => {
    const random = seeded(4);
    const blockSize = Int32Array.from([6, 6, 6, 6, 6, 6, 6, 6, 3]);
    const blockBase = new Int32Array(blockSize.length);
    for (let b = 1; b < blockSize.length; b++) blockBase[b] = blockBase[b - 1] + blockSize[b - 1];
    const n = blockBase[blockSize.length - 1] + blockSize[blockSize.length - 1];
    const blockOf = (i: number) => blockBase.findLastIndex((base) => base <= i);
    // J with rows touching a block and its next neighbour, and the last (intrinsics) block: S = JᵀJ.
    const rows = 4 * n;
    const J = new Float64Array(rows * n);
    for (let r = 0; r < rows; r++) {
      const b = r % (blockSize.length - 1);
      for (let j = 0; j < n; j++) {
        const bj = blockOf(j);
        if (bj === b || bj === b + 1 || bj === blockSize.length - 1) J[r * n + j] = random();
      }
    }
    const S = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) for (let r = 0; r < rows; r++) S[i * n + j] += J[r * n + i] * J[r * n + j];
    // An entry exactly zero inside a touched block.
    S[1] = S[n] = 0;
    const reference = inverse(S, n);
    const R = S.slice();
    expect(choleskyUpper(R, n, new Int32Array(n))).toBe(true);
    selectedInverseUpper(R, n, blockBase, blockSize);
    let checked = 0;
    for (let i = 0; i < n; i++) {
      for (let j = i; j < n; j++) {
        const bi = blockOf(i), bj = blockOf(j);
        // Neighbouring blocks, each with the intrinsics block, and the fill the banded elimination makes.
        if (!(bj - bi <= 1 || bj === blockSize.length - 1)) continue;
        expect(R[i * n + j], `(${i}, ${j})`).toBeCloseTo(reference[i * n + j], 10);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(n * 10);
  });
});
