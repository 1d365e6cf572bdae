/**
 * @module The minimal five-point relative pose solver, after Stewénius, Engels & Nistér 2006,
 * "Recent developments on direct relative orientation" (Gröbner basis / action matrix form of
 * Nistér 2004).
 *
 * E lies in the 4-D null space of the 5 epipolar constraints: E = x·X + y·Y + z·Z + W. The ten
 * cubic constraints det(E) = 0 and 2·E·Eᵀ·E − tr(E·Eᵀ)·E = 0 are written over the 20 monomials
 * of degree ≤ 3 in (x, y, z); Gauss–Jordan elimination of the ten cubic monomials expresses each
 * as a combination of the ten lower ones, which gives the 10 × 10 matrix of "multiply by x" on
 * the quotient ring. Its real eigenvalues are the x of the real solutions and its eigenvectors
 * the monomial vectors [x², xy, xz, y², yz, z², x, y, z, 1], from which y and z are read off.
 *
 * CONTRIBUTOR NOTES: Nistér's route through a 10th-degree polynomial needs a hand-derived
 * elimination order; the action-matrix route needs only a general eigensolver, which the math
 * layer has (Francis QR), so it was preferred.
 */
import { eigenvectorOf, generalEigenvalues, nullVector } from "../math/linalg.js";

/** Monomial exponents (x, y, z): ten cubic ones to eliminate, then the quotient-ring basis. */
const MONOMIALS: ReadonlyArray<readonly [number, number, number]> = [
  [3, 0, 0], [2, 1, 0], [2, 0, 1], [1, 2, 0], [1, 1, 1], [1, 0, 2], [0, 3, 0], [0, 2, 1], [0, 1, 2], [0, 0, 3],
  [2, 0, 0], [1, 1, 0], [1, 0, 1], [0, 2, 0], [0, 1, 1], [0, 0, 2], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0],
];
const MONOMIAL_COUNT = 20;
const X_INDEX = 16; // column of the monomial x
const ONE_INDEX = 19;

/** PRODUCT[i·20 + j] = index of monomial i × monomial j, or −1 when the degree exceeds 3. */
const PRODUCT = buildProductTable();

function buildProductTable(): Int8Array {
  const key = (e: readonly number[]): number => e[0] * 16 + e[1] * 4 + e[2];
  const indexOf = new Map<number, number>();
  MONOMIALS.forEach((e, i) => indexOf.set(key(e), i));
  const table = new Int8Array(MONOMIAL_COUNT * MONOMIAL_COUNT).fill(-1);
  for (let i = 0; i < MONOMIAL_COUNT; i++) {
    for (let j = 0; j < MONOMIAL_COUNT; j++) {
      const e = [MONOMIALS[i][0] + MONOMIALS[j][0], MONOMIALS[i][1] + MONOMIALS[j][1], MONOMIALS[i][2] + MONOMIALS[j][2]];
      if (e[0] + e[1] + e[2] <= 3) table[i * MONOMIAL_COUNT + j] = indexOf.get(key(e))!;
    }
  }
  return table;
}

type Poly = Float64Array; // 20 coefficients over MONOMIALS

/** out += scale·a·b (degrees must sum to at most 3). */
function polyMulAdd(a: Poly, b: Poly, scale: number, out: Poly): void {
  for (let i = 0; i < MONOMIAL_COUNT; i++) {
    const ai = a[i];
    if (ai === 0) continue;
    for (let j = 0; j < MONOMIAL_COUNT; j++) {
      const bj = b[j];
      if (bj === 0) continue;
      const k = PRODUCT[i * MONOMIAL_COUNT + j];
      if (k >= 0) out[k] += scale * ai * bj;
    }
  }
}

/**
 * The 4 null-space basis matrices X, Y, Z, W (each 9, row-major) of the 5 epipolar rows, by
 * Gauss–Jordan elimination with full pivoting (an SVD is 30× slower and no more accurate for an
 * exactly determined null space): each free column gives one basis vector.
 */
