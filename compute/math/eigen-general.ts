/**
 * @module Eigenvalues of a general (non-symmetric) real matrix: balancing, reduction to upper
 * Hessenberg form by stabilised elimination, then the Francis double-shift QR iteration.
 * After Numerical Recipes in C, 2nd ed., §11.5–11.6 (balanc, elmhes, hqr), translated to
 * 0-based row-major typed arrays. Used for polynomial roots (companion matrices) and the
 * action matrix of the five-point solver.
 */
import { copyOf } from "./copy.js";
import { solveLinear } from "./solve.js";

export interface GeneralEigenvalues {
  real: Float64Array;
  imag: Float64Array;
}

const RADIX = 2;
const MAX_ITERATIONS_PER_ROOT = 60;

/** Eigenvalues of the n × n matrix `a` (not modified), or null if QR fails to converge. */
export function generalEigenvalues(a: ArrayLike<number>, n: number): GeneralEigenvalues | null {
  const h = copyOf(a, n * n);
  balance(h, n);
  toHessenberg(h, n);
  const real = new Float64Array(n);
  const imag = new Float64Array(n);
  return hessenbergQr(h, n, real, imag) ? { real, imag } : null;
}

/** Scales rows and columns by powers of the radix so their norms match, reducing rounding error (Parlett & Reinsch 1969). */
function balance(a: Float64Array, n: number): void {
  const radixSq = RADIX * RADIX;
  let done = false;
  while (!done) {
    done = true;
    for (let i = 0; i < n; i++) {
      let colNorm = 0;
      let rowNorm = 0;
      for (let j = 0; j < n; j++) {
        if (j === i) continue;
        colNorm += Math.abs(a[j * n + i]);
        rowNorm += Math.abs(a[i * n + j]);
      }
      if (colNorm === 0 || rowNorm === 0) continue;
      const total = colNorm + rowNorm;
      let f = 1;
      let g = rowNorm / RADIX;
      while (colNorm < g) {
        f *= RADIX;
        colNorm *= radixSq;
      }
      g = rowNorm * RADIX;
      while (colNorm > g) {
        f /= RADIX;
        colNorm /= radixSq;
      }
      if ((colNorm + rowNorm) / f < 0.95 * total) {
        done = false;
        for (let j = 0; j < n; j++) a[i * n + j] /= f;
        for (let j = 0; j < n; j++) a[j * n + i] *= f;
      }
    }
  }
}

/** Similarity reduction to upper Hessenberg form by Gaussian elimination with pivoting; zeroes below the subdiagonal. */
function toHessenberg(a: Float64Array, n: number): void {
  for (let m = 1; m < n - 1; m++) {
    let pivot = 0;
    let pivotRow = m;
    for (let j = m; j < n; j++) {
      if (Math.abs(a[j * n + m - 1]) > Math.abs(pivot)) {
        pivot = a[j * n + m - 1];
        pivotRow = j;
      }
    }
    if (pivotRow !== m) {
      for (let j = m - 1; j < n; j++) swap(a, pivotRow * n + j, m * n + j);
      for (let j = 0; j < n; j++) swap(a, j * n + pivotRow, j * n + m);
    }
    if (pivot === 0) continue;
    for (let i = m + 1; i < n; i++) {
      let y = a[i * n + m - 1];
      if (y === 0) continue;
      y /= pivot;
      a[i * n + m - 1] = 0;
      for (let j = m; j < n; j++) a[i * n + j] -= y * a[m * n + j];
      for (let j = 0; j < n; j++) a[j * n + m] += y * a[j * n + i];
    }
  }
}

function swap(a: Float64Array, i: number, j: number): void {
  const tmp = a[i];
  a[i] = a[j];
  a[j] = tmp;
}

function sign(magnitude: number, of: number): number {
  return of >= 0 ? Math.abs(magnitude) : -Math.abs(magnitude);
}

