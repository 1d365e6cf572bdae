/**
 * @module Per-observation projection helpers of the reconstruction state (hot loops, no allocation).
 * The camera model is scene/camera.ts's RADIAL model; it is spelled out here rather than called
 * per point so the outlier filter runs over all observations without temporary objects.
 */
import type { Intrinsics } from "../../scene/index.js";
import type { SfmState } from "./state.js";

/** Squared reprojection error (px²) of world point X (xyz at X[o..o+2]) in image i; Infinity behind the camera. */
export function squaredReprojectionError(state: SfmState, i: number, X: Float64Array, o: number, u: number, v: number): number {
  const R = state.rotation;
  const r = 9 * i;
  const x = R[r] * X[o] + R[r + 1] * X[o + 1] + R[r + 2] * X[o + 2] + state.translation[3 * i];
  const y = R[r + 3] * X[o] + R[r + 4] * X[o + 1] + R[r + 5] * X[o + 2] + state.translation[3 * i + 1];
  const z = R[r + 6] * X[o] + R[r + 7] * X[o + 1] + R[r + 8] * X[o + 2] + state.translation[3 * i + 2];
  if (z <= 1e-12) return Infinity;
  const g = 5 * state.groupOfImage[i];
  const K = state.intrinsics;
  const nx = x / z;
  const ny = y / z;
  const r2 = nx * nx + ny * ny;
  const d = 1 + K[g + 3] * r2 + K[g + 4] * r2 * r2;
  const du = K[g] * d * nx + K[g + 1] - u;
  const dv = K[g] * d * ny + K[g + 2] - v;
  return du * du + dv * dv;
}

/** Depth of world point X along image i's optical axis. */
export function depthInImage(state: SfmState, i: number, X: Float64Array, o: number): number {
  const R = state.rotation;
  const r = 9 * i;
  return R[r + 6] * X[o] + R[r + 7] * X[o + 1] + R[r + 8] * X[o + 2] + state.translation[3 * i + 2];
}

/** Camera centre C = -Rᵀt of image i, written into out[o..o+2]. */
export function centerOf(state: SfmState, i: number, out: Float64Array, o: number): void {
  const R = state.rotation;
  const t = state.translation;
  const r = 9 * i;
  out[o] = -(R[r] * t[3 * i] + R[r + 3] * t[3 * i + 1] + R[r + 6] * t[3 * i + 2]);
  out[o + 1] = -(R[r + 1] * t[3 * i] + R[r + 4] * t[3 * i + 1] + R[r + 7] * t[3 * i + 2]);
  out[o + 2] = -(R[r + 2] * t[3 * i] + R[r + 5] * t[3 * i + 1] + R[r + 8] * t[3 * i + 2]);
}

/** Angle (degrees) at X between the rays to centres A and B (each xyz at its offset). */
export function rayAngleDeg(X: Float64Array, ox: number, A: Float64Array, oa: number, B: Float64Array, ob: number): number {
  const ax = A[oa] - X[ox];
  const ay = A[oa + 1] - X[ox + 1];
  const az = A[oa + 2] - X[ox + 2];
  const bx = B[ob] - X[ox];
  const by = B[ob + 1] - X[ox + 1];
  const bz = B[ob + 2] - X[ox + 2];
  const na = Math.hypot(ax, ay, az);
  const nb = Math.hypot(bx, by, bz);
  if (na === 0 || nb === 0) return 0;
  const c = Math.min(1, Math.max(-1, (ax * bx + ay * by + az * bz) / (na * nb)));
  return (Math.acos(c) * 180) / Math.PI;
}

/** The group intrinsics of image i as a scene Intrinsics record. */
export function intrinsicsOf(state: SfmState, i: number): Intrinsics {
  const g = 5 * state.groupOfImage[i];
  const K = state.intrinsics;
  const image = state.images[i];
  return { width: image.width, height: image.height, focal: K[g], cx: K[g + 1], cy: K[g + 2], k1: K[g + 3], k2: K[g + 4] };
}