function nullSpaceBasis(x1: ArrayLike<number>, x2: ArrayLike<number>): Float64Array[] | null {
  const m = new Float64Array(5 * 9);
  for (let i = 0; i < 5; i++) {
    const u1 = x1[2 * i], v1 = x1[2 * i + 1], u2 = x2[2 * i], v2 = x2[2 * i + 1];
    // Coefficients of E_jk in x2ᵀ·E·x1 = Σ x2_j·E_jk·x1_k.
    m.set([u2 * u1, u2 * v1, u2, v2 * u1, v2 * v1, v2, u1, v1, 1], 9 * i);
  }
  const pivotCols = new Int32Array(5);
  const isPivot = new Uint8Array(9);
  let scale = 0;
  for (let k = 0; k < 45; k++) scale = Math.max(scale, Math.abs(m[k]));
  for (let r = 0; r < 5; r++) {
    let bestRow = r, bestCol = -1, best = 0;
    for (let i = r; i < 5; i++) {
      for (let j = 0; j < 9; j++) {
        if (!isPivot[j] && Math.abs(m[i * 9 + j]) > best) {
          best = Math.abs(m[i * 9 + j]);
          bestRow = i;
          bestCol = j;
        }
      }
    }
    if (bestCol < 0 || best <= 1e-12 * scale) return null; // fewer than 5 independent constraints
    for (let j = 0; j < 9; j++) {
      const tmp = m[r * 9 + j];
      m[r * 9 + j] = m[bestRow * 9 + j];
      m[bestRow * 9 + j] = tmp;
    }
    const inv = 1 / m[r * 9 + bestCol];
    for (let j = 0; j < 9; j++) m[r * 9 + j] *= inv;
    for (let i = 0; i < 5; i++) {
      const factor = m[i * 9 + bestCol];
      if (i === r || factor === 0) continue;
      for (let j = 0; j < 9; j++) m[i * 9 + j] -= factor * m[r * 9 + j];
    }
    pivotCols[r] = bestCol;
    isPivot[bestCol] = 1;
  }
  const basis: Float64Array[] = [];
  for (let free = 0; free < 9; free++) {
    if (isPivot[free]) continue;
    const v = new Float64Array(9);
    v[free] = 1;
    for (let r = 0; r < 5; r++) v[pivotCols[r]] = -m[r * 9 + free];
    basis.push(v);
  }
  return basis;
}

/** The ten cubic constraints as a 10 × 20 row-major coefficient matrix. */
function constraintMatrix(basis: Float64Array[]): Float64Array {
  const [X, Y, Z, W] = basis;
  const E: Poly[] = [];
  for (let k = 0; k < 9; k++) {
    const p = new Float64Array(MONOMIAL_COUNT);
    p[X_INDEX] = X[k];
    p[X_INDEX + 1] = Y[k];
    p[X_INDEX + 2] = Z[k];
    p[ONE_INDEX] = W[k];
    E.push(p);
  }
  const matrix = new Float64Array(10 * MONOMIAL_COUNT);
  // Row 0: det E by cofactor expansion along the first row.
  const det = matrix.subarray(0, MONOMIAL_COUNT);
  const cofactors: Array<[number, number, number, number, number, number]> = [
    [0, 4, 8, 5, 7, 1], [1, 3, 8, 5, 6, -1], [2, 3, 7, 4, 6, 1],
  ];
  for (const [lead, a, b, c, d, sign] of cofactors) {
    const minor = new Float64Array(MONOMIAL_COUNT);
    polyMulAdd(E[a], E[b], 1, minor);
    polyMulAdd(E[c], E[d], -1, minor);
    polyMulAdd(E[lead], minor, sign, det);
  }
  // Rows 1–9: 2·E·Eᵀ·E − tr(E·Eᵀ)·E = 0, entry (i, j).
  const EEt: Poly[] = [];
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const sum = new Float64Array(MONOMIAL_COUNT);
      for (let k = 0; k < 3; k++) polyMulAdd(E[i * 3 + k], E[j * 3 + k], 1, sum);
      EEt.push(sum);
    }
  }
  const trace = new Float64Array(MONOMIAL_COUNT);
  for (let k = 0; k < MONOMIAL_COUNT; k++) trace[k] = EEt[0][k] + EEt[4][k] + EEt[8][k];
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const row = matrix.subarray(MONOMIAL_COUNT * (1 + i * 3 + j), MONOMIAL_COUNT * (2 + i * 3 + j));
      polyMulAdd(trace, E[i * 3 + j], -1, row);
      for (let k = 0; k < 3; k++) polyMulAdd(EEt[i * 3 + k], E[k * 3 + j], 2, row);
    }
  }
  return matrix;
}

