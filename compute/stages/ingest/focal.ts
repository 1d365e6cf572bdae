/**
 * @module Focal-length prior in pixels from EXIF, in order of trust:
 *  1. FocalLengthIn35mmFilm: the 35 mm-equivalent focal length. Cameras derive it from the
 *     diagonal crop factor (CIPA DC-008 / common practice), so f_px = f35 · diag_px / 43.27 mm
 *     (43.27 = the full-frame diagonal). For a 3:2 image this equals f35/36 · max(w, h); for 4:3
 *     it is closer to the truth (SceauxCastle, Kodak Z612: 2865 px vs 2753 by the long-side rule,
 *     ground truth 2906).
 *  2. FocalLength (mm) with FocalPlaneXResolution (pixels per unit on the sensor).
 *  3. FocalLength (mm) with a sensor width from a small table of camera models.
 *  4. default: factor · max(w, h) (factor 1.2 ≈ a 43° horizontal field of view, typical of
 *     phone main cameras and kit zooms at the wide end; SfM refines it).
 * Each EXIF-derived value must give a plausible field of view, else the next source is tried:
 * EXIF is often wrong (digital zoom, adapters, FocalPlaneXResolution of the full sensor).
 */
import type { FocalPriorSource } from "../../scene/camera.js";
import type { CameraExif } from "./exif.js";

const FULL_FRAME_DIAGONAL_MM = Math.hypot(36, 24);
/** Plausible focal / long side: 0.3 (≈ 118° FOV) to 8 (≈ 7° FOV). */
const MIN_FOCAL_FACTOR = 0.3;
const MAX_FOCAL_FACTOR = 8;

/**
 * Sensor widths (mm) of a few specific models that write FocalLength but neither the 35 mm
 * equivalent nor FocalPlane tags. Keys are lower-case substrings of "make model" and must not
 * match other sensors (phones always write FocalLengthIn35mmFilm, so none are listed).
 */
const SENSOR_WIDTH_MM: Array<[string, number]> = [
  ["kodak z612", 5.76], // 1/2.5"; SceauxCastle: 1% from the calibrated focal
  ["canon eos 5d", 35.8], // full frame, all marks
  ["nikon d800", 35.9],
  ["nikon d90", 23.6],
  ["canon eos 600d", 22.3],
  ["dji fc330", 6.17], // Phantom 4, 1/2.3"
  ["dji fc6310", 13.2], // Phantom 4 Pro, 1"
];

export interface FocalPrior {
  focal: number;
  source: FocalPriorSource;
  /** Which rule gave it, for the report. */
  detail: string;
}

/** Focal prior in pixels of an image `width`×`height` (the decoded size EXIF describes). */
export function focalPrior(exif: CameraExif, width: number, height: number, defaultFocalFactor: number): FocalPrior {
  const longSide = Math.max(width, height);
  const plausible = (f: number) => f >= MIN_FOCAL_FACTOR * longSide && f <= MAX_FOCAL_FACTOR * longSide;
  if (exif.focal35mm) {
    const focal = (exif.focal35mm * Math.hypot(width, height)) / FULL_FRAME_DIAGONAL_MM;
    if (plausible(focal)) return { focal, source: "exif35mm", detail: `FocalLengthIn35mmFilm ${exif.focal35mm} mm` };
  }
  if (exif.focalMm && exif.focalPlaneXResolution && exif.focalPlaneUnitMm) {
    // Focal-plane resolution refers to PixelXDimension; rescale to the decoded size.
    const tagLong = Math.max(exif.pixelWidth ?? 0, exif.pixelHeight ?? 0);
    const rescale = tagLong > 0 ? longSide / tagLong : 1;
    const focal = ((exif.focalMm * exif.focalPlaneXResolution) / exif.focalPlaneUnitMm) * rescale;
    if (plausible(focal)) return { focal, source: "exif-sensor", detail: `FocalLength ${exif.focalMm} mm, FocalPlaneXResolution` };
  }
  const model = `${exif.make ?? ""} ${exif.model ?? ""}`.toLowerCase();
  const known = SENSOR_WIDTH_MM.find(([key]) => model.includes(key));
  if (exif.focalMm && known) {
    const focal = (exif.focalMm / known[1]) * longSide;
    if (plausible(focal)) return { focal, source: "exif-sensor", detail: `FocalLength ${exif.focalMm} mm, sensor ${known[1]} mm (${known[0]})` };
  }
  return { focal: defaultFocalFactor * longSide, source: "default", detail: `default ${defaultFocalFactor} · long side` };
}
