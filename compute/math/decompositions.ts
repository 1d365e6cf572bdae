/**
 * @module Dense matrix decompositions on row-major Float64Array: SVD (one-sided Jacobi) and the
 * symmetric eigen-decomposition (cyclic Jacobi).
 *
 * CONTRIBUTOR NOTES: Jacobi methods were chosen over Golub–Kahan / QR because the matrices here
 * are tiny (≤ 12 columns: 9 for E/F/H, 4 for triangulation, 6 for PnP normal equations) and
 * Jacobi is short, branch-light and accurate to full relative precision in the small singular
 * values (Demmel & Veselić 1992), which is exactly what null-space solvers depend on.
 */

export interface Svd {
  /** rows × cols, row-major; column j is the left singular vector of S[j] (zero when S[j] = 0). */
  U: Float64Array;
  /** cols singular values, descending. */
  S: Float64Array;
  /** cols × cols, row-major; column j is the right singular vector of S[j]. */
  V: Float64Array;
}

const MAX_SWEEPS = 80;
const EPS = 2.220446049250313e-16;

/**
 * Singular value decomposition A = U·diag(S)·Vᵀ by one-sided Jacobi (Hestenes 1958): rotate
 * pairs of columns of a working copy until all are mutually orthogonal; V accumulates the
 * rotations. A wide matrix (rows < cols) is padded with zero rows, so V is always complete —
 * its trailing columns then span the null space.
 */
export function svd(a: ArrayLike<number>, rows: number, cols: number): Svd {
  const m = Math.max(rows, cols);
  const n = cols;
  const work = new Float64Array(m * n); // the columns being orthogonalised, m × n
  for (let i = 0; i < rows * cols; i++) work[i] = a[i];
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    if (!jacobiSweep(work, v, m, n)) break;
  }
  return sortedSvd(work, v, rows, m, n);
}

/** One sweep over all column pairs; returns whether any rotation was applied. */
function jacobiSweep(work: Float64Array, v: Float64Array, m: number, n: number): boolean {
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
      if (Math.abs(gamma) <= EPS * Math.sqrt(alpha * beta) || alpha === 0 || beta === 0) continue;
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
  for (let k = 0; k < n; k++) {
    const j = order[k];
    S[k] = norms[j];
    const inv = norms[j] > 0 ? 1 / norms[j] : 0;
    for (let i = 0; i < rows; i++) U[i * n + k] = work[i * n + j] * inv;
    for (let i = 0; i < n; i++) V[i * n + k] = v[i * n + j];
  }
  return { U, S, V };
}

export interface SymmetricEigen {
  /** n eigenvalues, ascending. */
  values: Float64Array;
  /** n × n row-major; column j is the unit eigenvector of values[j]. */
  vectors: Float64Array;
}

/** Eigen-decomposition of a symmetric n × n matrix by the cyclic Jacobi method (Golub & Van Loan §8.5). */
export function symmetricEigen(a: ArrayLike<number>, n: number): SymmetricEigen {
  const work = Float64Array.from({ length: n * n }, (_, i) => a[i]);
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
