/**
 * @module The fundamental matrix from pixel correspondences (x2ᵀ·F·x1 = 0): the normalised
 * eight-point algorithm (Hartley 1997), the seven-point minimal solver (Hartley & Zisserman
 * §11.1.2), the Sampson error, and LO-RANSAC over 7-point samples with 8-point refits.
 */
import { mat3Det, mat3PencilDeterminant, svd } from "../math/linalg.js";
import { columnOf } from "../math/copy.js";
import { ransac } from "../math/ransac.js";
import type { Rng } from "../math/random.js";
import { realRoots } from "../math/polynomial.js";
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
  const { V } = svd(epipolarRows(a.points, b.points, n), n, 9);
  const Fhat = columnOf(V, 9, 9, 8);
  return denormalize(enforceRank2(Fhat), a.T, b.T);
}

/** Normalised eight-point algorithm on `count` ≥ 8 pixel correspondences, rank 2 enforced. */
export function eightPoint(x1: ArrayLike<number>, x2: ArrayLike<number>, count: number): Float64Array | null {
  return fundamentalFromSubset(x1, x2, null, count);
}

/** Seven-point solver: F = F₁ + γ·(F₂ − F₁) from the 2-D null space, with det F = 0 (1 or 3 real γ). */
export function sevenPoint(x1: ArrayLike<number>, x2: ArrayLike<number>, indices: ArrayLike<number>): Float64Array[] {
  const a = hartleyNormalize(x1, indices, 7);
  const b = hartleyNormalize(x2, indices, 7);
  const { V } = svd(epipolarRows(a.points, b.points, 7), 7, 9);
  const F1 = columnOf(V, 9, 9, 7);
  const F2 = columnOf(V, 9, 9, 8);
  const diff = Float64Array.from(F2, (v, k) => v - F1[k]);
  const solutions: Float64Array[] = [];
  for (const gamma of realRoots(mat3PencilDeterminant(F1, diff))) {
    const Fhat = Float64Array.from(F1, (v, k) => v + gamma * diff[k]);
    solutions.push(denormalize(Fhat, a.T, b.T));
  }
  return solutions;
}

/** Robust F from pixel correspondences: LO-RANSAC, 7-point samples, 8-point refits, Sampson threshold. */
export function estimateFundamental(x1: ArrayLike<number>, x2: ArrayLike<number>, count: number, options: RobustEpipolarOptions): FundamentalEstimate | null {
  if (count < 8) return null;
  const result = ransac<Float64Array>({
    sampleSize: 7,
    dataCount: count,
    fit: (sample) => sevenPoint(x1, x2, sample),
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
