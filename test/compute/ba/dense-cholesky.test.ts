import { describe, expect, it } from "vitest";
import { choleskySolveUpper, choleskyUpper } from "../../../compute/stages/ba/dense-cholesky.js";
import { Rng } from "./synthetic-scene.js";

/** A random SPD matrix (full storage) that is banded plus an arrow of dense last rows/columns, or fully dense. */
function randomSpd(n: number, band: number, arrow: number, rng: Rng): Float64Array {
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = i; j < n; j++) {
      if (j - i > band && j < n - arrow) continue;
      const v = i === j ? n + 1 : rng.normal() * 0.5;
      a[i * n + j] = v;
      a[j * n + i] = v;
    }
  }
  return a;
}

describe("ba/dense-cholesky", () => {
  it("solves banded-with-arrow and fully dense SPD systems (both update paths)", () => {
    const rng = new Rng(17);
    for (const [n, band, arrow] of [[40, 3, 2], [60, 59, 0], [25, 0, 5]]) {
      const a = randomSpd(n, band, arrow, rng);
      const x = Float64Array.from({ length: n }, () => rng.normal());
      const b = new Float64Array(n);
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) b[i] += a[i * n + j] * x[j];
      const factor = a.slice();
      // Only the upper triangle is read: poison the lower one to prove it.
      for (let i = 1; i < n; i++) for (let j = 0; j < i; j++) factor[i * n + j] = NaN;
      expect(choleskyUpper(factor, n, new Int32Array(n))).toBe(true);
      choleskySolveUpper(factor, n, b);
      for (let i = 0; i < n; i++) expect(Math.abs(b[i] - x[i])).toBeLessThan(1e-10);
    }
  });

  it("reports a matrix that is not positive definite", () => {
    const a = new Float64Array([1, 2, 2, 1]);
    expect(choleskyUpper(a, 2, new Int32Array(2))).toBe(false);
  });
});
