import { describe, expect, it } from "vitest";
import { createRng, gaussian } from "../../../compute/math/random.js";
import {
  choleskySolve,
  eigenvectorOf,
  generalEigenvalues,
  mat3Det,
  mat3Inverse,
  mat3Mul,
  matMul,
  nullVector,
  solveLinear,
  svd,
  symmetricEigen,
  transpose,
} from "../../../compute/math/linalg.js";
import { realRoots } from "../../../compute/math/polynomial.js";

function randomMatrix(rng: () => number, rows: number, cols: number): Float64Array {
  return Float64Array.from({ length: rows * cols }, () => gaussian(rng));
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
}

function identity(n: number): Float64Array {
  const m = new Float64Array(n * n);
  for (let i = 0; i < n; i++) m[i * n + i] = 1;
  return m;
}

describe("math/random", () => {
  it("is deterministic per seed and roughly standard normal", () => {
    const a = createRng(7);
    const b = createRng(7);
    for (let i = 0; i < 10; i++) expect(a()).toBe(b());
    const rng = createRng(1);
    let sum = 0;
    let sumSq = 0;
    const n = 20000;
    for (let i = 0; i < n; i++) {
      const g = gaussian(rng);
      sum += g;
      sumSq += g * g;
    }
    expect(Math.abs(sum / n)).toBeLessThan(0.03);
    expect(Math.abs(sumSq / n - 1)).toBeLessThan(0.05);
  });
});

describe("math/linalg svd", () => {
  const shapes: Array<[number, number]> = [[3, 3], [9, 9], [40, 9], [5, 9], [8, 9], [2, 4]];
  for (const [rows, cols] of shapes) {
    it(`reconstructs a random ${rows}×${cols} matrix with orthonormal V`, () => {
      const rng = createRng(rows * 100 + cols);
      const a = randomMatrix(rng, rows, cols);
      const { U, S, V } = svd(a, rows, cols);
      const us = Float64Array.from(U, (u, i) => u * S[i % cols]);
      const rebuilt = matMul(us, transpose(V, cols, cols), rows, cols, cols);
      expect(maxAbsDiff(rebuilt, a)).toBeLessThan(1e-12);
      expect(maxAbsDiff(matMul(transpose(V, cols, cols), V, cols, cols, cols), identity(cols))).toBeLessThan(1e-12);
      for (let i = 1; i < cols; i++) expect(S[i]).toBeLessThanOrEqual(S[i - 1]);
    });
  }

  it("completes U to orthonormal columns for a rank-deficient matrix", () => {
    // Rank 2: an essential-like matrix; U's third column is then its left null vector.
    const a = new Float64Array([0, -3, 2, 3, 0, -1, -2, 1, 0]);
    const { U, S } = svd(a, 3, 3);
    expect(S[2]).toBeLessThan(1e-14);
    expect(maxAbsDiff(matMul(transpose(U, 3, 3), U, 3, 3, 3), identity(3))).toBeLessThan(1e-12);
    const n = Math.hypot(1, 2, 3);
    expect(Math.abs(U[2] * 1 + U[5] * 2 + U[8] * 3) / n).toBeCloseTo(1, 12);
  });

  it("finds the exact null vector of a rank-deficient matrix", () => {
    const rng = createRng(3);
    const x = randomMatrix(rng, 9, 1);
    const rows = randomMatrix(rng, 8, 9);
    // Project each row off x so that A·x = 0 exactly (up to rounding).
    const xx = x.reduce((s, v) => s + v * v, 0);
    for (let r = 0; r < 8; r++) {
      let d = 0;
      for (let j = 0; j < 9; j++) d += rows[r * 9 + j] * x[j];
      for (let j = 0; j < 9; j++) rows[r * 9 + j] -= (d / xx) * x[j];
    }
    const n = nullVector(rows, 8, 9);
    const scale = n[0] / x[0];
    expect(maxAbsDiff(Float64Array.from(x, (v) => v * scale), n)).toBeLessThan(1e-12);
  });
});

