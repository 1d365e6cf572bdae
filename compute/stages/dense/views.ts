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

/** Floats per camera in packCameras: camFromWorld R (9, row-major), t (3), focal, cx, cy, width, height. */
export const PACKED_CAMERA = 17;

/** The views' cameras in one flat array (PACKED_CAMERA floats each), for loops that project into many views. */
export function packCameras(views: ReadonlyArray<Pick<DenseView, "R" | "t" | "focal" | "cx" | "cy" | "width" | "height">>): Float64Array {
  const cameras = new Float64Array(PACKED_CAMERA * views.length);
  views.forEach((view, m) => {
    const o = PACKED_CAMERA * m;
    cameras.set(view.R.subarray(0, 9), o);
    cameras.set(view.t.subarray(0, 3), o + 9);
    cameras[o + 12] = view.focal;
    cameras[o + 13] = view.cx;
    cameras[o + 14] = view.cy;
    cameras[o + 15] = view.width;
    cameras[o + 16] = view.height;
  });
  return cameras;
}
