/**
 * @module glTF camera parameters and node transforms of the registered views.
 *
 * A view's camFromWorld maps world points into OpenCV camera axes (x right, y down, looking
 * down +z). A glTF camera looks down its node's local −z with +y up (glTF 2.0 §3.10), so the
 * node's rotation is worldFromCam · diag(1, −1, −1): the camera's x stays, y and z flip.
 */
import type { RegisteredView } from "../../scene/index.js";

export interface CameraNodePose {
  /** Camera centre in world coordinates, C = −Rᵀt. */
  translation: [number, number, number];
  /** Unit quaternion (x, y, z, w) of worldFromGltfCam. */
  rotation: [number, number, number, number];
}

/** Vertical field of view in radians: the image's full height seen at the focal length. */
export function verticalFov(view: RegisteredView): number {
  return 2 * Math.atan(view.intrinsics.height / (2 * view.intrinsics.focal));
}

/** Rotation matrix (row-major 3×3) to a unit quaternion (x, y, z, w), Shepperd's method (1978). */
export function quaternionFromMatrix(m: ArrayLike<number>): [number, number, number, number] {
  const [m00, m01, m02, m10, m11, m12, m20, m21, m22] = Array.from(m);
  const trace = m00 + m11 + m22;
  let x: number, y: number, z: number, w: number;
  if (trace > 0) {
    const s = 2 * Math.sqrt(trace + 1);
    w = s / 4; x = (m21 - m12) / s; y = (m02 - m20) / s; z = (m10 - m01) / s;
  } else if (m00 > m11 && m00 > m22) {
    const s = 2 * Math.sqrt(1 + m00 - m11 - m22);
    w = (m21 - m12) / s; x = s / 4; y = (m01 + m10) / s; z = (m02 + m20) / s;
  } else if (m11 > m22) {
    const s = 2 * Math.sqrt(1 + m11 - m00 - m22);
    w = (m02 - m20) / s; x = (m01 + m10) / s; y = s / 4; z = (m12 + m21) / s;
  } else {
    const s = 2 * Math.sqrt(1 + m22 - m00 - m11);
    w = (m10 - m01) / s; x = (m02 + m20) / s; y = (m12 + m21) / s; z = s / 4;
  }
  const norm = Math.hypot(x, y, z, w);
  return [x / norm, y / norm, z / norm, w / norm];
}

export function cameraNodePose(view: RegisteredView): CameraNodePose {
  const { R, t } = view.camFromWorld;
  // worldFromCam rotation is Rᵀ; its columns are the camera axes in world coordinates.
  // Multiplying by diag(1, −1, −1) on the right negates the y and z columns.
  const worldFromGltfCam = [
    R[0], -R[3], -R[6],
    R[1], -R[4], -R[7],
    R[2], -R[5], -R[8],
  ];
  const translation: [number, number, number] = [
    -(R[0] * t[0] + R[3] * t[1] + R[6] * t[2]),
    -(R[1] * t[0] + R[4] * t[1] + R[7] * t[2]),
    -(R[2] * t[0] + R[5] * t[1] + R[8] * t[2]),
  ];
  return { translation, rotation: quaternionFromMatrix(worldFromGltfCam) };
}
