/**
 * @module Dense matrix decompositions on row-major Float64Array: SVD (one-sided Jacobi) and the
 * symmetric eigen-decomposition (cyclic Jacobi).
 *
 * CONTRIBUTOR NOTES: Jacobi methods were chosen over Golub–Kahan / QR because the matrices here
 * are tiny (≤ 12 columns: 9 for E/F/H, 4 for triangulation, 6 for PnP normal equations) and
 * Jacobi is short, branch-light and accurate to full relative precision in the small singular
 * values (Demmel & Veselić 1992), which is exactly what null-space solvers depend on.
 */
import { copyOf } from "./copy.js";

export interface Svd {
  /** rows × cols, row-major; column j is the left singular vector of S[j] (columns beyond `rows` are zero). */
  U: Float64Array;
  /** cols singular values, descending. */
  S: Float64Array;
  /** cols × cols, row-major; column j is the right singular vector of S[j]. */
  V: Float64Array;
}

const MAX_SWEEPS = 80;
const EPS = 2.220446049250313e-16;
/** Relative column norm treated as zero in the SVD. */
const NOISE_FLOOR = 1e-15;

/**
 * Singular value decomposition A = U·diag(S)·Vᵀ by one-sided Jacobi (Hestenes 1958): rotate
 * pairs of columns of a working copy until all are mutually orthogonal; V accumulates the
 * rotations. A wide matrix (rows < cols) is treated as padded with zero rows, so V is always
 * complete — its trailing columns then span the null space.
 */
export function svd(a: ArrayLike<number>, rows: number, cols: number): Svd {
  // Zero padding rows of a wide matrix never change under column rotations, so they are not stored.
  const m = rows;
  const n = cols;
  const work = new Float64Array(m * n); // the columns being orthogonalised, m × n
  for (let i = 0; i < rows * cols; i++) work[i] = a[i];
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  let normSq = 0;
  for (let i = 0; i < work.length; i++) normSq += work[i] * work[i];
  // Columns below this squared norm are rounding noise: rotating them against each other never
  // converges (each rotation against a large column re-randomises them) and changes nothing.
  const noiseFloorSq = NOISE_FLOOR * NOISE_FLOOR * normSq;
  for (let sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    if (!jacobiSweep(work, v, m, n, noiseFloorSq)) break;
  }
  return sortedSvd(work, v, rows, m, n);
}

/** One sweep over all column pairs; returns whether any rotation was applied. */
function jacobiSweep(work: Float64Array, v: Float64Array, m: number, n: number, noiseFloorSq: number): boolean {
  let rotated = false;
  for (let p = 0; p < n - 1; p++) {
    for (let q = p + 1; q < n; q++) {
      let alpha = 0;
      let beta = 0;
      let gamma = 0;
      for (let i = 0; i < m; i++) {
        const wp = work[i * n + p];
        const wq = work[i * n + q];
        alpha += wp * wp;
        beta += wq * wq;
        gamma += wp * wq;
      }
      if (Math.abs(gamma) <= EPS * Math.sqrt(alpha * beta) || Math.min(alpha, beta) <= noiseFloorSq) continue;
      rotated = true;
      const zeta = (beta - alpha) / (2 * gamma);
      const tan = (zeta >= 0 ? 1 : -1) / (Math.abs(zeta) + Math.sqrt(1 + zeta * zeta));
      const cos = 1 / Math.sqrt(1 + tan * tan);
      const sin = cos * tan;
      rotateColumns(work, m, n, p, q, cos, sin);
      rotateColumns(v, n, n, p, q, cos, sin);
    }
  }
  return rotated;
}

function rotateColumns(mat: Float64Array, rows: number, n: number, p: number, q: number, cos: number, sin: number): void {
  for (let i = 0; i < rows; i++) {
    const xp = mat[i * n + p];
    const xq = mat[i * n + q];
    mat[i * n + p] = cos * xp - sin * xq;
    mat[i * n + q] = sin * xp + cos * xq;
  }
}

