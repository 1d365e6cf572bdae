/** Synthetic two-view scenes with known ground truth, COLMAP/OpenSfM style. */
import { angleAxisToMatrix } from "../../../compute/geometry/rotation.js";
import type { RigidTransform } from "../../../compute/geometry/types.js";
import { type Rng, gaussian } from "../../../compute/math/random.js";

export interface TwoViewScene {
  /** cam2FromCam1 (camera 1 is the world frame). */
  pose: RigidTransform;
  points3d: Float64Array;
  /** Normalised coordinates with noise/outliers applied. */
  x1: Float64Array;
  x2: Float64Array;
  isOutlier: Uint8Array;
}

export function randomRotation(rng: Rng, sigmaRad: number): Float64Array {
  return angleAxisToMatrix([sigmaRad * gaussian(rng), sigmaRad * gaussian(rng), sigmaRad * gaussian(rng)]);
}

export function transformInto(pose: RigidTransform, X: ArrayLike<number>): [number, number, number] {
  const { R, t } = pose;
  return [0, 1, 2].map((r) => R[3 * r] * X[0] + R[3 * r + 1] * X[1] + R[3 * r + 2] * X[2] + t[r]) as [number, number, number];
}

/**
 * Points in front of both cameras at depth 4–8, camera 2 displaced ~1 unit sideways and
 * rotated; `noisePx` Gaussian pixel noise (converted with `focal`), `outlierRatio` of view-2
 * points replaced by random ones. `planar` puts all points on one plane.
 */
export function twoViewScene(rng: Rng, count: number, options: { focal: number; noisePx: number; outlierRatio: number; planar?: boolean }): TwoViewScene {
  const R = randomRotation(rng, 0.15);
  const t = new Float64Array([1 + 0.3 * gaussian(rng), 0.3 * gaussian(rng), 0.3 * gaussian(rng)]);
  const pose = { R, t };
  const points3d = new Float64Array(3 * count);
  const x1 = new Float64Array(2 * count);
  const x2 = new Float64Array(2 * count);
  const isOutlier = new Uint8Array(count);
  const sigma = options.noisePx / options.focal;
  for (let i = 0; i < count; i++) {
    let X: [number, number, number];
    let Y: [number, number, number];
    do {
      const u = (rng() - 0.5) * 1.2;
      const v = (rng() - 0.5) * 0.9;
      // Planar: the plane Z − 0.1·X + 0.08·Y = 6 along the ray (u, v, 1).
      const depth = options.planar ? 6 / (1 - 0.1 * u + 0.08 * v) : 4 + 4 * rng();
      X = [u * depth, v * depth, depth];
      Y = transformInto(pose, X);
    } while (Y[2] < 0.5 || Math.abs(Y[0] / Y[2]) > 0.8 || Math.abs(Y[1] / Y[2]) > 0.6);
    points3d.set(X, 3 * i);
    x1[2 * i] = X[0] / X[2] + sigma * gaussian(rng);
    x1[2 * i + 1] = X[1] / X[2] + sigma * gaussian(rng);
    if (rng() < options.outlierRatio) {
      isOutlier[i] = 1;
      x2[2 * i] = (rng() - 0.5) * 1.6;
      x2[2 * i + 1] = (rng() - 0.5) * 1.2;
    } else {
      x2[2 * i] = Y[0] / Y[2] + sigma * gaussian(rng);
      x2[2 * i + 1] = Y[1] / Y[2] + sigma * gaussian(rng);
    }
  }
  return { pose, points3d, x1, x2, isOutlier };
}

/** E = [t]×·R, unit Frobenius norm. */
export function essentialOf(pose: RigidTransform): Float64Array {
  const { R, t } = pose;
  const tx = [0, -t[2], t[1], t[2], 0, -t[0], -t[1], t[0], 0];
  const E = new Float64Array(9);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) E[3 * i + j] += tx[3 * i + k] * R[3 * k + j];
  const n = Math.hypot(...E);
  return E.map((v) => v / n);
}

/** Smallest max-abs difference between M and ±candidate over candidates (matrices up to sign). */
export function bestMatchUpToSign(M: ArrayLike<number>, candidates: ArrayLike<number>[]): number {
  let best = Infinity;
  for (const c of candidates) {
    for (const s of [1, -1]) {
      let max = 0;
      for (let k = 0; k < M.length; k++) max = Math.max(max, Math.abs(s * c[k] - M[k]));
      best = Math.min(best, max);
    }
  }
  return best;
}

export function angleBetweenDeg(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const cross = Math.hypot(a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]);
  return (Math.atan2(cross, dot) * 180) / Math.PI;
}