/** Francis double-shift QR on an upper Hessenberg matrix (destroyed); eigenvalues into real/imag. */
function hessenbergQr(a: Float64Array, n: number, wr: Float64Array, wi: Float64Array): boolean {
  const at = (i: number, j: number): number => a[i * n + j];
  let anorm = 0;
  for (let i = 0; i < n; i++) for (let j = Math.max(i - 1, 0); j < n; j++) anorm += Math.abs(at(i, j));
  let nn = n - 1;
  let shiftTotal = 0; // exceptional shifts accumulated, added back to each root
  let p = 0, q = 0, r = 0, s = 0, w = 0, x = 0, y = 0, z = 0;
  while (nn >= 0) {
    let its = 0;
    let l: number;
    do {
      for (l = nn; l >= 1; l--) {
        s = Math.abs(at(l - 1, l - 1)) + Math.abs(at(l, l));
        if (s === 0) s = anorm;
        if (Math.abs(at(l, l - 1)) + s === s) {
          a[l * n + l - 1] = 0;
          break;
        }
      }
      x = at(nn, nn);
      if (l === nn) {
        wr[nn] = x + shiftTotal;
        wi[nn--] = 0;
      } else {
        y = at(nn - 1, nn - 1);
        w = at(nn, nn - 1) * at(nn - 1, nn);
        if (l === nn - 1) {
          p = 0.5 * (y - x);
          q = p * p + w;
          z = Math.sqrt(Math.abs(q));
          x += shiftTotal;
          if (q >= 0) {
            z = p + sign(z, p);
            wr[nn - 1] = wr[nn] = x + z;
            if (z !== 0) wr[nn] = x - w / z;
            wi[nn - 1] = wi[nn] = 0;
          } else {
            wr[nn - 1] = wr[nn] = x + p;
            wi[nn - 1] = -z;
            wi[nn] = z;
          }
          nn -= 2;
        } else {
          if (its === MAX_ITERATIONS_PER_ROOT) return false;
          if (its === 10 || its === 20 || its === 40) {
            // Exceptional shift to break a cycle (Wilkinson's ad hoc shift).
            shiftTotal += x;
            for (let i = 0; i <= nn; i++) a[i * n + i] -= x;
            s = Math.abs(at(nn, nn - 1)) + Math.abs(at(nn - 1, nn - 2));
            y = x = 0.75 * s;
            w = -0.4375 * s * s;
          }
          ++its;
          let m: number;
          for (m = nn - 2; m >= l; m--) {
            z = at(m, m);
            r = x - z;
            s = y - z;
            p = (r * s - w) / at(m + 1, m) + at(m, m + 1);
            q = at(m + 1, m + 1) - z - r - s;
            r = at(m + 2, m + 1);
            s = Math.abs(p) + Math.abs(q) + Math.abs(r);
            p /= s;
            q /= s;
            r /= s;
            if (m === l) break;
            const u = Math.abs(at(m, m - 1)) * (Math.abs(q) + Math.abs(r));
            const v = Math.abs(p) * (Math.abs(at(m - 1, m - 1)) + Math.abs(z) + Math.abs(at(m + 1, m + 1)));
            if (u + v === v) break;
          }
          for (let i = m + 2; i <= nn; i++) {
            a[i * n + i - 2] = 0;
            if (i !== m + 2) a[i * n + i - 3] = 0;
          }
          for (let k = m; k <= nn - 1; k++) {
            if (k !== m) {
              p = at(k, k - 1);
              q = at(k + 1, k - 1);
              r = 0;
              if (k !== nn - 1) r = at(k + 2, k - 1);
              x = Math.abs(p) + Math.abs(q) + Math.abs(r);
              if (x !== 0) {
                p /= x;
                q /= x;
                r /= x;
              }
            }
            s = sign(Math.sqrt(p * p + q * q + r * r), p);
            if (s === 0) continue;
            if (k === m) {
              if (l !== m) a[k * n + k - 1] = -at(k, k - 1);
            } else {
              a[k * n + k - 1] = -s * x;
            }
            p += s;
            x = p / s;
            y = q / s;
            z = r / s;
            q /= p;
            r /= p;
            for (let j = k; j <= nn; j++) {
              p = at(k, j) + q * at(k + 1, j);
              if (k !== nn - 1) {
                p += r * at(k + 2, j);
                a[(k + 2) * n + j] -= p * z;
              }
              a[(k + 1) * n + j] -= p * y;
              a[k * n + j] -= p * x;
            }
            const mmin = nn < k + 3 ? nn : k + 3;
            for (let i = l; i <= mmin; i++) {
              p = x * at(i, k) + y * at(i, k + 1);
              if (k !== nn - 1) {
                p += z * at(i, k + 2);
                a[i * n + k + 2] -= p * r;
              }
              a[i * n + k + 1] -= p * q;
              a[i * n + k] -= p;
            }
          }
        }
      }
    } while (l < nn - 1);
  }
  return true;
}

/**
 * Unit eigenvector of the n × n matrix `a` for its (real, simple) eigenvalue `lambda`, by two
 * steps of inverse iteration with a shift just off λ (Golub & Van Loan §7.6.1): far cheaper than
 * a null-space SVD, and one step already converges when λ is accurate. Null if the solve fails.
 */
export function eigenvectorOf(a: ArrayLike<number>, n: number, lambda: number): Float64Array | null {
  const shifted = copyOf(a, n * n);
  const shift = lambda + 1e-10 * (1 + Math.abs(lambda));
  for (let i = 0; i < n; i++) shifted[i * n + i] -= shift;
  let v: Float64Array | null = new Float64Array(n).fill(1 / Math.sqrt(n));
  for (let step = 0; step < 2 && v; step++) {
    v = solveLinear(shifted, v, n);
    if (!v) return null;
    let norm = 0;
    for (let i = 0; i < n; i++) norm += v[i] * v[i];
    norm = Math.sqrt(norm);
    if (!(norm > 0) || !Number.isFinite(norm)) return null;
    for (let i = 0; i < n; i++) v[i] /= norm;
  }
  return v;
}
