/** @module Keypoints and descriptors of one image, in flat typed arrays. */

export interface ImageFeatures {
  imageIndex: number;
  /** Keypoint count. */
  count: number;
  /** x, y per keypoint in pixels of the full-resolution upright image (length 2·count). */
  xy: Float32Array;
  /** Scale (pixels, full resolution) and orientation (radians) per keypoint. */
  scale: Float32Array;
  angle: Float32Array;
  /** Descriptors, `descriptorBytes` per keypoint (binary descriptors compared with Hamming distance). */
  descriptors: Uint8Array;
  descriptorBytes: number;
  /** RGB of the image at each keypoint (length 3·count), for coloring sparse points. */
  rgb: Uint8Array;
}

/**
 * Keypoints of an image's simulated oblique views (features/views.ts), one set per view, in the
 * image's own pixels: matched view by view against other photos' plain keypoints when plain
 * matching leaves photos without neighbours.
 */
export interface SimulatedViews {
  imageIndex: number;
  views: ImageFeatures[];
}
