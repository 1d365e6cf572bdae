import { describe, expect, it } from "vitest";
import { nullSpaceOfWide } from "../../../compute/math/nullspace.js";
import { cubicRealRoots, realRoots } from "../../../compute/math/polynomial.js";
import { createRng, gaussian } from "../../../compute/math/random.js";

function product(a: Float64Array, rows: number, cols: number, v: Float64Array, offset: number): number {
  let max = 0;
  for (let r = 0; r < rows; r++) {
    let sum = 0;
    for (let c = 0; c < cols; c++) sum += a[r * cols + c] * v[offset + c];
    max = Math.max(max, Math.abs(sum));
  }
  return max;
}

describe("math/nullspace", () => {
  it("returns an independent unit basis with A·v = 0 for random 7 × 9 and 8 × 9 matrices", () => {
    const rng = createRng(3);
    for (const rows of [7, 8]) {
      for (let trial = 0; trial < 50; trial++) {
        const a = Float64Array.from({ length: rows * 9 }, () => gaussian(rng));
        const original = a.slice();
        const basis = new Float64Array((9 - rows) * 9);
        expect(nullSpaceOfWide(a, rows, 9, basis)).toBe(true);
        for (let k = 0; k < 9 - rows; k++) {
          expect(product(original, rows, 9, basis, 9 * k)).toBeLessThan(1e-12);
          expect(Math.hypot(...basis.subarray(9 * k, 9 * k + 9))).toBeCloseTo(1, 12);
        }
        if (rows === 7) {
          // Independent: |cos| between the two vectors clearly below 1.
          let dot = 0;
          for (let c = 0; c < 9; c++) dot += basis[c] * basis[9 + c];
          expect(Math.abs(dot)).toBeLessThan(1 - 1e-6);
        }
      }
    }
  });

  it("refuses a rank-deficient matrix (a degenerate minimal sample)", () => {
    const rng = createRng(4);
    const a = Float64Array.from({ length: 7 * 9 }, () => gaussian(rng));
    for (let c = 0; c < 9; c++) a[6 * 9 + c] = 2 * a[c] - a[9 + c]; // row 6 = 2·row 0 − row 1
    expect(nullSpaceOfWide(a, 7, 9, new Float64Array(18))).toBe(false);
    expect(nullSpaceOfWide(new Float64Array(63), 7, 9, new Float64Array(18))).toBe(false);
  });
});

describe("math/polynomial cubicRealRoots", () => {
  it("agrees with the companion-matrix roots on random cubics", () => {
    const rng = createRng(5);
    for (let trial = 0; trial < 500; trial++) {
      const c = [gaussian(rng), gaussian(rng), gaussian(rng), gaussian(rng)];
      const closed = cubicRealRoots(c[0], c[1], c[2], c[3]);
      const reference = Array.from(realRoots(c));
      expect(closed.length).toBe(reference.length);
      closed.forEach((x, i) => expect(Math.abs(x - reference[i])).toBeLessThan(1e-9 * (1 + Math.abs(x))));
    }
  });

  it("finds three, one and repeated real roots, and falls back below degree 3", () => {
    // (x − 1)(x − 2)(x + 3) = x³ − 7x + 6
    expect(cubicRealRoots(1, 0, -7, 6).map((x) => +x.toFixed(12))).toEqual([-3, 1, 2]);
    // (x − 2)(x² + 1) = x³ − 2x² + x − 2: one real root.
    expect(cubicRealRoots(1, -2, 1, -2).map((x) => +x.toFixed(12))).toEqual([2]);
    // (x − 1)²(x + 2) = x³ − 3x + 2: the double root is kept.
    const repeated = cubicRealRoots(1, 0, -3, 2);
    expect(repeated[0]).toBeCloseTo(-2, 9);
    expect(repeated.slice(1).every((x) => Math.abs(x - 1) < 1e-6)).toBe(true);
    expect(cubicRealRoots(0, 1, -3, 2).map((x) => +x.toFixed(12))).toEqual([1, 2]);
  });
});
