/**
 * @module Small dense linear algebra on row-major Float64Array: products, 3×3 helpers,
 * decompositions (re-exported from ./decompositions) and linear solvers.
 */
import { svd } from "./decompositions.js";

export { svd, symmetricEigen } from "./decompositions.js";
export type { Svd, SymmetricEigen } from "./decompositions.js";
export { eigenvectorOf, generalEigenvalues } from "./eigen-general.js";
export { solveLinear } from "./solve.js";
export type { GeneralEigenvalues } from "./eigen-general.js";

type Vec = ArrayLike<number>;

/** out (m × n) = a (m × k) · b (k × n). `out` must not alias a or b. */
export function matMul(a: Vec, b: Vec, m: number, k: number, n: number, out = new Float64Array(m * n)): Float64Array {
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let l = 0; l < k; l++) sum += a[i * k + l] * b[l * n + j];
      out[i * n + j] = sum;
    }
  }
  return out;
}

/** The cols × rows transpose of a rows × cols matrix. */
export function transpose(a: Vec, rows: number, cols: number, out = new Float64Array(rows * cols)): Float64Array {
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[j * rows + i] = a[i * cols + j];
  return out;
}

export function mat3Mul(a: Vec, b: Vec, out = new Float64Array(9)): Float64Array {
  return matMul(a, b, 3, 3, 3, out);
}

export function mat3Vec(m: Vec, v: Vec, out = new Float64Array(3)): Float64Array {
  const x = v[0], y = v[1], z = v[2];
  out[0] = m[0] * x + m[1] * y + m[2] * z;
  out[1] = m[3] * x + m[4] * y + m[5] * z;
  out[2] = m[6] * x + m[7] * y + m[8] * z;
  return out;
}

/** mᵀ·v without forming the transpose. */
export function mat3TransposeVec(m: Vec, v: Vec, out = new Float64Array(3)): Float64Array {
  const x = v[0], y = v[1], z = v[2];
  out[0] = m[0] * x + m[3] * y + m[6] * z;
  out[1] = m[1] * x + m[4] * y + m[7] * z;
  out[2] = m[2] * x + m[5] * y + m[8] * z;
  return out;
}

export function mat3Det(m: Vec): number {
  return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
}

export function mat3Transpose(m: Vec, out = new Float64Array(9)): Float64Array {
  return transpose(m, 3, 3, out);
}

/** Inverse by the adjugate; null when the determinant is zero or not finite. */
export function mat3Inverse(m: Vec, out = new Float64Array(9)): Float64Array | null {
  const det = mat3Det(m);
  if (det === 0 || !Number.isFinite(det)) return null;
  const inv = 1 / det;
  const c00 = m[4] * m[8] - m[5] * m[7], c01 = m[2] * m[7] - m[1] * m[8], c02 = m[1] * m[5] - m[2] * m[4];
  const c10 = m[5] * m[6] - m[3] * m[8], c11 = m[0] * m[8] - m[2] * m[6], c12 = m[2] * m[3] - m[0] * m[5];
  const c20 = m[3] * m[7] - m[4] * m[6], c21 = m[1] * m[6] - m[0] * m[7], c22 = m[0] * m[4] - m[1] * m[3];
  out[0] = c00 * inv; out[1] = c01 * inv; out[2] = c02 * inv;
  out[3] = c10 * inv; out[4] = c11 * inv; out[5] = c12 * inv;
  out[6] = c20 * inv; out[7] = c21 * inv; out[8] = c22 * inv;
  return out;
}

export function cross3(a: Vec, b: Vec, out = new Float64Array(3)): Float64Array {
  const x = a[1] * b[2] - a[2] * b[1];
  const y = a[2] * b[0] - a[0] * b[2];
  const z = a[0] * b[1] - a[1] * b[0];
  out[0] = x;
  out[1] = y;
  out[2] = z;
  return out;
}

export function dot3(a: Vec, b: Vec): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

export function norm3(a: Vec): number {
  return Math.hypot(a[0], a[1], a[2]);
}

/** The skew-symmetric matrix [v]× with [v]×·w = v × w. */
export function skew3(v: Vec, out = new Float64Array(9)): Float64Array {
  out[0] = 0; out[1] = -v[2]; out[2] = v[1];
  out[3] = v[2]; out[4] = 0; out[5] = -v[0];
  out[6] = -v[1]; out[7] = v[0]; out[8] = 0;
  return out;
}

/** Right singular vector of the smallest singular value: the least-squares solution of A·x = 0, |x| = 1. */
export function nullVector(a: Vec, rows: number, cols: number): Float64Array {
  const { V } = svd(a, rows, cols);
  const x = new Float64Array(cols);
  for (let i = 0; i < cols; i++) x[i] = V[i * cols + cols - 1];
  return x;
}

/**
 * Solves A·x = b for symmetric positive definite A (n × n) by Cholesky, in place: `a` is
 * overwritten by its factor L, `b` by x. Returns false (and leaves garbage) if A is not
 * positive definite, so a damped solver can raise its damping and retry.
 */
export function choleskySolve(a: Float64Array, b: Float64Array, n: number): boolean {
  for (let j = 0; j < n; j++) {
    let diag = a[j * n + j];
    for (let k = 0; k < j; k++) diag -= a[j * n + k] * a[j * n + k];
    if (!(diag > 0)) return false;
    const ljj = Math.sqrt(diag);
    a[j * n + j] = ljj;
    for (let i = j + 1; i < n; i++) {
      let sum = a[i * n + j];
      for (let k = 0; k < j; k++) sum -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = sum / ljj;
    }
  }
  for (let i = 0; i < n; i++) {
    let sum = b[i];
    for (let k = 0; k < i; k++) sum -= a[i * n + k] * b[k];
    b[i] = sum / a[i * n + i];
  }
  for (let i = n - 1; i >= 0; i--) {
    let sum = b[i];
    for (let k = i + 1; k < n; k++) sum -= a[k * n + i] * b[k];
    b[i] = sum / a[i * n + i];
  }
  return true;
}

/**
 * Coefficients [c3, c2, c1, c0] of the cubic det(A + γ·B) for 3 × 3 A and B, by exact
 * interpolation through γ = 0, ±1, 2 (the determinant is a cubic in γ). Used by the 7-point
 * and P3P solvers, which look for the degenerate members of a matrix pencil.
 */
export function mat3PencilDeterminant(A: ArrayLike<number>, B: ArrayLike<number>): [number, number, number, number] {
  const m = new Float64Array(9);
  const detAt = (gamma: number): number => {
    for (let i = 0; i < 9; i++) m[i] = A[i] + gamma * B[i];
    return mat3Det(m);
  };
  const p0 = detAt(0), p1 = detAt(1), pm1 = detAt(-1), p2 = detAt(2);
  const c0 = p0;
  const c2 = (p1 + pm1) / 2 - c0;
  const odd = (p1 - pm1) / 2; // c3 + c1
  const c3 = (p2 - 4 * c2 - c0 - 2 * odd) / 6;
  return [c3, c2, odd - c3, c0];
}
