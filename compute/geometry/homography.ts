/**
 * @module Plane-induced homography x2 ∝ H·x1: the normalised DLT (Hartley & Zisserman §4.4,
 * Algorithm 4.2), LO-RANSAC over 4-point samples with the one-way transfer error, and a final
 * Levenberg–Marquardt polish of the symmetric transfer error (H&Z §4.2.2) under a Cauchy loss.
 */
import { mat3Inverse, svd, symmetricEigen } from "../math/linalg.js";
import { columnOf } from "../math/copy.js";
import { levenbergMarquardt } from "../math/least-squares.js";
import { ransac } from "../math/ransac.js";
import type { Rng } from "../math/random.js";
import { nullSpaceOfWide } from "../math/nullspace.js";
import { hartleyNormalize } from "./normalization.js";

export interface HomographyOptions {
  /** Inlier threshold on the transfer error |x2 − H·x1|, in the coordinates' unit (pixels). */
  thresholdPx: number;
  confidence: number;
  maxIterations: number;
  rng: Rng;
}

export interface HomographyEstimate {
  H: Float64Array;
  inliers: Uint8Array;
  inlierCount: number;
}

/** DLT on the correspondences at `indices` (all `count` when null); H scaled so that H[8] = 1 when possible. */
export function homographyFromSubset(x1: ArrayLike<number>, x2: ArrayLike<number>, indices: ArrayLike<number> | null, count: number): Float64Array | null {
  const n = indices ? indices.length : count;
  if (n < 4) return null;
  const a = hartleyNormalize(x1, indices, count);
  const b = hartleyNormalize(x2, indices, count);
  const rows = new Float64Array(18 * n);
  for (let k = 0; k < n; k++) {
    const x = a.points[2 * k], y = a.points[2 * k + 1];
    const u = b.points[2 * k], v = b.points[2 * k + 1];
    // From x2 × (H·x1) = 0: two independent rows per correspondence.
    rows.set([0, 0, 0, -x, -y, -1, v * x, v * y, v], 18 * k);
    rows.set([x, y, 1, 0, 0, 0, -u * x, -u * y, -u], 18 * k + 9);
  }
  // Past the minimal four, the smallest eigenvector of the 9 × 9 Gram matrix, as in
  // fundamental.ts: the LO refits then cost the same for 40 inliers or 400.
  const Hn = n === 4 ? columnOf(svd(rows, 2 * n, 9).V, 9, 9, 8) : columnOf(symmetricEigen(gramOf(rows, 2 * n, 9), 9).vectors, 9, 9, 0);
  const T2inv = mat3Inverse(b.T);
  if (!T2inv) return null;
  // H = T2⁻¹·Ĥ·T1
  const tmp = new Float64Array(9);
  const H = new Float64Array(9);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) tmp[i * 3 + j] += Hn[i * 3 + k] * a.T[k * 3 + j];
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) H[i * 3 + j] += T2inv[i * 3 + k] * tmp[k * 3 + j];
  const scale = Math.abs(H[8]) > 1e-12 * Math.hypot(...H) ? H[8] : Math.hypot(...H);
  return H.map((v) => v / scale);
}

/** AᵀA of a rows × cols row-major matrix. */
function gramOf(a: Float64Array, rows: number, cols: number): Float64Array {
  const gram = new Float64Array(cols * cols);
  for (let r = 0; r < rows; r++) {
    const o = r * cols;
    for (let i = 0; i < cols; i++) {
      const ai = a[o + i];
      if (ai === 0) continue;
      for (let j = i; j < cols; j++) gram[i * cols + j] += ai * a[o + j];
    }
  }
  for (let i = 0; i < cols; i++) for (let j = 0; j < i; j++) gram[i * cols + j] = gram[j * cols + i];
  return gram;
}

/** Normalised DLT on all `count` ≥ 4 correspondences. */
export function homographyDLT(x1: ArrayLike<number>, x2: ArrayLike<number>, count: number): Float64Array | null {
  return homographyFromSubset(x1, x2, null, count);
}

