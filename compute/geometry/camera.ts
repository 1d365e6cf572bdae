/**
 * @module The camera model of compute/scene/camera.ts as functions: projection of world points
 * to pixels, radial distortion, and its inverse (pixels → undistorted normalised coordinates,
 * the input of every calibrated solver).
 *   x_cam = R·X + t;  (u, v) = (x/z, y/z);  d = 1 + k1·r² + k2·r⁴;  pixel = f·d·(u, v) + (cx, cy)
 */
import type { CameraIntrinsics, RigidTransform } from "./types.js";

/** Smallest depth (in world units along the optical axis) still counted as in front of the camera. */
const MIN_DEPTH = 1e-12;
const UNDISTORT_ITERATIONS = 20;

/** Projects world point X to pixels into out[0..1]; false (out untouched) if X is not in front, or past the lens's fold (foldRadius2). */
export function project(intr: CameraIntrinsics, camFromWorld: RigidTransform, X: ArrayLike<number>, out: Float64Array): boolean {
  const { R, t } = camFromWorld;
  const x = R[0] * X[0] + R[1] * X[1] + R[2] * X[2] + t[0];
  const y = R[3] * X[0] + R[4] * X[1] + R[5] * X[2] + t[1];
  const z = R[6] * X[0] + R[7] * X[1] + R[8] * X[2] + t[2];
  if (!(z > MIN_DEPTH)) return false;
  const u = x / z, v = y / z;
  if (u * u + v * v >= foldOf(intr.k1, intr.k2)) return false;
  distort(intr, u, v, out);
  out[0] = intr.focal * out[0] + intr.cx;
  out[1] = intr.focal * out[1] + intr.cy;
  return true;
}

/** Applies radial distortion to normalised coordinates (u, v); out = distorted normalised coordinates. */
export function distort(intr: CameraIntrinsics, u: number, v: number, out: Float64Array): Float64Array {
  const r2 = u * u + v * v;
  const d = 1 + intr.k1 * r2 + intr.k2 * r2 * r2;
  out[0] = d * u;
  out[1] = d * v;
  return out;
}

/**
 * Squared normalised radius where the radial mapping r·(1 + k1·r² + k2·r⁴) stops increasing (its
 * derivative 1 + 3·k1·r² + 5·k2·r⁴ reaches 0), or Infinity where it never does. Past it a ray
 * folds back onto pixels that nearer rays already own: with k1 −0.26 and k2 0 the fold is 48.5° off
 * the axis, and a point 60° off it lands inside the frame although the lens never saw it. distortion-select.ts keeps every
 * refined lens monotone out to the image's corner, so the fold lies outside the frame.
 */
export function foldRadius2(k1: number, k2: number): number {
  // Smallest positive root x = r² of 5·k2·x² + 3·k1·x + 1.
  if (k2 === 0) return k1 < 0 ? -1 / (3 * k1) : Infinity;
  const disc = 9 * k1 * k1 - 20 * k2;
  if (disc < 0) return Infinity;
  const sq = Math.sqrt(disc);
  const a = (-3 * k1 - sq) / (10 * k2), b = (-3 * k1 + sq) / (10 * k2);
  const lo = Math.min(a, b), hi = Math.max(a, b);
  return lo > 0 ? lo : hi > 0 ? hi : Infinity;
}

/** The last lens's fold (foldRadius2), kept by value: projections come in long runs through one lens. */
let foldK1 = 0, foldK2 = 0, foldR2 = Infinity;

/** foldRadius2(k1, k2), remembered for the last lens asked about. */
export function foldOf(k1: number, k2: number): number {
  if (k1 !== foldK1 || k2 !== foldK2) {
    foldR2 = foldRadius2(k1, k2);
    foldK1 = k1;
    foldK2 = k2;
  }
  return foldR2;
}

/**
 * Pixel → undistorted normalised coordinates into out[0..1]. Radial distortion only scales
 * the radius, so invert r_d = r·(1 + k1·r² + k2·r⁴) for r by Newton's method (starting at
 * r = r_d) and scale the distorted point by r/r_d.
 */
export function undistortPoint(intr: CameraIntrinsics, px: number, py: number, out: Float64Array): Float64Array {
  const ud = (px - intr.cx) / intr.focal;
  const vd = (py - intr.cy) / intr.focal;
  if (intr.k1 === 0 && intr.k2 === 0) {
    out[0] = ud;
    out[1] = vd;
    return out;
  }
  const rd = Math.hypot(ud, vd);
  const r = undistortRadius(intr.k1, intr.k2, rd);
  const scale = rd > 0 ? r / rd : 1;
  out[0] = ud * scale;
  out[1] = vd * scale;
  return out;
}

function undistortRadius(k1: number, k2: number, rd: number): number {
  let r = rd;
  for (let i = 0; i < UNDISTORT_ITERATIONS; i++) {
    const r2 = r * r;
    const f = r * (1 + k1 * r2 + k2 * r2 * r2) - rd;
    const df = 1 + 3 * k1 * r2 + 5 * k2 * r2 * r2;
    if (df <= 0) break; // past the radius where the distortion folds over: keep the last good r
    const step = f / df;
    r -= step;
    if (Math.abs(step) < 1e-15 * (1 + r)) break;
  }
  return r;
}

/** Pixels (x0, y0, x1, y1, …) → undistorted normalised coordinates, a new array of 2·count. */
export function normalizePoints(intr: CameraIntrinsics, xy: Float32Array | Float64Array, count: number): Float64Array {
  const out = new Float64Array(2 * count);
  const scratch = new Float64Array(2);
  for (let i = 0; i < count; i++) {
    undistortPoint(intr, xy[2 * i], xy[2 * i + 1], scratch);
    out[2 * i] = scratch[0];
    out[2 * i + 1] = scratch[1];
  }
  return out;
}
