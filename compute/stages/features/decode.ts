/**
 * @module The features stage's image decoding, on the calling thread: sharp (libvips, on
 * libuv's thread pool) decodes and resizes each image to the RGB the detection starts from,
 * and the buffer is transferred to the worker that detects on it.
 *
 * Why not in the worker: importing sharp costs each worker thread about 0.2 s of CPU before its
 * first task, which on a 2-core machine delays a 10-image job's detection by about that much;
 * the calling thread has sharp loaded already (ingest uses it).
 */
import sharp from "sharp";
import type { ImageRef } from "../../scene/images.js";
import { detectionFactor } from "./scale.js";

/** What a worker detects on: RGB at detection size, or at the image's own size when the detection upsamples it 2×. */
export interface DetectionPixels {
  rgb: Uint8Array;
  width: number;
  height: number;
  /** Detection pixels per image pixel (detectionFactor). */
  factor: number;
  detectWidth: number;
  detectHeight: number;
}

export async function decodeForDetection(image: ImageRef, maxImageSide: number, upsampleMaxSide: number): Promise<DetectionPixels> {
  const factor = detectionFactor(image.width, image.height, maxImageSide, upsampleMaxSide);
  const detectWidth = Math.max(1, Math.round(image.width * factor));
  const detectHeight = Math.max(1, Math.round(image.height * factor));
  // Downscaling is sharp's (centre-aligned lanczos3); the 2× upsampling is upsample2x's, in the worker.
  const width = factor === 2 ? image.width : detectWidth;
  const height = factor === 2 ? image.height : detectHeight;
  const { data } = await sharp(image.path).resize(width, height, { fit: "fill", kernel: "lanczos3" }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  // A Buffer may be a view into a shared pool; copy into an ArrayBuffer of its own to transfer.
  const rgb = new Uint8Array(data.length);
  rgb.set(data);
  return { rgb, width, height, factor, detectWidth, detectHeight };
}