/** |x2 − H·x1| of correspondence i (Infinity when H·x1 is at infinity). */
export function transferError(H: ArrayLike<number>, x1: ArrayLike<number>, x2: ArrayLike<number>, i: number): number {
  const x = x1[2 * i], y = x1[2 * i + 1];
  const w = H[6] * x + H[7] * y + H[8];
  if (Math.abs(w) < 1e-15) return Infinity;
  const u = (H[0] * x + H[1] * y + H[2]) / w;
  const v = (H[3] * x + H[4] * y + H[5]) / w;
  return Math.hypot(u - x2[2 * i], v - x2[2 * i + 1]);
}

/** Scratch of the 4-point solver: the DLT rows, then the null vector. */
const fourRows = new Float64Array(8 * 9);
const fourNull = new Float64Array(9);

/**
 * H through the 4 correspondences at `sample` of the Hartley-normalised points (normalised
 * once per call of estimateHomography by `T1`, `T2`): the null vector of the 8 × 9 DLT rows by
 * elimination (math/nullspace.ts), mapped back as T₂⁻¹·Ĥ·T₁; null for a degenerate sample.
 */
function fourPointNormalized(p1: Float64Array, p2: Float64Array, sample: ArrayLike<number>, T1: Float64Array, T2: Float64Array): Float64Array | null {
  for (let k = 0; k < 4; k++) {
    const i = sample[k];
    const x = p1[2 * i], y = p1[2 * i + 1], u = p2[2 * i], v = p2[2 * i + 1];
    const o = 18 * k;
    fourRows[o] = 0; fourRows[o + 1] = 0; fourRows[o + 2] = 0;
    fourRows[o + 3] = -x; fourRows[o + 4] = -y; fourRows[o + 5] = -1;
    fourRows[o + 6] = v * x; fourRows[o + 7] = v * y; fourRows[o + 8] = v;
    fourRows[o + 9] = x; fourRows[o + 10] = y; fourRows[o + 11] = 1;
    fourRows[o + 12] = 0; fourRows[o + 13] = 0; fourRows[o + 14] = 0;
    fourRows[o + 15] = -u * x; fourRows[o + 16] = -u * y; fourRows[o + 17] = -u;
  }
  if (!nullSpaceOfWide(fourRows, 8, 9, fourNull)) return null;
  // Ĥ·T₁ with T₁ = [s 0 a; 0 s b; 0 0 1]: columns s·h0, s·h1, a·h0 + b·h1 + h2.
  const s1 = T1[0], a1 = T1[2], b1 = T1[5];
  // T₂⁻¹ = [1/s 0 −a/s; 0 1/s −b/s; 0 0 1] for T₂ = [s 0 a; 0 s b; 0 0 1].
  const inv2 = 1 / T2[0], a2 = -T2[2] * inv2, b2 = -T2[5] * inv2;
  const M = new Float64Array(9);
  for (let r = 0; r < 3; r++) {
    const h0 = fourNull[3 * r], h1 = fourNull[3 * r + 1], h2 = fourNull[3 * r + 2];
    M[3 * r] = s1 * h0;
    M[3 * r + 1] = s1 * h1;
    M[3 * r + 2] = a1 * h0 + b1 * h1 + h2;
  }
  const H = new Float64Array(9);
  for (let c = 0; c < 3; c++) {
    H[c] = inv2 * M[c] + a2 * M[6 + c];
    H[3 + c] = inv2 * M[3 + c] + b2 * M[6 + c];
    H[6 + c] = M[6 + c];
  }
  const norm = Math.hypot(H[0], H[1], H[2], H[3], H[4], H[5], H[6], H[7], H[8]);
  const scale = Math.abs(H[8]) > 1e-12 * norm ? H[8] : norm;
  for (let k = 0; k < 9; k++) H[k] /= scale;
  return H;
}

