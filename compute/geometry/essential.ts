/**
 * @module The essential matrix between two calibrated views (normalised image coordinates):
 * robust estimation with the five-point solver inside LO-RANSAC (Nistér 2004; Chum et al. 2003),
 * decomposition into the four (R, t) candidates (Hartley & Zisserman §9.6.2) and the cheirality
 * test that picks the one with the points in front of both cameras.
 * Convention: x2ᵀ·E·x1 = 0 with E = [t]×·R, where (R, t) is cam2FromCam1.
 */
import { mat3Mul, skew3, svd } from "../math/linalg.js";
import { columnOf } from "../math/copy.js";
import { ransac } from "../math/ransac.js";
import type { Rng } from "../math/random.js";
import { decomposeEssential } from "./decompose-essential.js";
import { refineEssential } from "./essential-refine.js";
import { fivePoint } from "./five-point.js";
import { epipolarRows, sampsonError } from "./fundamental.js";
import { depthInCamera, triangulateTwoView } from "./triangulation.js";
import { composeTransforms, identityTransform, invertTransform, type RigidTransform } from "./types.js";

export { fivePoint } from "./five-point.js";
export { decomposeEssential } from "./decompose-essential.js";
export { refineEssential } from "./essential-refine.js";

export interface EssentialOptions {
  /** Inlier threshold on the Sampson distance, pixels. */
  thresholdPx: number;
  /** Focal length in pixels, converting normalised distances to pixels. */
  focal: number;
  confidence: number;
  maxIterations: number;
  /** Samples drawn however early the adaptive count would stop (default ESSENTIAL_MIN_ITERATIONS). */
  minIterations?: number;
  rng: Rng;
}

/**
 * Samples a relative pose is drawn from at least. With nearly every match an inlier, RANSAC's
 * adaptive count stops after two or three samples, and a sample of points on one plane (a plain
 * wall, the ground) can give a wrong essential matrix that still explains all but a handful of
 * matches within the threshold, if with larger residuals: the MSAC cost would have preferred the
 * right one, had it been drawn. On a street walked along (bench/street.ts, photos 04 and 12 left
 * out) the seed pair's first sample gave such a matrix (1,281 of 1,287 inliers, two-view RMS 0.70
 * px against 0.23) and the whole model was built on it, cameras up to 1.3 m off.
 */
export const ESSENTIAL_MIN_ITERATIONS = 200;

export interface EssentialEstimate {
  E: Float64Array;
  inliers: Uint8Array;
  inlierCount: number;
}

export interface RelativePose {
  /** cam2FromCam1 rotation. */
  R: Float64Array;
  /** cam2FromCam1 translation, unit length. */
  t: Float64Array;
  /** Correspondences triangulated in front of both cameras. */
  inFront: number;
  /** 1 for those correspondences. */
  inlierMask: Uint8Array;
}

/** Rounds of Sampson-weighted least squares in the non-minimal refit. */
const REWEIGHT_ROUNDS = 3;
/** A point farther than this many baselines is treated as at infinity and not counted as in front. */
const MAX_DEPTH_BASELINES = 1000;

/** Projects a 3 × 3 matrix onto the essential manifold: singular values (1, 1, 0). */
export function projectToEssential(M: ArrayLike<number>): Float64Array {
  const { U, V } = svd(M, 3, 3);
  const E = new Float64Array(9);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) E[i * 3 + j] = (U[i * 3] * V[j * 3] + U[i * 3 + 1] * V[j * 3 + 1]) / Math.SQRT2;
  return E;
}

/**
 * Least-squares E on many correspondences: the linear 8-point system, reweighted by the inverse
 * Sampson gradient norm of the previous estimate so that it approximates the Sampson cost.
 */
export function essentialFromSubset(x1: ArrayLike<number>, x2: ArrayLike<number>, indices: ArrayLike<number>): Float64Array | null {
  const n = indices.length;
  if (n < 8) return null;
  const p1 = new Float64Array(2 * n);
  const p2 = new Float64Array(2 * n);
  for (let k = 0; k < n; k++) {
    p1[2 * k] = x1[2 * indices[k]];
    p1[2 * k + 1] = x1[2 * indices[k] + 1];
    p2[2 * k] = x2[2 * indices[k]];
    p2[2 * k + 1] = x2[2 * indices[k] + 1];
  }
  const weights = new Float64Array(n).fill(1);
  let E: Float64Array | null = null;
  for (let round = 0; round < REWEIGHT_ROUNDS; round++) {
    const { V } = svd(epipolarRows(p1, p2, n, weights), n, 9);
    E = projectToEssential(columnOf(V, 9, 9, 8));
    for (let k = 0; k < n; k++) weights[k] = 1 / Math.sqrt(Math.max(sampsonGradientSq(E, p1, p2, k), 1e-12));
  }
  return E;
}

