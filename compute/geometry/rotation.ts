/**
 * @module Rotation parameterisations: angle-axis (Rodrigues), unit quaternions (Hamilton,
 * stored [w, x, y, z]), the angle between two rotations, and projection onto SO(3).
 * Row-major 3×3 matrices throughout.
 */
import { mat3Det, svd } from "../math/linalg.js";

type Vec = ArrayLike<number>;

/** Rodrigues' formula R = I + sinθ·K + (1 − cosθ)·K², K = [axis]×; Taylor-expanded near θ = 0. */
export function angleAxisToMatrix(aa: Vec, out = new Float64Array(9)): Float64Array {
  const x = aa[0], y = aa[1], z = aa[2];
  const thetaSq = x * x + y * y + z * z;
  let a: number; // sinθ/θ
  let b: number; // (1 − cosθ)/θ²
  if (thetaSq < 1e-12) {
    a = 1 - thetaSq / 6;
    b = 0.5 - thetaSq / 24;
  } else {
    const theta = Math.sqrt(thetaSq);
    a = Math.sin(theta) / theta;
    b = (1 - Math.cos(theta)) / thetaSq;
  }
  out[0] = 1 - b * (y * y + z * z);
  out[1] = -a * z + b * x * y;
  out[2] = a * y + b * x * z;
  out[3] = a * z + b * x * y;
  out[4] = 1 - b * (x * x + z * z);
  out[5] = -a * x + b * y * z;
  out[6] = -a * y + b * x * z;
  out[7] = a * x + b * y * z;
  out[8] = 1 - b * (x * x + y * y);
  return out;
}

/** The angle-axis vector (axis·θ, θ ∈ [0, π]) of a rotation matrix, via its quaternion for stability near π. */
export function matrixToAngleAxis(R: Vec, out = new Float64Array(3)): Float64Array {
  const q = matrixToQuaternion(R);
  // Keep w ≥ 0 so θ = 2·atan2(|v|, w) ∈ [0, π].
  const sign = q[0] < 0 ? -1 : 1;
  const w = sign * q[0];
  const vx = sign * q[1], vy = sign * q[2], vz = sign * q[3];
  const sinHalf = Math.hypot(vx, vy, vz);
  const scale = sinHalf < 1e-12 ? 2 / w : (2 * Math.atan2(sinHalf, w)) / sinHalf;
  out[0] = vx * scale;
  out[1] = vy * scale;
  out[2] = vz * scale;
  return out;
}

/** Rotation matrix of the quaternion [w, x, y, z] (normalised first). */
export function quaternionToMatrix(q: Vec, out = new Float64Array(9)): Float64Array {
  const n = Math.hypot(q[0], q[1], q[2], q[3]);
  const w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
  out[0] = 1 - 2 * (y * y + z * z);
  out[1] = 2 * (x * y - w * z);
  out[2] = 2 * (x * z + w * y);
  out[3] = 2 * (x * y + w * z);
  out[4] = 1 - 2 * (x * x + z * z);
  out[5] = 2 * (y * z - w * x);
  out[6] = 2 * (x * z - w * y);
  out[7] = 2 * (y * z + w * x);
  out[8] = 1 - 2 * (x * x + y * y);
  return out;
}

/** Unit quaternion [w, x, y, z] of a rotation matrix (Shepperd 1978: branch on the largest diagonal term). */
export function matrixToQuaternion(R: Vec, out = new Float64Array(4)): Float64Array {
  const trace = R[0] + R[4] + R[8];
  if (trace > 0) {
    const s = 2 * Math.sqrt(1 + trace);
    out[0] = 0.25 * s;
    out[1] = (R[7] - R[5]) / s;
    out[2] = (R[2] - R[6]) / s;
    out[3] = (R[3] - R[1]) / s;
  } else if (R[0] > R[4] && R[0] > R[8]) {
    const s = 2 * Math.sqrt(1 + R[0] - R[4] - R[8]);
    out[0] = (R[7] - R[5]) / s;
    out[1] = 0.25 * s;
    out[2] = (R[1] + R[3]) / s;
    out[3] = (R[2] + R[6]) / s;
  } else if (R[4] > R[8]) {
    const s = 2 * Math.sqrt(1 + R[4] - R[0] - R[8]);
    out[0] = (R[2] - R[6]) / s;
    out[1] = (R[1] + R[3]) / s;
    out[2] = 0.25 * s;
    out[3] = (R[5] + R[7]) / s;
  } else {
    const s = 2 * Math.sqrt(1 + R[8] - R[0] - R[4]);
    out[0] = (R[3] - R[1]) / s;
    out[1] = (R[2] + R[6]) / s;
    out[2] = (R[5] + R[7]) / s;
    out[3] = 0.25 * s;
  }
  const n = Math.hypot(out[0], out[1], out[2], out[3]);
  for (let i = 0; i < 4; i++) out[i] /= n;
  return out;
}

/** Angle in degrees of Ra·Rbᵀ, i.e. how far apart two rotations are. */
export function rotationAngleDeg(Ra: Vec, Rb: Vec): number {
  // trace(Ra·Rbᵀ) = Σ Ra[i]·Rb[i] over all entries.
  let trace = 0;
  for (let i = 0; i < 9; i++) trace += Ra[i] * Rb[i];
  const cos = Math.min(1, Math.max(-1, (trace - 1) / 2));
  // acos loses precision near 0; the antisymmetric part gives sinθ accurately there.
  const M = new Float64Array(9);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) M[i * 3 + j] = Ra[i * 3] * Rb[j * 3] + Ra[i * 3 + 1] * Rb[j * 3 + 1] + Ra[i * 3 + 2] * Rb[j * 3 + 2];
  }
  const sin = 0.5 * Math.hypot(M[7] - M[5], M[2] - M[6], M[3] - M[1]);
  return (Math.atan2(sin, cos) * 180) / Math.PI;
}

/** The rotation nearest to M in the Frobenius norm: U·Vᵀ from M's SVD, with det fixed to +1. */
export function orthonormalize(M: Vec, out = new Float64Array(9)): Float64Array {
  const { U, V } = svd(M, 3, 3);
  const d = mat3Det(U) * mat3Det(V) < 0 ? -1 : 1;
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      out[i * 3 + j] = U[i * 3] * V[j * 3] + U[i * 3 + 1] * V[j * 3 + 1] + d * U[i * 3 + 2] * V[j * 3 + 2];
    }
  }
  return out;
}