/** Robust H: LO-RANSAC over 4-point samples, DLT refits on the inliers. */
export function estimateHomography(x1: ArrayLike<number>, x2: ArrayLike<number>, count: number, options: HomographyOptions): HomographyEstimate | null {
  if (count < 4) return null;
  const normalized1 = hartleyNormalize(x1, null, count);
  const normalized2 = hartleyNormalize(x2, null, count);
  const result = ransac<Float64Array>({
    sampleSize: 4,
    dataCount: count,
    fit: (sample) => {
      const H = fourPointNormalized(normalized1.points, normalized2.points, sample, normalized1.T, normalized2.T);
      return H ? [H] : [];
    },
    residuals: (H, out) => {
      for (let i = 0; i < count; i++) out[i] = transferError(H, x1, x2, i);
    },
    threshold: options.thresholdPx,
    confidence: options.confidence,
    maxIterations: options.maxIterations,
    rng: options.rng,
    refine: (indices) => homographyFromSubset(x1, x2, indices, count),
  });
  if (!result.model || result.inlierCount < 4) return null;
  // Polish over a window wider than the inlier cut (the Cauchy loss tempers it), so the hard
  // threshold does not bias H towards the RANSAC estimate; then re-classify.
  const window: number[] = [];
  for (let i = 0; i < count; i++) if (transferError(result.model, x1, x2, i) < POLISH_WINDOW * options.thresholdPx) window.push(i);
  const H = refineHomography(result.model, x1, x2, window, options.thresholdPx) ?? result.model;
  const inliers = new Uint8Array(count);
  let inlierCount = 0;
  for (let i = 0; i < count; i++) {
    if (transferError(H, x1, x2, i) < options.thresholdPx) {
      inliers[i] = 1;
      inlierCount++;
    }
  }
  return { H, inliers, inlierCount };
}

const POLISH_WINDOW = 3;

/**
 * Minimises the symmetric transfer error |x2 − H·x1|² + |x1 − H⁻¹·x2|² over the correspondences
 * at `indices` (Cauchy loss of scale `lossScale` when given), parameterised by the eight entries
 * H[0..7] with H[8] = 1. Null if H cannot be normalised that way or becomes singular.
 */
export function refineHomography(H0: ArrayLike<number>, x1: ArrayLike<number>, x2: ArrayLike<number>, indices: ArrayLike<number>, lossScale?: number): Float64Array | null {
  if (Math.abs(H0[8]) < 1e-12 * Math.hypot(...Array.from(H0)) || indices.length < 4) return null;
  const start = new Float64Array(8);
  for (let k = 0; k < 8; k++) start[k] = H0[k] / H0[8];
  const H = new Float64Array(9);
  const n = indices.length;
  const residuals = (p: Float64Array, out: Float64Array): void => {
    H.set(p);
    H[8] = 1;
    const inv = mat3Inverse(H);
    // Written straight into `out`: the Jacobian's differences call this 9 times per iteration.
    for (let k = 0; k < n; k++) {
      const i = indices[k];
      writeTransfer(H, x1[2 * i], x1[2 * i + 1], x2[2 * i], x2[2 * i + 1], lossScale, out, 4 * k);
      if (inv) writeTransfer(inv, x2[2 * i], x2[2 * i + 1], x1[2 * i], x1[2 * i + 1], lossScale, out, 4 * k + 2);
      else writeCauchyScaled(1e3, 1e3, lossScale, out, 4 * k + 2);
    }
  };
  const { params } = levenbergMarquardt(start, residuals, 4 * n, { maxIterations: 10 });
  const refined = new Float64Array(9);
  refined.set(params);
  refined[8] = 1;
  return mat3Inverse(refined) ? refined : null;
}

/** (H·a) − b in inhomogeneous coordinates (a large constant when H·a is at infinity), Cauchy-scaled, into out[at], out[at + 1]. */
function writeTransfer(H: ArrayLike<number>, ax: number, ay: number, bx: number, by: number, c: number | undefined, out: Float64Array, at: number): void {
  const w = H[6] * ax + H[7] * ay + H[8];
  if (Math.abs(w) < 1e-15) writeCauchyScaled(1e3, 1e3, c, out, at);
  else writeCauchyScaled((H[0] * ax + H[1] * ay + H[2]) / w - bx, (H[3] * ax + H[4] * ay + H[5]) / w - by, c, out, at);
}

/** The residual pair scaled so that its squared norm becomes the Cauchy loss c²·log(1 + r²/c²), into out[at], out[at + 1]. */
function writeCauchyScaled(r0: number, r1: number, c: number | undefined, out: Float64Array, at: number): void {
  if (c) {
    const sq = r0 * r0 + r1 * r1;
    if (sq !== 0) {
      const factor = Math.sqrt((c * c * Math.log1p(sq / (c * c))) / sq);
      r0 *= factor;
      r1 *= factor;
    }
  }
  out[at] = r0;
  out[at + 1] = r1;
}
