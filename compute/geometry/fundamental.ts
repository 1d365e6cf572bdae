/**
 * @module The fundamental matrix from pixel correspondences (x2ᵀ·F·x1 = 0): the normalised
 * eight-point algorithm (Hartley 1997), the seven-point minimal solver (Hartley & Zisserman
 * §11.1.2), the Sampson error, and LO-RANSAC over 7-point samples with 8-point refits.
 */
import { mat3Det, mat3PencilDeterminant, svd, symmetricEigen } from "../math/linalg.js";
import { columnOf } from "../math/copy.js";
import { ransac } from "../math/ransac.js";
import type { Rng } from "../math/random.js";
import { nullSpaceOfWide } from "../math/nullspace.js";
import { cubicRealRoots } from "../math/polynomial.js";
import { hartleyNormalize } from "./normalization.js";

export interface RobustEpipolarOptions {
  /** Inlier threshold on the Sampson distance, pixels. */
  thresholdPx: number;
  confidence: number;
  maxIterations: number;
  rng: Rng;
}

export interface FundamentalEstimate {
  F: Float64Array;
  inliers: Uint8Array;
  inlierCount: number;
}

/** Squared Sampson distance of correspondence i under F (units of the coordinates, squared). */
export function sampsonError(F: ArrayLike<number>, x1: ArrayLike<number>, x2: ArrayLike<number>, i: number): number {
  const u1 = x1[2 * i], v1 = x1[2 * i + 1], u2 = x2[2 * i], v2 = x2[2 * i + 1];
  const fx0 = F[0] * u1 + F[1] * v1 + F[2]; // F·x1
  const fx1 = F[3] * u1 + F[4] * v1 + F[5];
  const fx2 = F[6] * u1 + F[7] * v1 + F[8];
  const ftx0 = F[0] * u2 + F[3] * v2 + F[6]; // Fᵀ·x2
  const ftx1 = F[1] * u2 + F[4] * v2 + F[7];
  const algebraic = u2 * fx0 + v2 * fx1 + fx2;
  const denominator = fx0 * fx0 + fx1 * fx1 + ftx0 * ftx0 + ftx1 * ftx1;
  return denominator > 0 ? (algebraic * algebraic) / denominator : Infinity;
}

/** The epipolar rows (coefficients of F_jk in x2ᵀ·F·x1) of n normalised correspondences. */
export function epipolarRows(p1: ArrayLike<number>, p2: ArrayLike<number>, n: number, weights?: ArrayLike<number>): Float64Array {
  const rows = new Float64Array(9 * n);
  for (let k = 0; k < n; k++) {
    const u1 = p1[2 * k], v1 = p1[2 * k + 1], u2 = p2[2 * k], v2 = p2[2 * k + 1];
    const w = weights ? weights[k] : 1;
    rows.set([u2 * u1 * w, u2 * v1 * w, u2 * w, v2 * u1 * w, v2 * v1 * w, v2 * w, u1 * w, v1 * w, w], 9 * k);
  }
  return rows;
}

/** F = T2ᵀ·F̂·T1, normalised to unit Frobenius norm. */
function denormalize(Fhat: ArrayLike<number>, T1: Float64Array, T2: Float64Array): Float64Array {
  const tmp = new Float64Array(9);
  const F = new Float64Array(9);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) tmp[i * 3 + j] += Fhat[i * 3 + k] * T1[k * 3 + j];
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) F[i * 3 + j] += T2[k * 3 + i] * tmp[k * 3 + j];
  const norm = Math.hypot(...F);
  for (let k = 0; k < 9; k++) F[k] /= norm;
  return F;
}

/** Sets the smallest singular value of a 3 × 3 matrix to zero. */
export function enforceRank2(M: ArrayLike<number>): Float64Array {
  const { U, S, V } = svd(M, 3, 3);
  const out = new Float64Array(9);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) out[i * 3 + j] = U[i * 3] * S[0] * V[j * 3] + U[i * 3 + 1] * S[1] * V[j * 3 + 1];
  }
  return out;
}

