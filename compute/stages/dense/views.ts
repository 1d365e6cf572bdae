/** @module The dense stage's per-view data: an undistorted pinhole image at working resolution and its pose. */
import type { UndistortedImage } from "./undistort.js";

/** One registered view prepared for stereo. Intrinsics are pinhole (distortion removed) at working size. */
export interface DenseView extends UndistortedImage {
  /** Index into SparseModel.views. */
  viewIndex: number;
  name: string;
  /** camFromWorld, row-major rotation and translation. */
  R: Float64Array;
  t: Float64Array;
}

/** Pose of `src` relative to `ref`: x_src = R·x_ref + t (srcFromRef). */
export function relativePose(ref: { R: Float64Array; t: Float64Array }, src: { R: Float64Array; t: Float64Array }): { R: Float64Array; t: Float64Array } {
  const R = new Float64Array(9);
  // R = R_src · R_refᵀ
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      R[3 * i + j] = src.R[3 * i] * ref.R[3 * j] + src.R[3 * i + 1] * ref.R[3 * j + 1] + src.R[3 * i + 2] * ref.R[3 * j + 2];
    }
  }
  const t = new Float64Array(3);
  for (let i = 0; i < 3; i++) t[i] = src.t[i] - (R[3 * i] * ref.t[0] + R[3 * i + 1] * ref.t[1] + R[3 * i + 2] * ref.t[2]);
  return { R, t };
}