/** Gauss–Jordan on the first 10 columns with partial pivoting; false if they are singular. */
function eliminateCubics(m: Float64Array): boolean {
  const n = MONOMIAL_COUNT;
  for (let col = 0; col < 10; col++) {
    let pivotRow = col;
    for (let r = col + 1; r < 10; r++) if (Math.abs(m[r * n + col]) > Math.abs(m[pivotRow * n + col])) pivotRow = r;
    const pivot = m[pivotRow * n + col];
    if (Math.abs(pivot) < 1e-14) return false;
    if (pivotRow !== col) {
      for (let j = 0; j < n; j++) {
        const tmp = m[col * n + j];
        m[col * n + j] = m[pivotRow * n + j];
        m[pivotRow * n + j] = tmp;
      }
    }
    for (let j = 0; j < n; j++) m[col * n + j] /= pivot;
    for (let r = 0; r < 10; r++) {
      const factor = m[r * n + col];
      if (r === col || factor === 0) continue;
      for (let j = col; j < n; j++) m[r * n + j] -= factor * m[col * n + j];
    }
  }
  return true;
}

/**
 * Action matrix of "multiply by x" on the basis b = [x², xy, xz, y², yz, z², x, y, z, 1]:
 * x·b = A·b. x·(x², xy, xz, y², yz, z²) are the cubics x³, x²y, x²z, xy², xyz, xz² (rows 0–5 of
 * the reduced matrix, each equal to −B·b); x·(x, y, z, 1) = x², xy, xz, x are basis entries.
 */
function actionMatrix(reduced: Float64Array): Float64Array {
  const A = new Float64Array(100);
  for (let r = 0; r < 6; r++) for (let c = 0; c < 10; c++) A[r * 10 + c] = -reduced[r * MONOMIAL_COUNT + 10 + c];
  A[6 * 10 + 0] = 1;
  A[7 * 10 + 1] = 1;
  A[8 * 10 + 2] = 1;
  A[9 * 10 + 6] = 1;
  return A;
}

/**
 * Essential matrices (row-major, unit Frobenius norm) consistent with 5 correspondences in
 * normalised image coordinates: x2ᵀ·E·x1 = 0, E = [t]×·R for x2 ∝ R·x1 + t. Up to 10 solutions.
 */
export function fivePoint(x1: Float64Array, x2: Float64Array): Float64Array[] {
  const basis = nullSpaceBasis(x1, x2);
  if (!basis) return [];
  const constraints = constraintMatrix(basis);
  if (!eliminateCubics(constraints)) return [];
  const A = actionMatrix(constraints);
  const eig = generalEigenvalues(A, 10);
  if (!eig) return [];
  const solutions: Float64Array[] = [];
  const shifted = new Float64Array(100);
  for (let i = 0; i < 10; i++) {
    if (Math.abs(eig.imag[i]) > 1e-10 * (1 + Math.abs(eig.real[i]))) continue;
    let b = eigenvectorOf(A, 10, eig.real[i]);
    if (!b) {
      for (let k = 0; k < 100; k++) shifted[k] = A[k] - (k % 11 === 0 ? eig.real[i] : 0);
      b = nullVector(shifted, 10, 10);
    }
    if (Math.abs(b[9]) < 1e-12) continue;
    const x = b[6] / b[9], y = b[7] / b[9], z = b[8] / b[9];
    const E = new Float64Array(9);
    let norm = 0;
    for (let k = 0; k < 9; k++) {
      E[k] = x * basis[0][k] + y * basis[1][k] + z * basis[2][k] + basis[3][k];
      norm += E[k] * E[k];
    }
    norm = Math.sqrt(norm);
    for (let k = 0; k < 9; k++) E[k] /= norm;
    solutions.push(E);
  }
  return solutions;
}
