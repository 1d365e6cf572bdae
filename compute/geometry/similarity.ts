/**
 * @module Similarity transforms between point sets, dst ≈ s·R·src + t: the closed form of
 * Umeyama 1991 ("Least-squares estimation of transformation parameters between two point
 * patterns") and a robust variant (least median of squares over 3-point samples, Rousseeuw
 * 1984, then a refit on the inliers), used to align reconstructions to ground truth.
 */
import { mat3Det, svd } from "../math/linalg.js";
import { createRng, type Rng, sampleDistinct } from "../math/random.js";

export interface Similarity {
  R: Float64Array;
  t: Float64Array;
  s: number;
  /** The same value as `s`, under the name some callers read. */
  scale: number;
}

export interface RobustSimilarity extends Similarity {
  inliers: Uint8Array;
  inlierCount: number;
  /** The inlier threshold used (given, or derived from the median residual). */
  threshold: number;
}

export interface RobustSimilarityOptions {
  /** Inlier distance in dst units; by default 3 robust standard deviations of the best median residual. */
  threshold?: number;
  withScale?: boolean;
  iterations?: number;
  rng?: Rng;
}

/** Least-squares similarity (or rigid transform when withScale is false) mapping src onto dst (3·count each). */
export function umeyama(src: ArrayLike<number>, dst: ArrayLike<number>, count: number, withScale = true, indices?: ArrayLike<number>): Similarity {
  const n = indices ? indices.length : count;
  const at = (k: number): number => (indices ? indices[k] : k);
  const muS = new Float64Array(3);
  const muD = new Float64Array(3);
  for (let k = 0; k < n; k++) for (let a = 0; a < 3; a++) {
    muS[a] += src[3 * at(k) + a] / n;
    muD[a] += dst[3 * at(k) + a] / n;
  }
  const cov = new Float64Array(9); // (1/n)·Σ (d − μd)(s − μs)ᵀ
  let varS = 0;
  for (let k = 0; k < n; k++) {
    const i = at(k);
    for (let a = 0; a < 3; a++) {
      const ds = src[3 * i + a] - muS[a];
      varS += (ds * ds) / n;
      for (let b = 0; b < 3; b++) cov[a * 3 + b] += ((dst[3 * i + a] - muD[a]) * (src[3 * i + b] - muS[b])) / n;
    }
  }
  const { U, S, V } = svd(cov, 3, 3);
  // Reflection guard (Umeyama eq. 39): flip the last axis when det(U)·det(V) < 0.
  const d = mat3Det(U) * mat3Det(V) < 0 ? -1 : 1;
  const R = new Float64Array(9);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) R[i * 3 + j] = U[i * 3] * V[j * 3] + U[i * 3 + 1] * V[j * 3 + 1] + d * U[i * 3 + 2] * V[j * 3 + 2];
  const s = withScale && varS > 0 ? (S[0] + S[1] + d * S[2]) / varS : 1;
  const t = new Float64Array(3);
  for (let a = 0; a < 3; a++) t[a] = muD[a] - s * (R[a * 3] * muS[0] + R[a * 3 + 1] * muS[1] + R[a * 3 + 2] * muS[2]);
  return { R, t, s, scale: s };
}

/** |dst_i − (s·R·src_i + t)| for every point. */
export function similarityResiduals(sim: Similarity, src: ArrayLike<number>, dst: ArrayLike<number>, count: number, out = new Float64Array(count)): Float64Array {
  const { R, t, s } = sim;
  for (let i = 0; i < count; i++) {
    const x = src[3 * i], y = src[3 * i + 1], z = src[3 * i + 2];
    out[i] = Math.hypot(
      s * (R[0] * x + R[1] * y + R[2] * z) + t[0] - dst[3 * i],
      s * (R[3] * x + R[4] * y + R[5] * z) + t[1] - dst[3 * i + 1],
      s * (R[6] * x + R[7] * y + R[8] * z) + t[2] - dst[3 * i + 2],
    );
  }
  return out;
}

function median(values: Float64Array): number {
  const sorted = Float64Array.from(values).sort();
  return sorted[sorted.length >> 1];
}

/**
 * Similarity robust to up to ~50% outliers: the 3-point sample with the least median residual
 * (LMedS), then Umeyama on the points within the threshold, twice. Null if count < 3.
 */
export function robustSimilarity(src: ArrayLike<number>, dst: ArrayLike<number>, count: number, options: RobustSimilarityOptions = {}): RobustSimilarity | null {
  if (count < 3) return null;
  const withScale = options.withScale ?? true;
  const rng = options.rng ?? createRng(1);
  const iterations = options.iterations ?? 200;
  const sample = new Uint32Array(3);
  const residuals = new Float64Array(count);
  let best = umeyama(src, dst, count, withScale);
  let bestMedian = median(similarityResiduals(best, src, dst, count, residuals));
  for (let it = 0; it < iterations && count > 3; it++) {
    const candidate = umeyama(src, dst, count, withScale, sampleDistinct(rng, count, sample));
    if (!Number.isFinite(candidate.s) || candidate.s <= 0) continue;
    const m = median(similarityResiduals(candidate, src, dst, count, residuals));
    if (m < bestMedian) {
      best = candidate;
      bestMedian = m;
    }
  }
  // Rousseeuw & Leroy's robust σ from the median, with the finite-sample correction.
  const sigma = 1.4826 * (1 + 5 / Math.max(count - 3, 1)) * bestMedian;
  const threshold = options.threshold ?? Math.max(3 * sigma, 1e-12);
  for (let round = 0; round < 2; round++) {
    similarityResiduals(best, src, dst, count, residuals);
    const indices: number[] = [];
    for (let i = 0; i < count; i++) if (residuals[i] <= threshold) indices.push(i);
    if (indices.length < 3) break;
    best = umeyama(src, dst, count, withScale, indices);
  }
  similarityResiduals(best, src, dst, count, residuals);
  const inliers = new Uint8Array(count);
  let inlierCount = 0;
  for (let i = 0; i < count; i++) if (residuals[i] <= threshold) {
    inliers[i] = 1;
    inlierCount++;
  }
  return { ...best, inliers, inlierCount, threshold };
}
