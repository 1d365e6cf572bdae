/** @module The sparse model that structure from motion produces. */
import type { Intrinsics, RigidTransform } from "./camera.js";

export interface RegisteredView {
  imageIndex: number;
  name: string;
  intrinsics: Intrinsics;
  camFromWorld: RigidTransform;
}

export interface UnregisteredImage {
  imageIndex: number;
  name: string;
  reason: string;
}

export interface SparsePoints {
  count: number;
  /** x, y, z per point (length 3·count), world frame. */
  xyz: Float64Array;
  /** RGB per point (length 3·count). */
  rgb: Uint8Array;
  /** Mean reprojection error in pixels per point. */
  error: Float32Array;
  /** For each point, the views that see it, in CSR form (indices into `views`) and the keypoints. */
  obsOffsets: Uint32Array;
  obsViews: Uint32Array;
  obsKeypoints: Uint32Array;
}

export interface SparseModel {
  /**
   * World frame: right-handed, +Y up (from the cameras' mean up direction), origin near the
   * centre of the points, units the reconstruction's own. With ground control applied (sfm's
   * `controlPoints`, its report's `control.applied`): the control's frame instead, metres,
   * x east, y up, z south.
   */
  views: RegisteredView[];
  unregistered: UnregisteredImage[];
  points: SparsePoints;
  /** Sizes of the other models when the scene fell apart into several (largest kept). */
  otherModelSizes: number[];
}
