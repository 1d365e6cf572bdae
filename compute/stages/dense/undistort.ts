/**
 * @module Load a registered image at working resolution and remove its radial distortion.
 *
 * The image is first resized with sharp (area-averaging, so no aliasing when shrinking); the
 * distortion coefficients act on normalized coordinates and so are unchanged by the scale. Each
 * output pixel of the pinhole image is then mapped through the forward distortion model of
 * compute/scene/camera.ts into the distorted image and sampled bilinearly (inverse mapping, so
 * no holes).
 */
import sharp from "sharp";
import type { ImageRef, Intrinsics } from "../../scene/index.js";

/** A distortion-free pinhole image in grey, the shape every dense step works on. */
export interface PinholeGrey {
  width: number;
  height: number;
  focal: number;
  cx: number;
  cy: number;
  /** Grey values in [0, 1], row-major (width·height). */
  grey: Float32Array;
}

export interface UndistortedImage extends PinholeGrey {
  /** RGB bytes (3·width·height). */
  rgb: Uint8Array;
}

export async function loadUndistorted(image: Pick<ImageRef, "path">, intrinsics: Intrinsics, maxImageSide: number): Promise<UndistortedImage> {
  const scale = Math.min(1, maxImageSide / Math.max(intrinsics.width, intrinsics.height));
  const width = Math.max(1, Math.round(intrinsics.width * scale));
  const height = Math.max(1, Math.round(intrinsics.height * scale));
  const sx = width / intrinsics.width;
  const sy = height / intrinsics.height;
  const { data } = await sharp(image.path).removeAlpha().resize(width, height, { fit: "fill", kernel: "lanczos3" }).raw().toBuffer({ resolveWithObject: true });
  const distorted = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const focal = intrinsics.focal * sx;
  const cx = intrinsics.cx * sx;
  const cy = intrinsics.cy * sy;
  const rgb = intrinsics.k1 === 0 && intrinsics.k2 === 0 ? distorted.slice() : undistortRgb(distorted, width, height, focal, cx, cy, intrinsics.k1, intrinsics.k2);
  return { width, height, focal, cx, cy, grey: toGrey(rgb), rgb };
}

/** Pinhole RGB from a distorted RGB image with the same focal and principal point. */
export function undistortRgb(src: Uint8Array, width: number, height: number, focal: number, cx: number, cy: number, k1: number, k2: number): Uint8Array {
  const out = new Uint8Array(width * height * 3);
  for (let row = 0; row < height; row++) {
    const y = (row + 0.5 - cy) / focal;
    for (let col = 0; col < width; col++) {
      const x = (col + 0.5 - cx) / focal;
      const r2 = x * x + y * y;
      const d = 1 + k1 * r2 + k2 * r2 * r2;
      // Continuous source position, shifted to pixel-index space (centres at integers).
      const u = Math.min(width - 1, Math.max(0, focal * d * x + cx - 0.5));
      const v = Math.min(height - 1, Math.max(0, focal * d * y + cy - 0.5));
      const u0 = Math.min(width - 2, Math.floor(u));
      const v0 = Math.min(height - 2, Math.floor(v));
      const fu = u - u0;
      const fv = v - v0;
      const p = 3 * (v0 * width + u0);
      const q = p + 3 * width;
      const o = 3 * (row * width + col);
      for (let ch = 0; ch < 3; ch++) {
        const top = src[p + ch] + fu * (src[p + 3 + ch] - src[p + ch]);
        const bottom = src[q + ch] + fu * (src[q + 3 + ch] - src[q + ch]);
        out[o + ch] = Math.round(top + fv * (bottom - top));
      }
    }
  }
  return out;
}

/** Rec. 601 luma in [0, 1]. */
export function toGrey(rgb: Uint8Array): Float32Array {
  const grey = new Float32Array(rgb.length / 3);
  for (let i = 0; i < grey.length; i++) grey[i] = (0.299 * rgb[3 * i] + 0.587 * rgb[3 * i + 1] + 0.114 * rgb[3 * i + 2]) / 255;
  return grey;
}
