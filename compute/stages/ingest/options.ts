/** @module The ingest stage's options and their defaults (their own module: video.ts reads them too). */

export interface Options {
  /** Long side of the stored images; larger inputs are downscaled (focal prior scaled with them). */
  maxImageSide: number;
  /** Smaller images are skipped: too few pixels to match reliably. */
  minImageSide: number;
  /** Keyframe bounds per video. */
  videoMaxKeyframes: number;
  videoMinKeyframes: number;
  /** A keyframe window closes when the image has moved this fraction of the frame width since the last keyframe. */
  videoMaxMotion: number;
  /** Long side of the grey frames used to score sharpness and motion. */
  videoAnalysisSide: number;
  /** Focal prior without EXIF: factor · max(w, h). 1.2 ≈ 45° horizontal FOV for 4:3 (see focal.ts). */
  defaultFocalFactor: number;
  /** Quality of the JPEGs written to the work directory (4:4:4 chroma). */
  jpegQuality: number;
}

export const DEFAULTS: Options = {
  maxImageSide: 4096,
  minImageSide: 64,
  videoMaxKeyframes: 120,
  videoMinKeyframes: 8,
  videoMaxMotion: 0.1,
  videoAnalysisSide: 320,
  defaultFocalFactor: 1.2,
  jpegQuality: 95,
};
