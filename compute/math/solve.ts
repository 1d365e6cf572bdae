/** @module Dense linear systems by LU with partial pivoting. */
import { copyOf } from "./copy.js";

type Vec = ArrayLike<number>;

/** Solves A·x = b (n × n) by LU with partial pivoting; inputs untouched; null if A is singular. */
export function solveLinear(a: Vec, b: Vec, n: number): Float64Array | null {
  const lu = copyOf(a, n * n);
  const x = copyOf(b, n);
  for (let col = 0; col < n; col++) {
    let pivotRow = col;
    for (let i = col + 1; i < n; i++) if (Math.abs(lu[i * n + col]) > Math.abs(lu[pivotRow * n + col])) pivotRow = i;
    const pivot = lu[pivotRow * n + col];
    if (pivot === 0 || !Number.isFinite(pivot)) return null;
    if (pivotRow !== col) {
      for (let j = 0; j < n; j++) {
        const tmp = lu[col * n + j];
        lu[col * n + j] = lu[pivotRow * n + j];
        lu[pivotRow * n + j] = tmp;
      }
      const tmp = x[col];
      x[col] = x[pivotRow];
      x[pivotRow] = tmp;
    }
    for (let i = col + 1; i < n; i++) {
      const factor = lu[i * n + col] / pivot;
      if (factor === 0) continue;
      for (let j = col; j < n; j++) lu[i * n + j] -= factor * lu[col * n + j];
      x[i] -= factor * x[col];
    }
  }
  for (let i = n - 1; i >= 0; i--) {
    let sum = x[i];
    for (let j = i + 1; j < n; j++) sum -= lu[i * n + j] * x[j];
    x[i] = sum / lu[i * n + i];
  }
  return x;
}