/** Normalised 8-point on the correspondences at `indices` (all `count` when null); null if fewer than 8. */
export function fundamentalFromSubset(x1: ArrayLike<number>, x2: ArrayLike<number>, indices: ArrayLike<number> | null, count: number): Float64Array | null {
  const n = indices ? indices.length : count;
  if (n < 8) return null;
  const a = hartleyNormalize(x1, indices, count);
  const b = hartleyNormalize(x2, indices, count);
  // Eight points: the SVD of the 8 × 9 rows. More: the eigenvector of the smallest eigenvalue
  // of the 9 × 9 Gram matrix AᵀA (as OpenCV's 8-point does), whose cost does not grow with the
  // inlier count: the LO refits of a pair with a thousand inliers spent milliseconds each in
  // a Jacobi SVD of the 1000 × 9 rows. Hartley normalisation keeps AᵀA well conditioned.
  const Fhat = n === 8 ? columnOf(svd(epipolarRows(a.points, b.points, n), n, 9).V, 9, 9, 8) : columnOf(symmetricEigen(epipolarGram(a.points, b.points, n), 9).vectors, 9, 9, 0);
  return denormalize(enforceRank2(Fhat), a.T, b.T);
}

/** AᵀA (9 × 9, row-major) of the epipolar rows of n normalised correspondences, without forming A. */
function epipolarGram(p1: Float64Array, p2: Float64Array, n: number): Float64Array {
  const gram = new Float64Array(81);
  const row = new Float64Array(9);
  for (let k = 0; k < n; k++) {
    const u1 = p1[2 * k], v1 = p1[2 * k + 1], u2 = p2[2 * k], v2 = p2[2 * k + 1];
    row[0] = u2 * u1; row[1] = u2 * v1; row[2] = u2;
    row[3] = v2 * u1; row[4] = v2 * v1; row[5] = v2;
    row[6] = u1; row[7] = v1; row[8] = 1;
    for (let i = 0; i < 9; i++) {
      const ri = row[i];
      for (let j = i; j < 9; j++) gram[i * 9 + j] += ri * row[j];
    }
  }
  for (let i = 0; i < 9; i++) for (let j = 0; j < i; j++) gram[i * 9 + j] = gram[j * 9 + i];
  return gram;
}

/** Normalised eight-point algorithm on `count` ≥ 8 pixel correspondences, rank 2 enforced. */
export function eightPoint(x1: ArrayLike<number>, x2: ArrayLike<number>, count: number): Float64Array | null {
  return fundamentalFromSubset(x1, x2, null, count);
}

/** Seven-point solver on pixel correspondences: 1 or 3 fundamental matrices through the 7 at `indices`. */
export function sevenPoint(x1: ArrayLike<number>, x2: ArrayLike<number>, indices: ArrayLike<number>): Float64Array[] {
  const a = hartleyNormalize(x1, indices, 7);
  const b = hartleyNormalize(x2, indices, 7);
  return sevenPointNormalized(a.points, b.points, [0, 1, 2, 3, 4, 5, 6], a.T, b.T);
}

/** Scratch of the 7-point solver: the epipolar rows, then the null-space basis. */
const sevenRows = new Float64Array(7 * 9);
const sevenBasis = new Float64Array(2 * 9);

/**
 * Seven-point solver (Hartley & Zisserman §11.1.2) on Hartley-normalised points `p1`, `p2`
 * (normalised once per image pair by `T1`, `T2`, not per sample): the 2-D null space {F₁, F₂}
 * of the epipolar rows by elimination (math/nullspace.ts), then the real roots γ of
 * det(F₂ + γ·(F₁ − F₂)) = 0 in closed form. Returns the pixel-space matrices T₂ᵀ·F̂·T₁.
 */