function sortedSvd(work: Float64Array, v: Float64Array, rows: number, m: number, n: number): Svd {
  const norms = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    let sum = 0;
    for (let i = 0; i < m; i++) sum += work[i * n + j] * work[i * n + j];
    norms[j] = Math.sqrt(sum);
  }
  const order = Array.from({ length: n }, (_, j) => j).sort((x, y) => norms[y] - norms[x]);
  const U = new Float64Array(rows * n);
  const S = new Float64Array(n);
  const V = new Float64Array(n * n);
  const floor = NOISE_FLOOR * Math.sqrt(rows) * (norms[order[0]] || 0);
  for (let k = 0; k < n; k++) {
    const j = order[k];
    S[k] = norms[j];
    for (let i = 0; i < n; i++) V[i * n + k] = v[i * n + j];
    if (norms[j] <= floor || k >= rows) continue;
    for (let i = 0; i < rows; i++) U[i * n + k] = work[i * n + j] / norms[j];
  }
  completeOrthonormalColumns(U, rows, n, Math.min(rows, n), floor, S);
  return { U, S, V };
}

/**
 * Left singular vectors of (numerically) zero singular values carry no information in the
 * Jacobi iterate; replace them by an orthonormal completion of the others (Gram–Schmidt on the
 * coordinate axes), so U keeps orthonormal columns — e.g. the epipole of a rank-2 E or F.
 */
function completeOrthonormalColumns(U: Float64Array, rows: number, n: number, usable: number, floor: number, S: Float64Array): void {
  const candidate = new Float64Array(rows);
  for (let k = 0; k < usable; k++) {
    if (S[k] > floor) continue;
    let bestNorm = 0;
    const best = new Float64Array(rows);
    for (let axis = 0; axis < rows; axis++) {
      candidate.fill(0);
      candidate[axis] = 1;
      for (let c = 0; c < usable; c++) {
        if (c === k || (S[c] <= floor && c > k)) continue;
        let dot = 0;
        for (let i = 0; i < rows; i++) dot += U[i * n + c] * candidate[i];
        for (let i = 0; i < rows; i++) candidate[i] -= dot * U[i * n + c];
      }
      let norm = 0;
      for (let i = 0; i < rows; i++) norm += candidate[i] * candidate[i];
      if (norm > bestNorm) {
        bestNorm = norm;
        best.set(candidate);
      }
    }
    const inv = 1 / Math.sqrt(bestNorm);
    for (let i = 0; i < rows; i++) U[i * n + k] = best[i] * inv;
  }
}

export interface SymmetricEigen {
  /** n eigenvalues, ascending. */
  values: Float64Array;
  /** n × n row-major; column j is the unit eigenvector of values[j]. */
  vectors: Float64Array;
}

/** Eigen-decomposition of a symmetric n × n matrix by the cyclic Jacobi method (Golub & Van Loan §8.5). */
export function symmetricEigen(a: ArrayLike<number>, n: number): SymmetricEigen {
  const work = copyOf(a, n * n);
  const vec = new Float64Array(n * n);
  for (let i = 0; i < n; i++) vec[i * n + i] = 1;
  for (let sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    let off = 0;
    let diag = 0;
    for (let p = 0; p < n; p++) {
      diag += work[p * n + p] * work[p * n + p];
      for (let q = p + 1; q < n; q++) off += work[p * n + q] * work[p * n + q];
    }
    if (off <= EPS * EPS * diag || off === 0) break;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) jacobiRotateSymmetric(work, vec, n, p, q);
    }
  }
  const order = Array.from({ length: n }, (_, j) => j).sort((x, y) => work[x * n + x] - work[y * n + y]);
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  for (let k = 0; k < n; k++) {
    values[k] = work[order[k] * n + order[k]];
    for (let i = 0; i < n; i++) vectors[i * n + k] = vec[i * n + order[k]];
  }
  return { values, vectors };
}

/** A ← Pᵀ·A·P with the plane rotation P that zeroes A[p][q] (Numerical Recipes §11.1 convention). */
function jacobiRotateSymmetric(work: Float64Array, vec: Float64Array, n: number, p: number, q: number): void {
  const apq = work[p * n + q];
  if (apq === 0) return;
  const theta = (work[q * n + q] - work[p * n + p]) / (2 * apq);
  const tan = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
  const cos = 1 / Math.sqrt(tan * tan + 1);
  const sin = tan * cos;
  rotateColumns(work, n, n, p, q, cos, sin);
  for (let k = 0; k < n; k++) {
    const xp = work[p * n + k];
    const xq = work[q * n + k];
    work[p * n + k] = cos * xp - sin * xq;
    work[q * n + k] = sin * xp + cos * xq;
  }
  work[p * n + q] = 0;
  work[q * n + p] = 0;
  rotateColumns(vec, n, n, p, q, cos, sin);
}
