/** @module What ingest hands to later stages: one entry per usable image or video keyframe. */
import type { FocalPriorSource } from "./camera.js";

export interface ImageRef {
  /** Dense index 0..n-1, stable for the whole job. */
  index: number;
  /** The camera name of docs/API.md: the uploaded file's name, or `<file name>#<frame index>`. */
  name: string;
  /** Path of the upright (EXIF orientation applied) 8-bit RGB image on disk, readable by sharp. */
  path: string;
  width: number;
  height: number;
  /**
   * The upright photo's size as uploaded, before ingest downscaled it to `width` × `height`
   * (stills only; absent = the same size). Pixel positions a client states on the photo as it
   * sees it (survey control marks) are scaled by width / sourceWidth into these pixels.
   */
  sourceWidth?: number;
  sourceHeight?: number;
  /** Focal-length prior in pixels of this (upright) image; SfM refines it. */
  focalPrior: number;
  focalPriorSource: FocalPriorSource;
  /** For video keyframes: the source file and 0-based frame index, so matching can pair neighbours. */
  video?: { file: string; frame: number };
  /** EXIF GPS position of a still, so matching can pair photos taken near each other. */
  gps?: GpsPosition;
  /**
   * A drone's gimbal pitch for this upright image, degrees above the horizon (−90: straight
   * down); only for photos stored upright (EXIF orientation 1), where the image's axes are the
   * gimbal's. Tells sfm/frame.ts where up is in a photo that looks down.
   */
  gimbalPitchDeg?: number;
}

/** Where a photo was taken: WGS 84 degrees, metres above sea level. */
export interface GpsPosition {
  latitudeDeg: number;
  longitudeDeg: number;
  altitudeM?: number;
  /**
   * The receiver's stated horizontal accuracy, metres per axis: centimetres for RTK, metres for
   * a phone. From an RTK drone's XMP deviations, EXIF GPSHPositioningError or Pix4D's XMP.
   */
  horizontalErrorM?: number;
  /** The receiver's stated vertical accuracy, metres (from the XMP of an RTK drone or of Pix4D's namespace). */
  verticalErrorM?: number;
}

export interface SkippedInput {
  name: string;
  reason: string;
}
