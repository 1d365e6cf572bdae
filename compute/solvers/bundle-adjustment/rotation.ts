/**
 * @module Angle-axis rotations for the bundle adjuster: exp map, log map, and the left
 * perturbation update `R ← exp(δ)·R` used as the rotation's local parameterisation.
 *
 * Kept inside the BA stage on purpose: its inner loops want fixed-offset writes into flat
 * arrays, not general-purpose allocating helpers.
 */

/** Below this angle (rad) the first-order Rodrigues form is exact to double precision. */
const SMALL_ANGLE = 1e-8;

/**
 * Rodrigues' formula: writes the row-major 3×3 matrix of the angle-axis vector
 * `angleAxis[aa..aa+3]` into `out[o..o+9]`.
 */
export function angleAxisToMatrix(angleAxis: ArrayLike<number>, aa: number, out: Float64Array, o: number): void {
  const wx = angleAxis[aa];
  const wy = angleAxis[aa + 1];
  const wz = angleAxis[aa + 2];
  const theta2 = wx * wx + wy * wy + wz * wz;
  if (theta2 < SMALL_ANGLE * SMALL_ANGLE) {
    // R ≈ I + [ω]×, as Ceres' AngleAxisToRotationMatrix does near zero.
    out[o] = 1; out[o + 1] = -wz; out[o + 2] = wy;
    out[o + 3] = wz; out[o + 4] = 1; out[o + 5] = -wx;
    out[o + 6] = -wy; out[o + 7] = wx; out[o + 8] = 1;
    return;
  }
  const theta = Math.sqrt(theta2);
  const kx = wx / theta;
  const ky = wy / theta;
  const kz = wz / theta;
  const c = Math.cos(theta);
  const s = Math.sin(theta);
  const oneMinusC = 1 - c;
  out[o] = c + kx * kx * oneMinusC;
  out[o + 1] = kx * ky * oneMinusC - kz * s;
  out[o + 2] = kx * kz * oneMinusC + ky * s;
  out[o + 3] = ky * kx * oneMinusC + kz * s;
  out[o + 4] = c + ky * ky * oneMinusC;
  out[o + 5] = ky * kz * oneMinusC - kx * s;
  out[o + 6] = kz * kx * oneMinusC - ky * s;
  out[o + 7] = kz * ky * oneMinusC + kx * s;
  out[o + 8] = c + kz * kz * oneMinusC;
}

/**
 * Log map of a rotation matrix `R[r..r+9]` into `out[o..o+3]`. Goes through a unit quaternion
 * (Shepperd's method picks the largest pivot), which stays accurate near 0 and π where the
 * trace/antisymmetric-part formula loses precision.
 */
export function matrixToAngleAxis(R: Float64Array, r: number, out: Float64Array, o: number): void {
  const m00 = R[r], m01 = R[r + 1], m02 = R[r + 2];
  const m10 = R[r + 3], m11 = R[r + 4], m12 = R[r + 5];
  const m20 = R[r + 6], m21 = R[r + 7], m22 = R[r + 8];
  const trace = m00 + m11 + m22;
  let qw: number, qx: number, qy: number, qz: number;
  if (trace > 0) {
    const s = 2 * Math.sqrt(1 + trace);
    qw = 0.25 * s; qx = (m21 - m12) / s; qy = (m02 - m20) / s; qz = (m10 - m01) / s;
  } else if (m00 > m11 && m00 > m22) {
    const s = 2 * Math.sqrt(1 + m00 - m11 - m22);
    qw = (m21 - m12) / s; qx = 0.25 * s; qy = (m01 + m10) / s; qz = (m02 + m20) / s;
  } else if (m11 > m22) {
    const s = 2 * Math.sqrt(1 + m11 - m00 - m22);
    qw = (m02 - m20) / s; qx = (m01 + m10) / s; qy = 0.25 * s; qz = (m12 + m21) / s;
  } else {
    const s = 2 * Math.sqrt(1 + m22 - m00 - m11);
    qw = (m10 - m01) / s; qx = (m02 + m20) / s; qy = (m12 + m21) / s; qz = 0.25 * s;
  }
  if (qw < 0) {
    // q and -q are the same rotation; the positive-w one has angle in [0, π].
    qw = -qw; qx = -qx; qy = -qy; qz = -qz;
  }
  const sinHalf = Math.sqrt(qx * qx + qy * qy + qz * qz);
  // angle/sin(angle/2) → 2 as the angle → 0, so the small case scales by 2.
  const scale = sinHalf < SMALL_ANGLE ? 2 / qw : (2 * Math.atan2(sinHalf, qw)) / sinHalf;
  out[o] = qx * scale;
  out[o + 1] = qy * scale;
  out[o + 2] = qz * scale;
}

/** Scratch for `perturbRotationLeft`: exp(δ) (0..9), R(ω) (9..18), product (18..27). */
const perturbScratch = new Float64Array(27);

/**
 * Replaces the angle-axis `angleAxis[aa..aa+3]` (of R) by that of `exp(δ)·R`, with δ read from
 * `delta[d..d+3]`. The left perturbation makes ∂(R·X)/∂δ = −[R·X]× at δ = 0, the simple
 * analytic Jacobian the residual code uses.
 */
export function perturbRotationLeft(angleAxis: Float64Array, aa: number, delta: ArrayLike<number>, d: number): void {
  const s = perturbScratch;
  angleAxisToMatrix(delta, d, s, 0);
  angleAxisToMatrix(angleAxis, aa, s, 9);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      s[18 + 3 * i + j] = s[3 * i] * s[9 + j] + s[3 * i + 1] * s[12 + j] + s[3 * i + 2] * s[15 + j];
    }
  }
  matrixToAngleAxis(s, 18, angleAxis, aa);
}