describe("math/linalg eigen and solvers", () => {
  it("symmetricEigen reconstructs its input with ascending values", () => {
    const rng = createRng(11);
    const b = randomMatrix(rng, 6, 6);
    const a = matMul(transpose(b, 6, 6), b, 6, 6, 6);
    const { values, vectors } = symmetricEigen(a, 6);
    const scaled = Float64Array.from(vectors, (v, i) => v * values[i % 6]);
    expect(maxAbsDiff(matMul(scaled, transpose(vectors, 6, 6), 6, 6, 6), a)).toBeLessThan(1e-11);
    for (let i = 1; i < 6; i++) expect(values[i]).toBeGreaterThanOrEqual(values[i - 1]);
  });

  it("generalEigenvalues matches the symmetric solver and finds complex pairs", () => {
    const rng = createRng(12);
    const b = randomMatrix(rng, 5, 5);
    const a = matMul(transpose(b, 5, 5), b, 5, 5, 5);
    const sym = symmetricEigen(a, 5).values;
    const gen = generalEigenvalues(a, 5)!;
    expect(maxAbsDiff(Float64Array.from(gen.real).sort(), sym)).toBeLessThan(1e-10);
    const v = eigenvectorOf(a, 5, sym[2])!;
    const av = matMul(a, v, 5, 5, 1);
    expect(maxAbsDiff(av, Float64Array.from(v, (x) => x * sym[2]))).toBeLessThan(1e-10);
    const rotation = generalEigenvalues([0, -2, 2, 0], 2)!;
    expect(Float64Array.from(rotation.imag).sort()).toEqual(new Float64Array([-2, 2]));
  });

  it("choleskySolve and solveLinear solve, and report failure", () => {
    const rng = createRng(13);
    const b = randomMatrix(rng, 4, 4);
    const spd = matMul(transpose(b, 4, 4), b, 4, 4, 4);
    const x = randomMatrix(rng, 4, 1);
    const rhs = matMul(spd, x, 4, 4, 1);
    const viaLu = solveLinear(spd, rhs, 4)!;
    expect(maxAbsDiff(viaLu, x)).toBeLessThan(1e-10);
    const chol = Float64Array.from(rhs);
    expect(choleskySolve(Float64Array.from(spd), chol, 4)).toBe(true);
    expect(maxAbsDiff(chol, x)).toBeLessThan(1e-10);
    expect(choleskySolve(new Float64Array([1, 2, 2, 1]), new Float64Array(2), 2)).toBe(false);
    expect(solveLinear([1, 2, 2, 4], [1, 1], 2)).toBeNull();
  });

  it("mat3Inverse inverts and detects singularity", () => {
    const m = new Float64Array([2, 1, 0, 0, 3, 1, 1, 0, 4]);
    const inv = mat3Inverse(m)!;
    expect(maxAbsDiff(mat3Mul(m, inv), identity(3))).toBeLessThan(1e-14);
    expect(mat3Det(m)).toBeCloseTo(25, 12);
    expect(mat3Inverse([1, 2, 3, 2, 4, 6, 0, 0, 1])).toBeNull();
  });
});

describe("math/polynomial", () => {
  it("finds all real roots of a degree-10 polynomial with known roots", () => {
    const roots = [-3.5, -1.2, -0.3, 0.05, 0.7, 2.2, 4.1];
    // (x - r1)…(x - r7)·(x² + 1)·(x + 10): two complex roots must be ignored.
    let coeffs = [1];
    const multiply = (factor: number[]): void => {
      const next = new Array(coeffs.length + factor.length - 1).fill(0);
      coeffs.forEach((c, i) => factor.forEach((f, j) => (next[i + j] += c * f)));
      coeffs = next;
    };
    for (const r of roots) multiply([1, -r]);
    multiply([1, 0, 1]);
    multiply([1, 10]);
    const found = realRoots(coeffs);
    expect(Array.from(found)).toHaveLength(8);
    const expected = [-10, ...roots].sort((a, b) => a - b);
    expect(maxAbsDiff(found, expected)).toBeLessThan(1e-9);
  });

  it("solves lower degrees after dropping zero leading terms", () => {
    expect(Array.from(realRoots([0, 1, -3, 2]))).toEqual([1, 2]);
    expect(Array.from(realRoots([2, -4]))).toEqual([2]);
    expect(realRoots([1, 0, 1]).length).toBe(0);
  });
});
