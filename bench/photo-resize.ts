/**
 * @module A photo at the size the views bench renders at, its pixel centres where the render's are.
 *
 * Why not sharp alone: libvips puts an enlarged image half an output pixel right of and below
 * where scaling by the size ratio puts it (a blob at x in a 640-px photo lands at 1.2·x + 0.52 of
 * the 768-px copy; reductions land within 0.02 px). The views bench renders at 768 px, so it
 * enlarges the 640-px photos (synthetic/smoke, templeSparseRing) and scored them half a pixel
 * off the render: SSIM falls by about 0.04 for a half-pixel shift of a textured photo.
 * Enlargements are therefore resampled here, reductions stay with sharp (it filters them).
 */
import sharp from "sharp";

/**
 * Keys' cubic convolution weight (a = −0.5; Keys, "Cubic convolution interpolation for digital
 * image processing", IEEE TASSP 1981): interpolating, so a 1:1 copy is exact.
 */
function keys(distance: number): number {
  const x = Math.abs(distance);
  if (x < 1) return 1.5 * x * x * x - 2.5 * x * x + 1;
  if (x < 2) return -0.5 * x * x * x + 2.5 * x * x - 4 * x + 2;
  return 0;
}

/** For each output index, the four source indices (clamped) and their weights along one axis. */
function taps(sourceSize: number, outputSize: number): { index: Int32Array; weight: Float64Array } {
  const index = new Int32Array(4 * outputSize);
  const weight = new Float64Array(4 * outputSize);
  const ratio = sourceSize / outputSize;
  for (let o = 0; o < outputSize; o++) {
    // Output pixel o covers [o, o + 1]; its centre o + ½ is at (o + ½)·ratio in the source's
    // continuous coordinates, i.e. at source index (o + ½)·ratio − ½.
    const at = (o + 0.5) * ratio - 0.5;
    const first = Math.floor(at) - 1;
    let sum = 0;
    for (let k = 0; k < 4; k++) {
      const w = keys(at - (first + k));
      index[4 * o + k] = Math.min(sourceSize - 1, Math.max(0, first + k));
      weight[4 * o + k] = w;
      sum += w;
    }
    for (let k = 0; k < 4; k++) weight[4 * o + k] /= sum;
  }
  return { index, weight };
}

/** Enlarges interleaved 8-bit pixels with pixel centres aligned (separable Keys cubic). */
export function enlarge(pixels: Uint8Array, width: number, height: number, channels: number, outWidth: number, outHeight: number): Uint8Array {
  const across = taps(width, outWidth);
  const down = taps(height, outHeight);
  const rows = new Float64Array(outWidth * height * channels);
  for (let y = 0; y < height; y++) {
    for (let o = 0; o < outWidth; o++) {
      for (let ch = 0; ch < channels; ch++) {
        let sum = 0;
        for (let k = 0; k < 4; k++) sum += across.weight[4 * o + k] * pixels[(y * width + across.index[4 * o + k]) * channels + ch];
        rows[(y * outWidth + o) * channels + ch] = sum;
      }
    }
  }
  const out = new Uint8Array(outWidth * outHeight * channels);
  for (let o = 0; o < outHeight; o++) {
    for (let x = 0; x < outWidth; x++) {
      for (let ch = 0; ch < channels; ch++) {
        let sum = 0;
        for (let k = 0; k < 4; k++) sum += down.weight[4 * o + k] * rows[(down.index[4 * o + k] * outWidth + x) * channels + ch];
        out[(o * outWidth + x) * channels + ch] = Math.min(255, Math.max(0, Math.round(sum)));
      }
    }
  }
  return out;
}

/** The photo at `path` as RGB at width × height, pixel centres aligned whether it is enlarged or reduced. */
export async function photoAtSize(path: string, width: number, height: number): Promise<Uint8Array> {
  const image = sharp(path).removeAlpha().toColourspace("srgb");
  const { width: sourceWidth = 0, height: sourceHeight = 0 } = await image.metadata();
  if (width > sourceWidth || height > sourceHeight) {
    const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
    return enlarge(new Uint8Array(data), info.width, info.height, info.channels, width, height);
  }
  return new Uint8Array(await image.resize(width, height, { fit: "fill" }).raw().toBuffer());
}
