/**
 * @module Absolute pose of a calibrated camera from 2-D–3-D correspondences: LO-RANSAC over
 * P3P samples (Lambda Twist, ./p3p.ts), with Levenberg–Marquardt refinement of the
 * reprojection error (normalised image coordinates, optional Cauchy loss) as the LO step and as
 * the final polish (COLMAP's EstimateAbsolutePose + RefineAbsolutePose).
 */
import { levenbergMarquardt } from "../math/least-squares.js";
import { mat3Mul } from "../math/linalg.js";
import { ransac } from "../math/ransac.js";
import type { Rng } from "../math/random.js";
import { p3p } from "./p3p.js";
import { angleAxisToMatrix } from "./rotation.js";
import type { RigidTransform } from "./types.js";

export { p3p } from "./p3p.js";

export interface PnpOptions {
  /** Inlier threshold on the reprojection error, pixels. */
  thresholdPx: number;
  /** Focal length in pixels, converting normalised errors to pixels. */
  focal: number;
  confidence: number;
  maxIterations: number;
  rng: Rng;
}

export interface PnpEstimate {
  camFromWorld: RigidTransform;
  inliers: Uint8Array;
  inlierCount: number;
}

export interface RefinePoseOptions {
  maxIterations?: number;
  /** Scale of a Cauchy loss in normalised units; plain least squares when absent. */
  lossScale?: number;
}

/** Smallest depth at which a point still projects; behind it the residual is saturated. */
const MIN_DEPTH = 1e-9;
const BEHIND_RESIDUAL = 1e3;
/** The final polish considers points within this many thresholds. */
const POLISH_WINDOW = 3;

/** Reprojection error of point i under a pose, normalised units (Infinity if behind the camera). */
function reprojectionError(pose: RigidTransform, points2d: ArrayLike<number>, points3d: ArrayLike<number>, i: number): number {
  const { R, t } = pose;
  const X = points3d[3 * i], Y = points3d[3 * i + 1], Z = points3d[3 * i + 2];
  const z = R[6] * X + R[7] * Y + R[8] * Z + t[2];
  if (!(z > MIN_DEPTH)) return Infinity;
  const u = (R[0] * X + R[1] * Y + R[2] * Z + t[0]) / z;
  const v = (R[3] * X + R[4] * Y + R[5] * Z + t[1]) / z;
  return Math.hypot(u - points2d[2 * i], v - points2d[2 * i + 1]);
}

/**
 * Refines camFromWorld by LM on the reprojection error of the points with inlierMask = 1 (all
 * when null), parameterised as R = exp([ω]×)·R₀, t = t₀ + δt.
 */
export function refinePose(camFromWorld: RigidTransform, points2dNormalized: ArrayLike<number>, points3d: ArrayLike<number>, inlierMask: Uint8Array | null, options: RefinePoseOptions = {}): RigidTransform {
  const count = Math.floor(points2dNormalized.length / 2);
  const used: number[] = [];
  for (let i = 0; i < count; i++) if (!inlierMask || inlierMask[i]) used.push(i);
  if (used.length < 3) return { R: Float64Array.from(camFromWorld.R), t: Float64Array.from(camFromWorld.t) };
  const R0 = camFromWorld.R, t0 = camFromWorld.t;
  const R = new Float64Array(9);
  const scale = options.lossScale;
  const residuals = (p: Float64Array, out: Float64Array): void => {
    mat3Mul(angleAxisToMatrix(p), R0, R);
    const tx = t0[0] + p[3], ty = t0[1] + p[4], tz = t0[2] + p[5];
    for (let k = 0; k < used.length; k++) {
      const i = used[k];
      const X = points3d[3 * i], Y = points3d[3 * i + 1], Z = points3d[3 * i + 2];
      const z = R[6] * X + R[7] * Y + R[8] * Z + tz;
      let ru = BEHIND_RESIDUAL, rv = BEHIND_RESIDUAL;
      if (z > MIN_DEPTH) {
        ru = (R[0] * X + R[1] * Y + R[2] * Z + tx) / z - points2dNormalized[2 * i];
        rv = (R[3] * X + R[4] * Y + R[5] * Z + ty) / z - points2dNormalized[2 * i + 1];
      }
      if (scale) {
        // Cauchy: ρ(s) = c²·log(1 + s/c²); scale the residual pair so its squared norm equals ρ.
        const sq = ru * ru + rv * rv;
        const factor = sq > 0 ? Math.sqrt((scale * scale * Math.log1p(sq / (scale * scale))) / sq) : 1;
        ru *= factor;
        rv *= factor;
      }
      out[2 * k] = ru;
      out[2 * k + 1] = rv;
    }
  };
  const { params } = levenbergMarquardt(new Float64Array(6), residuals, 2 * used.length, { maxIterations: options.maxIterations ?? 15 });
  return {
    R: mat3Mul(angleAxisToMatrix(params), R0),
    t: Float64Array.from([t0[0] + params[3], t0[1] + params[4], t0[2] + params[5]]),
  };
}

/** Robust camFromWorld from normalised image points (2·count) and world points (3·count). */
export function estimatePnp(points2dNormalized: Float64Array, points3d: Float64Array, count: number, options: PnpOptions): PnpEstimate | null {
  if (count < 4) return null;
  const bearings = new Float64Array(3 * count);
  for (let i = 0; i < count; i++) {
    const x = points2dNormalized[2 * i], y = points2dNormalized[2 * i + 1];
    const n = Math.hypot(x, y, 1);
    bearings.set([x / n, y / n, 1 / n], 3 * i);
  }
  const sampleBearings = new Float64Array(9); // scratch: the 3 sampled bearings
  const samplePoints = new Float64Array(9); // scratch: the 3 sampled world points
  const lossScale = options.thresholdPx / options.focal;
  const result = ransac<RigidTransform>({
    sampleSize: 3,
    dataCount: count,
    fit: (sample) => {
      for (let k = 0; k < 3; k++) {
        sampleBearings.set(bearings.subarray(3 * sample[k], 3 * sample[k] + 3), 3 * k);
        samplePoints.set(points3d.subarray(3 * sample[k], 3 * sample[k] + 3), 3 * k);
      }
      return p3p(sampleBearings, samplePoints);
    },
    residuals: (pose, out) => {
      for (let i = 0; i < count; i++) out[i] = reprojectionError(pose, points2dNormalized, points3d, i) * options.focal;
    },
    threshold: options.thresholdPx,
    confidence: options.confidence,
    maxIterations: options.maxIterations,
    rng: options.rng,
    refine: (indices, pose) => {
      const mask = new Uint8Array(count);
      for (const i of indices) mask[i] = 1;
      return refinePose(pose, points2dNormalized, points3d, mask, { lossScale, maxIterations: 8 });
    },
  });
  if (!result.model || result.inlierCount < 4) return null;
  // Polish over a window wider than the inlier cut, tempered by the Cauchy loss, so the hard
  // threshold does not bias the pose towards the RANSAC estimate.
  const window = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    window[i] = reprojectionError(result.model, points2dNormalized, points3d, i) * options.focal < POLISH_WINDOW * options.thresholdPx ? 1 : 0;
  }
  const camFromWorld = refinePose(result.model, points2dNormalized, points3d, window, { lossScale });
  const inliers = new Uint8Array(count);
  let inlierCount = 0;
  for (let i = 0; i < count; i++) {
    if (reprojectionError(camFromWorld, points2dNormalized, points3d, i) * options.focal < options.thresholdPx) {
      inliers[i] = 1;
      inlierCount++;
    }
  }
  return { camFromWorld, inliers, inlierCount };
}