/** |∇(x2ᵀ·E·x1)|² over the four image coordinates: the Sampson denominator. */
function sampsonGradientSq(E: Float64Array, p1: Float64Array, p2: Float64Array, k: number): number {
  const u1 = p1[2 * k], v1 = p1[2 * k + 1], u2 = p2[2 * k], v2 = p2[2 * k + 1];
  const a = E[0] * u1 + E[1] * v1 + E[2];
  const b = E[3] * u1 + E[4] * v1 + E[5];
  const c = E[0] * u2 + E[3] * v2 + E[6];
  const d = E[1] * u2 + E[4] * v2 + E[7];
  return a * a + b * b + c * c + d * d;
}

/** Robust E: LO-RANSAC over five-point samples, Sampson distance converted to pixels by `focal`. */
export function estimateEssential(x1: Float64Array, x2: Float64Array, count: number, options: EssentialOptions): EssentialEstimate | null {
  if (count < 5) return null;
  const sample1 = new Float64Array(10); // scratch: the 5 sampled points of view 1
  const sample2 = new Float64Array(10);
  const result = ransac<Float64Array>({
    sampleSize: 5,
    dataCount: count,
    fit: (sample) => {
      for (let k = 0; k < 5; k++) {
        const i = sample[k];
        sample1[2 * k] = x1[2 * i];
        sample1[2 * k + 1] = x1[2 * i + 1];
        sample2[2 * k] = x2[2 * i];
        sample2[2 * k + 1] = x2[2 * i + 1];
      }
      return fivePoint(sample1, sample2);
    },
    residuals: (E, out) => {
      for (let i = 0; i < count; i++) out[i] = Math.sqrt(sampsonError(E, x1, x2, i)) * options.focal;
    },
    threshold: options.thresholdPx,
    confidence: options.confidence,
    maxIterations: options.maxIterations,
    minIterations: options.minIterations ?? ESSENTIAL_MIN_ITERATIONS,
    rng: options.rng,
    // LO step: Sampson-optimal refit seeded by the model (the linear fit alone is far from optimal).
    refine: (indices, model) => refineEssential(model, x1, x2, indices),
  });
  if (!result.model || result.inlierCount < 5) return null;
  return polishEssential(result.model, x1, x2, count, options);
}

/** Candidates for the final polish lie within this many thresholds (the Cauchy loss tempers them). */
const POLISH_WINDOW = 3;

/**
 * Final refinement: the hard inlier cut of RANSAC keeps the points that agree with the current
 * estimate and so biases it; a Cauchy-weighted fit over a wider window removes that bias.
 */
function polishEssential(E0: Float64Array, x1: Float64Array, x2: Float64Array, count: number, options: EssentialOptions): EssentialEstimate {
  const window: number[] = [];
  const limit = (POLISH_WINDOW * options.thresholdPx) / options.focal;
  for (let i = 0; i < count; i++) if (Math.sqrt(sampsonError(E0, x1, x2, i)) < limit) window.push(i);
  const E = refineEssential(E0, x1, x2, window, 10, options.thresholdPx / options.focal);
  const inliers = new Uint8Array(count);
  let inlierCount = 0;
  for (let i = 0; i < count; i++) {
    if (Math.sqrt(sampsonError(E, x1, x2, i)) * options.focal < options.thresholdPx) {
      inliers[i] = 1;
      inlierCount++;
    }
  }
  return { E, inliers, inlierCount };
}

/**
 * The candidate of E under which most correspondences (those with inlierMask = 1, or all)
 * triangulate in front of both cameras; camera 1 is [I | 0].
 */
export function recoverPose(E: ArrayLike<number>, x1: Float64Array, x2: Float64Array, count: number, inlierMask?: Uint8Array): RelativePose {
  const cam1 = identityTransform();
  let best: RelativePose | null = null;
  for (const candidate of decomposeEssential(E)) {
    const mask = new Uint8Array(count);
    let inFront = 0;
    for (let i = 0; i < count; i++) {
      if (inlierMask && !inlierMask[i]) continue;
      const X = triangulateTwoView(cam1, candidate, x1.subarray(2 * i, 2 * i + 2), x2.subarray(2 * i, 2 * i + 2));
      if (!X) continue;
      const d1 = depthInCamera(cam1, X);
      const d2 = depthInCamera(candidate, X);
      if (d1 > 0 && d2 > 0 && d1 < MAX_DEPTH_BASELINES && d2 < MAX_DEPTH_BASELINES) {
        mask[i] = 1;
        inFront++;
      }
    }
    if (!best || inFront > best.inFront) best = { R: candidate.R, t: candidate.t, inFront, inlierMask: mask };
  }
  return best!;
}

/**
 * E = [t]×·R of two posed cameras, with (R, t) = bFromA = (R_b·R_aᵀ, t_b − R_b·R_aᵀ·t_a), so
 * x_bᵀ·E·x_a = 0 in normalised coordinates (for guided matching and for checking matches
 * against known poses).
 */
export function essentialFromPoses(aFromWorld: RigidTransform, bFromWorld: RigidTransform): Float64Array {
  const { R, t } = composeTransforms(bFromWorld, invertTransform(aFromWorld));
  return mat3Mul(skew3(t), R);
}
