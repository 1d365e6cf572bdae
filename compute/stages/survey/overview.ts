/**
 * @module 2× reduction of a block of rows for the next overview level (each overview pixel is
 * the 2×2 block of the level above it; at an odd edge the block has 1 or 2 pixels).
 *
 * - uint8 with alpha (the orthophoto): colour is the alpha-weighted mean, so unseen pixels
 *   (alpha 0) never darken the edge of the coverage, and alpha the mean of the block's alphas
 *   (GDAL's AVERAGE resampling of an RGBA raster does the same).
 * - uint8 without alpha: the plain mean.
 * - float32 (the DSM): the mean of the valid heights (not nodata, not NaN); nodata where the
 *   block has none. A mean smooths a roof edge over two pixels, which an overview's user (a
 *   quick look, a tile pyramid) expects, and it never invents heights where none were seen.
 */
import type { SampleKind } from "./tile-codec.js";

export interface RowBlock<T extends Uint8Array | Float32Array> {
  data: T;
  width: number;
  rows: number;
}

/** Output side of a 2× reduction. */
export function halfSide(side: number): number {
  return Math.ceil(side / 2);
}

export function reduceUint8(block: RowBlock<Uint8Array>, samplesPerPixel: number, alpha: boolean): RowBlock<Uint8Array> {
  const { data, width, rows } = block;
  const outWidth = halfSide(width), outRows = halfSide(rows);
  const out = new Uint8Array(outWidth * outRows * samplesPerPixel);
  const colourSamples = alpha ? samplesPerPixel - 1 : samplesPerPixel;
  const sums = new Float64Array(samplesPerPixel); // per-sample sums of the current 2×2 block
  for (let oy = 0; oy < outRows; oy++) {
    const y0 = 2 * oy, y1 = Math.min(y0 + 1, rows - 1);
    for (let ox = 0; ox < outWidth; ox++) {
      const x0 = 2 * ox, x1 = Math.min(x0 + 1, width - 1);
      sums.fill(0);
      let pixels = 0;
      for (let y = y0; y <= y1; y++) {
        for (let x = x0; x <= x1; x++) {
          const at = (y * width + x) * samplesPerPixel;
          const weight = alpha ? data[at + colourSamples] : 1;
          for (let s = 0; s < colourSamples; s++) sums[s] += weight * data[at + s];
          if (alpha) sums[colourSamples] += weight;
          pixels++;
        }
      }
      const o = (oy * outWidth + ox) * samplesPerPixel;
      const colourWeight = alpha ? sums[colourSamples] : pixels;
      if (colourWeight > 0) for (let s = 0; s < colourSamples; s++) out[o + s] = Math.round(sums[s] / colourWeight);
      if (alpha) out[o + colourSamples] = Math.round(sums[colourSamples] / pixels);
    }
  }
  return { data: out, width: outWidth, rows: outRows };
}

export function reduceFloat32(block: RowBlock<Float32Array>, nodata: number): RowBlock<Float32Array> {
  const { data, width, rows } = block;
  const outWidth = halfSide(width), outRows = halfSide(rows);
  const out = new Float32Array(outWidth * outRows);
  for (let oy = 0; oy < outRows; oy++) {
    const y0 = 2 * oy, y1 = Math.min(y0 + 1, rows - 1);
    for (let ox = 0; ox < outWidth; ox++) {
      const x0 = 2 * ox, x1 = Math.min(x0 + 1, width - 1);
      let sum = 0, valid = 0;
      for (let y = y0; y <= y1; y++) {
        for (let x = x0; x <= x1; x++) {
          const value = data[y * width + x];
          if (value === nodata || Number.isNaN(value)) continue;
          sum += value;
          valid++;
        }
      }
      out[oy * outWidth + ox] = valid > 0 ? sum / valid : nodata;
    }
  }
  return { data: out, width: outWidth, rows: outRows };
}

/** The reduction of `block` for a raster of `kind`. */
export function reduceRows(block: RowBlock<Uint8Array | Float32Array>, kind: SampleKind, samplesPerPixel: number, alpha: boolean, nodata: number): RowBlock<Uint8Array | Float32Array> {
  if (kind === "uint8") return reduceUint8(block as RowBlock<Uint8Array>, samplesPerPixel, alpha);
  if (samplesPerPixel !== 1) throw new Error("survey: float32 overviews are made for one band only");
  return reduceFloat32(block as RowBlock<Float32Array>, nodata);
}