function sevenPointNormalized(p1: Float64Array, p2: Float64Array, sample: ArrayLike<number>, T1: Float64Array, T2: Float64Array): Float64Array[] {
  for (let k = 0; k < 7; k++) {
    const i = sample[k];
    const u1 = p1[2 * i], v1 = p1[2 * i + 1], u2 = p2[2 * i], v2 = p2[2 * i + 1];
    const o = 9 * k;
    sevenRows[o] = u2 * u1; sevenRows[o + 1] = u2 * v1; sevenRows[o + 2] = u2;
    sevenRows[o + 3] = v2 * u1; sevenRows[o + 4] = v2 * v1; sevenRows[o + 5] = v2;
    sevenRows[o + 6] = u1; sevenRows[o + 7] = v1; sevenRows[o + 8] = 1;
  }
  if (!nullSpaceOfWide(sevenRows, 7, 9, sevenBasis)) return [];
  const F2 = sevenBasis.subarray(9, 18);
  const diff = new Float64Array(9);
  for (let k = 0; k < 9; k++) diff[k] = sevenBasis[k] - F2[k];
  const [c3, c2, c1, c0] = mat3PencilDeterminant(F2, diff);
  const solutions: Float64Array[] = [];
  for (const gamma of cubicRealRoots(c3, c2, c1, c0)) {
    const Fhat = new Float64Array(9);
    for (let k = 0; k < 9; k++) Fhat[k] = F2[k] + gamma * diff[k];
    solutions.push(denormalizeSimilarity(Fhat, T1, T2));
  }
  return solutions;
}

/**
 * T₂ᵀ·F̂·T₁ for Hartley similarities T = [s 0 −s·mx; 0 s −s·my; 0 0 1], written out (the
 * general `denormalize` does two 3 × 3 products), normalised to unit Frobenius norm; in place.
 */
function denormalizeSimilarity(F: Float64Array, T1: Float64Array, T2: Float64Array): Float64Array {
  const s1 = T1[0], a1 = T1[2], b1 = T1[5];
  const s2 = T2[0], a2 = T2[2], b2 = T2[5];
  for (let r = 0; r < 3; r++) {
    // Row r of F̂·T₁: columns s1·f0, s1·f1, a1·f0 + b1·f1 + f2.
    const f0 = F[3 * r], f1 = F[3 * r + 1], f2 = F[3 * r + 2];
    F[3 * r] = s1 * f0;
    F[3 * r + 1] = s1 * f1;
    F[3 * r + 2] = a1 * f0 + b1 * f1 + f2;
  }
  for (let c = 0; c < 3; c++) {
    // Column c of T₂ᵀ·M: rows s2·m0, s2·m1, a2·m0 + b2·m1 + m2.
    const m0 = F[c], m1 = F[3 + c], m2 = F[6 + c];
    F[c] = s2 * m0;
    F[3 + c] = s2 * m1;
    F[6 + c] = a2 * m0 + b2 * m1 + m2;
  }
  let normSq = 0;
  for (let k = 0; k < 9; k++) normSq += F[k] * F[k];
  const inv = 1 / Math.sqrt(normSq);
  for (let k = 0; k < 9; k++) F[k] *= inv;
  return F;
}

/** Robust F from pixel correspondences: LO-RANSAC, 7-point samples, 8-point refits, Sampson threshold. */
export function estimateFundamental(x1: ArrayLike<number>, x2: ArrayLike<number>, count: number, options: RobustEpipolarOptions): FundamentalEstimate | null {
  if (count < 8) return null;
  const normalized1 = hartleyNormalize(x1, null, count);
  const normalized2 = hartleyNormalize(x2, null, count);
  const result = ransac<Float64Array>({
    sampleSize: 7,
    dataCount: count,
    fit: (sample) => sevenPointNormalized(normalized1.points, normalized2.points, sample, normalized1.T, normalized2.T),
    residuals: (F, out) => {
      for (let i = 0; i < count; i++) out[i] = Math.sqrt(sampsonError(F, x1, x2, i));
    },
    threshold: options.thresholdPx,
    confidence: options.confidence,
    maxIterations: options.maxIterations,
    rng: options.rng,
    refine: (indices) => fundamentalFromSubset(x1, x2, indices, count),
  });
  if (!result.model || result.inlierCount < 8) return null;
  return { F: result.model, inliers: result.inliers, inlierCount: result.inlierCount };
}

/** Whether F is (numerically) rank 2, for callers validating external input. */
export function isRank2(F: ArrayLike<number>, tolerance = 1e-9): boolean {
  return Math.abs(mat3Det(F)) <= tolerance * Math.pow(Math.hypot(...Array.from(F)), 3);
}
