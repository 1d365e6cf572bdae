/**
 * @module Reprojection residual of one observation and its analytic Jacobian, for the
 * RADIAL camera model of compute/scene/camera.ts:
 *   x_cam = R·X + t;  (u, v) = (x/z, y/z);  r² = u² + v²;  d = 1 + k1·r² + k2·r⁴
 *   pixel = (f·d·u + cx, f·d·v + cy);  residual = pixel − observed
 * Derivatives are written out by the chain rule pixel ← (u, v) ← x_cam ← (δ, t, X); the
 * rotation is perturbed on the left, R ← exp(δ)·R, so ∂x_cam/∂δ = −[R·X]×.
 */

/** Offsets into the `out` array of `projectWithJacobian` (row-major 2×N blocks). */
export const JAC = {
  /** Residual (2). */
  residual: 0,
  /** ∂residual/∂(δ, t), 2×6. */
  pose: 2,
  /** ∂residual/∂X, 2×3. */
  point: 14,
  /** ∂residual/∂(f, cx, cy, k1, k2), 2×5. */
  intrinsics: 20,
  /** Length of the whole `out` array. */
  size: 30,
} as const;

/** Index of each intrinsic within a group's 5 values. */
export const INTRINSIC = { focal: 0, cx: 1, cy: 2, k1: 3, k2: 4 } as const;

/**
 * Writes the residual of one observation into `out[o], out[o+1]` and returns its squared norm.
 * `rotations` holds row-major camFromWorld matrices (9 per camera), `poses` the 6 values per
 * camera (translation at +3), `intrinsics` 5 per group.
 */
export function projectResidual(
  rotations: Float64Array, rOff: number,
  poses: Float64Array, pOff: number,
  points: Float64Array, xOff: number,
  intrinsics: Float64Array, iOff: number,
  obsXY: Float64Array, oOff: number,
  out: Float64Array, o: number,
): number {
  const X0 = points[xOff], X1 = points[xOff + 1], X2 = points[xOff + 2];
  const x = rotations[rOff] * X0 + rotations[rOff + 1] * X1 + rotations[rOff + 2] * X2 + poses[pOff + 3];
  const y = rotations[rOff + 3] * X0 + rotations[rOff + 4] * X1 + rotations[rOff + 5] * X2 + poses[pOff + 4];
  const z = rotations[rOff + 6] * X0 + rotations[rOff + 7] * X1 + rotations[rOff + 8] * X2 + poses[pOff + 5];
  const u = x / z;
  const v = y / z;
  const r2 = u * u + v * v;
  const fd = intrinsics[iOff] * (1 + r2 * (intrinsics[iOff + 3] + r2 * intrinsics[iOff + 4]));
  const ex = fd * u + intrinsics[iOff + 1] - obsXY[oOff];
  const ey = fd * v + intrinsics[iOff + 2] - obsXY[oOff + 1];
  out[o] = ex;
  out[o + 1] = ey;
  return ex * ex + ey * ey;
}

/**
 * Residual and all partial derivatives of one observation, laid out as `JAC` in `out`.
 * Returns the squared residual norm.
 */
export function projectWithJacobian(
  rotations: Float64Array, rOff: number,
  poses: Float64Array, pOff: number,
  points: Float64Array, xOff: number,
  intrinsics: Float64Array, iOff: number,
  obsXY: Float64Array, oOff: number,
  out: Float64Array,
): number {
  const R = rotations;
  const X0 = points[xOff], X1 = points[xOff + 1], X2 = points[xOff + 2];
  // y = R·X (camera-frame direction before translation), needed for ∂/∂δ.
  const y0 = R[rOff] * X0 + R[rOff + 1] * X1 + R[rOff + 2] * X2;
  const y1 = R[rOff + 3] * X0 + R[rOff + 4] * X1 + R[rOff + 5] * X2;
  const y2 = R[rOff + 6] * X0 + R[rOff + 7] * X1 + R[rOff + 8] * X2;
  const x = y0 + poses[pOff + 3];
  const y = y1 + poses[pOff + 4];
  const z = y2 + poses[pOff + 5];
  const iz = 1 / z;
  const u = x * iz;
  const v = y * iz;
  const f = intrinsics[iOff];
  const k1 = intrinsics[iOff + 3];
  const k2 = intrinsics[iOff + 4];
  const r2 = u * u + v * v;
  const d = 1 + r2 * (k1 + r2 * k2);
  const ex = f * d * u + intrinsics[iOff + 1] - obsXY[oOff];
  const ey = f * d * v + intrinsics[iOff + 2] - obsXY[oOff + 1];
  out[0] = ex;
  out[1] = ey;

  // ∂pixel/∂(u, v) = f·[[d + 2u²·d′, 2uv·d′], [2uv·d′, d + 2v²·d′]] with d′ = ∂d/∂r².
  const dPrime = k1 + 2 * k2 * r2;
  const a00 = f * (d + 2 * u * u * dPrime);
  const a01 = f * (2 * u * v * dPrime);
  const a11 = f * (d + 2 * v * v * dPrime);
  // ∂pixel/∂x_cam = A · [[1/z, 0, −u/z], [0, 1/z, −v/z]].
  const j00 = a00 * iz, j01 = a01 * iz, j02 = -(a00 * u + a01 * v) * iz;
  const j10 = a01 * iz, j11 = a11 * iz, j12 = -(a01 * u + a11 * v) * iz;

  // Pose: ∂x_cam/∂δ = −[y]× = [[0, y2, −y1], [−y2, 0, y0], [y1, −y0, 0]]; ∂x_cam/∂t = I.
  const p = JAC.pose;
  out[p] = -j01 * y2 + j02 * y1;
  out[p + 1] = j00 * y2 - j02 * y0;
  out[p + 2] = -j00 * y1 + j01 * y0;
  out[p + 3] = j00; out[p + 4] = j01; out[p + 5] = j02;
  out[p + 6] = -j11 * y2 + j12 * y1;
  out[p + 7] = j10 * y2 - j12 * y0;
  out[p + 8] = -j10 * y1 + j11 * y0;
  out[p + 9] = j10; out[p + 10] = j11; out[p + 11] = j12;

  // Point: ∂x_cam/∂X = R.
  const q = JAC.point;
  for (let c = 0; c < 3; c++) {
    const rc0 = R[rOff + c], rc1 = R[rOff + 3 + c], rc2 = R[rOff + 6 + c];
    out[q + c] = j00 * rc0 + j01 * rc1 + j02 * rc2;
    out[q + 3 + c] = j10 * rc0 + j11 * rc1 + j12 * rc2;
  }

  // Intrinsics (f, cx, cy, k1, k2).
  const k = JAC.intrinsics;
  const fr2 = f * r2;
  out[k] = d * u; out[k + 1] = 1; out[k + 2] = 0; out[k + 3] = fr2 * u; out[k + 4] = fr2 * r2 * u;
  out[k + 5] = d * v; out[k + 6] = 0; out[k + 7] = 1; out[k + 8] = fr2 * v; out[k + 9] = fr2 * r2 * v;
  return ex * ex + ey * ey;
}
