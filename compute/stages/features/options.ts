/** @module The features stage's options and their defaults. */
import { availableParallelism } from "node:os";

export interface Options {
  /** Detection runs on the image downscaled to this long side (presets: preview 1200, standard 2000, high 2400; opencv-js heap ~1 GiB). */
  maxImageSide: number;
  /**
   * Images whose long side is at most this are detected on a 2× upsampled copy (worker.ts,
   * Lowe's octave −1), keypoints reported in the image's own pixels; 0 turns it off.
   */
  upsampleMaxSide: number;
  /** Keypoints kept per image, strongest first, spread over a grid. */
  maxFeatures: number;
  /**
   * AKAZE detector response threshold (OpenCV default 0.001). Low enough that detection finds
   * more than maxFeatures on ordinary photos (fountain-P11 at 2000 px: ~3.6k at 0.0006, ~10k at
   * 0.0002) and the grid selection chooses; detection time hardly depends on it. An image with
   * fewer than maxFeatures/4 is detected again at the lowest threshold, 2e-5 (detect.ts).
   */
  threshold: number;
  /**
   * AKAZE sublevels per octave of the nonlinear scale space (OpenCV default 4). Fewer is
   * faster but coarser in scale: at 2 (with the threshold halved for the same keypoint count)
   * detection took 0.23 instead of 0.42 s per doubled 640-px image, smoke stayed at 0.065°,
   * but templeSparseRing came out 1.27° median with one camera 17° off (bench sfm, 2026-11-22).
   */
  octaveLayers: number;
  /** Worker threads; default all cores. */
  workers: number;
}

export const DEFAULTS: Options = {
  maxImageSide: 2000,
  upsampleMaxSide: 1000,
  maxFeatures: 8000,
  threshold: 0.0002,
  octaveLayers: 4,
  workers: availableParallelism(),
};
