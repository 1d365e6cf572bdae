/**
 * @module Triangulation of 3-D points from calibrated views (normalised image coordinates):
 * the linear DLT (Hartley & Zisserman §12.2) followed, for several views, by Gauss–Newton on the
 * reprojection error. Points behind a camera are returned as they are; callers test cheirality
 * with `depthInCamera`.
 */
import { choleskySolve, svd } from "../math/linalg.js";
import type { RigidTransform } from "./types.js";

const GAUSS_NEWTON_STEPS = 3;

/** Appends the two DLT rows x·P₃ − P₁ and y·P₃ − P₂ of one observation to `rows` at `offset`. */
function addDltRows(pose: RigidTransform, x: number, y: number, rows: Float64Array, offset: number): void {
  const { R, t } = pose;
  for (let j = 0; j < 4; j++) {
    const p0 = j < 3 ? R[j] : t[0];
    const p1 = j < 3 ? R[3 + j] : t[1];
    const p2 = j < 3 ? R[6 + j] : t[2];
    rows[offset + j] = x * p2 - p0;
    rows[offset + 4 + j] = y * p2 - p1;
  }
}

/** Relative size of the second-smallest singular value below which the rays are (nearly) one line. */
const RANK_TOLERANCE = 1e-12;

/**
 * The least-squares homogeneous point of the DLT rows, or null when the solution is not unique
 * (parallel or identical rays: the 2-D null space contains the camera centre and the direction).
 */
function solveDlt(rows: Float64Array, rowCount: number): Float64Array | null {
  const { S, V } = svd(rows, rowCount, 4);
  if (!(S[2] > RANK_TOLERANCE * S[0])) return null;
  return dehomogenize(Float64Array.of(V[3], V[7], V[11], V[15]));
}

function dehomogenize(h: Float64Array): Float64Array | null {
  const w = h[3];
  const scale = Math.hypot(h[0], h[1], h[2]);
  if (Math.abs(w) <= 1e-12 * scale || !Number.isFinite(w)) return null; // point at infinity
  return new Float64Array([h[0] / w, h[1] / w, h[2] / w]);
}

/** The point seen at normalised x1 in view P1 and x2 in view P2 (camFromWorld poses), by DLT. */
export function triangulateTwoView(P1: RigidTransform, P2: RigidTransform, x1: ArrayLike<number>, x2: ArrayLike<number>): Float64Array | null {
  const rows = new Float64Array(16);
  addDltRows(P1, x1[0], x1[1], rows, 0);
  addDltRows(P2, x2[0], x2[1], rows, 8);
  return solveDlt(rows, 4);
}

/**
 * The point seen by `count` views: normalisedObs holds (x, y) per view, poses[i] its
 * camFromWorld. DLT, then Gauss–Newton on the sum of squared normalised reprojection errors.
 */
export function triangulateMultiView(poses: RigidTransform[], normalizedObs: Float64Array, count: number): Float64Array | null {
  if (count < 2) return null;
  const rows = new Float64Array(8 * count);
  for (let i = 0; i < count; i++) addDltRows(poses[i], normalizedObs[2 * i], normalizedObs[2 * i + 1], rows, 8 * i);
  const X = solveDlt(rows, 2 * count);
  if (!X) return null;
  for (let step = 0; step < GAUSS_NEWTON_STEPS; step++) {
    if (!gaussNewtonStep(poses, normalizedObs, count, X)) break;
  }
  return X;
}

/** One Gauss–Newton step on X (in place); false if the normal equations are singular. */
function gaussNewtonStep(poses: RigidTransform[], obs: Float64Array, count: number, X: Float64Array): boolean {
  const JtJ = new Float64Array(9);
  const Jtr = new Float64Array(3);
  for (let i = 0; i < count; i++) {
    const { R, t } = poses[i];
    const xc = R[0] * X[0] + R[1] * X[1] + R[2] * X[2] + t[0];
    const yc = R[3] * X[0] + R[4] * X[1] + R[5] * X[2] + t[1];
    const zc = R[6] * X[0] + R[7] * X[1] + R[8] * X[2] + t[2];
    if (!(zc > 1e-12)) continue; // behind this camera: its linearisation is meaningless
    const invZ = 1 / zc;
    const ru = xc * invZ - obs[2 * i];
    const rv = yc * invZ - obs[2 * i + 1];
    for (let j = 0; j < 3; j++) {
      // ∂(x/z)/∂X = (R₀ − (x/z)·R₂)/z, likewise for y.
      const ju = (R[j] - xc * invZ * R[6 + j]) * invZ;
      const jv = (R[3 + j] - yc * invZ * R[6 + j]) * invZ;
      jacobianRow[j] = ju;
      jacobianRow[3 + j] = jv;
      Jtr[j] -= ju * ru + jv * rv;
    }
    for (let a = 0; a < 3; a++) {
      for (let b = 0; b < 3; b++) JtJ[a * 3 + b] += jacobianRow[a] * jacobianRow[b] + jacobianRow[3 + a] * jacobianRow[3 + b];
    }
  }
  if (!choleskySolve(JtJ, Jtr, 3)) return false;
  X[0] += Jtr[0];
  X[1] += Jtr[1];
  X[2] += Jtr[2];
  return true;
}

/** Scratch: the u-row (0..2) and v-row (3..5) of one observation's Jacobian. */
const jacobianRow = new Float64Array(6);

/** Angle in degrees at X between the rays from camera centres C1 and C2. */
export function triangulationAngleDeg(C1: ArrayLike<number>, C2: ArrayLike<number>, X: ArrayLike<number>): number {
  const ax = C1[0] - X[0], ay = C1[1] - X[1], az = C1[2] - X[2];
  const bx = C2[0] - X[0], by = C2[1] - X[1], bz = C2[2] - X[2];
  const cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
  return (Math.atan2(Math.hypot(cx, cy, cz), ax * bx + ay * by + az * bz) * 180) / Math.PI;
}

/** Depth of world point X along the optical axis of camera `pose` (camFromWorld). */
export function depthInCamera(pose: RigidTransform, X: ArrayLike<number>): number {
  const { R, t } = pose;
  return R[6] * X[0] + R[7] * X[1] + R[8] * X[2] + t[2];
}
