/**
 * @module Camera model shared by every stage.
 *
 * Pinhole with two radial distortion terms (COLMAP's RADIAL model):
 *   x_cam = R · X_world + t            (camFromWorld)
 *   (u, v) = (x/z, y/z);  r2 = u² + v²;  d = 1 + k1·r2 + k2·r2²
 *   pixel = (focal · d · u + cx, focal · d · v + cy)
 * OpenCV axes: x right, y down, z forward. Pixel origin at the top-left corner of the
 * top-left pixel, so the centre of pixel (0, 0) is (0.5, 0.5).
 */

export interface Intrinsics {
  width: number;
  height: number;
  /** Focal length in pixels (square pixels). */
  focal: number;
  cx: number;
  cy: number;
  k1: number;
  k2: number;
}

/** A rigid transform x_b = R·x_a + t; `R` is row-major 3×3. */
export interface RigidTransform {
  R: Float64Array; // length 9, row-major
  t: Float64Array; // length 3
}

/** Where a focal-length prior came from, so SfM knows how much to trust it. */
export type FocalPriorSource = "exif35mm" | "exif-sensor" | "default";

export function defaultIntrinsics(width: number, height: number, focal: number): Intrinsics {
  return { width, height, focal, cx: width / 2, cy: height / 2, k1: 0, k2: 0 };
}

/** Camera centre in world coordinates: C = -Rᵀ t. */
export function cameraCenter(camFromWorld: RigidTransform): Float64Array {
  const { R, t } = camFromWorld;
  return new Float64Array([
    -(R[0] * t[0] + R[3] * t[1] + R[6] * t[2]),
    -(R[1] * t[0] + R[4] * t[1] + R[7] * t[2]),
    -(R[2] * t[0] + R[5] * t[1] + R[8] * t[2]),
  ]);
}
