/**
 * @module The geometric types this layer works on. They are declared here, structurally
 * identical to compute/scene/camera.ts's `RigidTransform` and a subset of its `Intrinsics`,
 * because geometry sits below scene in the import order (math ← geometry ← scene); a scene
 * value passes wherever these are expected.
 */

/** A rigid transform x_b = R·x_a + t; `R` is row-major 3×3. */
export interface RigidTransform {
  R: Float64Array; // length 9, row-major
  t: Float64Array; // length 3
}

/** Pinhole + two radial terms (COLMAP RADIAL); pixels, OpenCV axes. */
export interface CameraIntrinsics {
  /** Focal length in pixels (square pixels). */
  focal: number;
  cx: number;
  cy: number;
  k1: number;
  k2: number;
}

/** Identity transform, fresh arrays. */
export function identityTransform(): RigidTransform {
  return { R: new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]), t: new Float64Array(3) };
}

/** x_b = R·x_a + t for one point, written into out. */
export function transformPoint(pose: RigidTransform, x: ArrayLike<number>, out = new Float64Array(3)): Float64Array {
  const { R, t } = pose;
  const x0 = x[0], x1 = x[1], x2 = x[2];
  out[0] = R[0] * x0 + R[1] * x1 + R[2] * x2 + t[0];
  out[1] = R[3] * x0 + R[4] * x1 + R[5] * x2 + t[1];
  out[2] = R[6] * x0 + R[7] * x1 + R[8] * x2 + t[2];
  return out;
}

/** The inverse transform (a_from_b from b_from_a): Rᵀ, −Rᵀt. */
export function invertTransform(pose: RigidTransform): RigidTransform {
  const { R, t } = pose;
  const Rt = new Float64Array([R[0], R[3], R[6], R[1], R[4], R[7], R[2], R[5], R[8]]);
  const tInv = new Float64Array([
    -(Rt[0] * t[0] + Rt[1] * t[1] + Rt[2] * t[2]),
    -(Rt[3] * t[0] + Rt[4] * t[1] + Rt[5] * t[2]),
    -(Rt[6] * t[0] + Rt[7] * t[1] + Rt[8] * t[2]),
  ]);
  return { R: Rt, t: tInv };
}

/** c_from_a = c_from_b ∘ b_from_a. */
export function composeTransforms(cFromB: RigidTransform, bFromA: RigidTransform): RigidTransform {
  const a = cFromB.R, b = bFromA.R;
  const R = new Float64Array(9);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) R[i * 3 + j] = a[i * 3] * b[j] + a[i * 3 + 1] * b[3 + j] + a[i * 3 + 2] * b[6 + j];
  }
  const t = transformPoint(cFromB, bFromA.t);
  return { R, t };
}

/** Camera centre in the source frame: C = −Rᵀt. */
export function poseCenter(pose: RigidTransform): Float64Array {
  return invertTransform(pose).t;
}
