/**
 * @module Ingest one still image (JPEG, PNG, HEIC): decode, make upright, downscale to at most
 * `maxImageSide`, write it into the work directory, and compute its focal prior.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import decodeHeic from "heic-decode";
import sharp, { type Sharp } from "sharp";
import type { ImageRef } from "../../scene/images.js";
import { jpegOptions } from "../../util/jpeg.js";
import { readCameraExif } from "./exif.js";
import { focalPrior } from "./focal.js";
import type { InputKind } from "./sniff.js";

export interface StillOptions {
  maxImageSide: number;
  minImageSide: number;
  defaultFocalFactor: number;
  jpegQuality: number;
}

export type IngestedImage = Omit<ImageRef, "index"> & { notes: Record<string, unknown> };

/** Upright decoded size: EXIF orientations 5..8 are 90° rotations that swap width and height. */
function uprightSize(width: number, height: number, orientation: number | undefined): [number, number] {
  return orientation !== undefined && orientation >= 5 && orientation <= 8 ? [height, width] : [width, height];
}

export async function ingestStill(file: { path: string; name: string }, kind: InputKind, outStem: string, workDir: string, options: StillOptions): Promise<IngestedImage> {
  const bytes = await readFile(file.path);
  const exif = readCameraExif(bytes);
  let source: Sharp;
  let width: number;
  let height: number;
  let orientation = exif.orientation ?? 1;
  if (kind === "heic") {
    // libheif applies the container's irot/imir transforms while decoding, and those are
    // authoritative for HEIF (ISO/IEC 23008-12 §6.5.10); applying EXIF Orientation on top
    // would rotate Apple photos twice.
    const decoded = await decodeHeic({ buffer: bytes });
    width = decoded.width;
    height = decoded.height;
    const rgba = Buffer.from(decoded.data.buffer, decoded.data.byteOffset, decoded.data.byteLength);
    source = sharp(rgba, { raw: { width, height, channels: 4 } }).removeAlpha();
    orientation = 1;
  } else {
    // failOn "warning" rejects truncated or corrupt data instead of returning grey pixels.
    const meta = await sharp(bytes, { failOn: "warning" }).metadata();
    [width, height] = uprightSize(meta.width, meta.height, meta.orientation);
    orientation = meta.orientation ?? 1;
    source = sharp(bytes, { failOn: "warning" }).rotate();
  }
  if (Math.min(width, height) < options.minImageSide) throw new Error(`image too small (${width}×${height}, need ≥ ${options.minImageSide} px per side)`);
  const scale = Math.min(1, options.maxImageSide / Math.max(width, height));
  const outWidth = Math.max(1, Math.round(width * scale));
  const outHeight = Math.max(1, Math.round(height * scale));
  const prior = focalPrior(exif, width, height, options.defaultFocalFactor);
  const path = join(workDir, `${outStem}.jpg`);
  // Always decode and re-encode: a full decode is what proves the file is not truncated, and
  // the output is then uniformly upright 8-bit sRGB (CMYK, grey, 16-bit and alpha inputs included).
  let pipeline = source.toColorspace("srgb");
  if (scale < 1) pipeline = pipeline.resize(outWidth, outHeight, { fit: "fill", kernel: "lanczos3" });
  await pipeline.removeAlpha().jpeg(jpegOptions(options.jpegQuality)).toFile(path);
  const notes = { kind, width: outWidth, height: outHeight, orientation, downscale: scale, focal: prior.focal * scale, focalSource: prior.detail };
  // A pitch is about the gimbal's own axes, which a rotated image (EXIF orientation ≠ 1, or a
  // HEIF transform applied while decoding) no longer has.
  const pitch = exif.gimbalPitchDeg !== undefined && kind !== "heic" && orientation === 1 ? { gimbalPitchDeg: exif.gimbalPitchDeg } : {};
  return { name: file.name, path, width: outWidth, height: outHeight, sourceWidth: width, sourceHeight: height, focalPrior: prior.focal * scale, focalPriorSource: prior.source, ...(exif.gps ? { gps: exif.gps } : {}), ...pitch, notes };
}
