/** @module The texture stage's photos, decoded with sharp at a scale of the view's intrinsics. */
import sharp from "sharp";
import type { Intrinsics } from "../../scene/index.js";
import type { LoadedPhoto } from "./view-scan.js";

/** The pixel size of a photo read at `scale` × its intrinsics' size. */
export function photoSize(intrinsics: Pick<Intrinsics, "width" | "height">, scale: number): { width: number; height: number } {
  return { width: Math.max(1, Math.round(intrinsics.width * scale)), height: Math.max(1, Math.round(intrinsics.height * scale)) };
}

/** The photo at `path` at `scale` × its intrinsics' size; its pixels in shared memory when `shared` (threads then read them without a copy). */
export async function loadPhoto(path: string, intrinsics: Pick<Intrinsics, "width" | "height">, scale: number, shared = false): Promise<LoadedPhoto> {
  const { width, height } = photoSize(intrinsics, scale);
  const decoded = await sharp(path).removeAlpha().resize(width, height, { fit: "fill", kernel: "lanczos3" }).raw().toBuffer();
  const rgb = shared ? new Uint8Array(new SharedArrayBuffer(decoded.length)) : new Uint8Array(decoded.length);
  rgb.set(decoded);
  return { rgb, width, height, scale: width / intrinsics.width };
}

/** Mean colour of a 3×3 neighbourhood around (x, y) (pixel centres at +0.5). */
export function boxMean(photo: LoadedPhoto, x: number, y: number, out: Float32Array, at: number): void {
  const cx = Math.floor(x), cy = Math.floor(y);
  const sum = [0, 0, 0];
  let n = 0;
  for (let dy = -1; dy <= 1; dy++) {
    for (let dx = -1; dx <= 1; dx++) {
      const px = Math.min(photo.width - 1, Math.max(0, cx + dx)), py = Math.min(photo.height - 1, Math.max(0, cy + dy));
      const i = 3 * (py * photo.width + px);
      sum[0] += photo.rgb[i]; sum[1] += photo.rgb[i + 1]; sum[2] += photo.rgb[i + 2];
      n++;
    }
  }
  for (let ch = 0; ch < 3; ch++) out[at + ch] = sum[ch] / n;
}
