/**
 * @module The overlap map as a PNG (sharp encodes the raw RGB), one pixel per ground cell, north
 * up, coloured as Pix4D's quality report: red where one photo sees the ground, through orange
 * and yellow, to green where five or more do; white where none does. The legend is the
 * report's (html.ts), drawn from the same OVERLAP_COLOURS.
 */
import sharp from "sharp";
import type { OverlapGrid } from "./overlap.js";

/** sRGB colour of a cell seen by 0, 1, 2, 3, 4 and 5 or more photos (ColorBrewer RdYlGn, 5 classes; white for none). */
export const OVERLAP_COLOURS: ReadonlyArray<readonly [number, number, number]> = [
  [255, 255, 255],
  [215, 25, 28],
  [253, 174, 97],
  [255, 255, 191],
  [166, 217, 106],
  [26, 150, 65],
];

export const OVERLAP_LABELS = ["none", "1", "2", "3", "4", "5+"] as const;

export function overlapRgb(grid: Pick<OverlapGrid, "width" | "height" | "counts">): Uint8Array {
  const rgb = new Uint8Array(3 * grid.width * grid.height);
  for (let i = 0; i < grid.counts.length; i++) rgb.set(OVERLAP_COLOURS[Math.min(5, grid.counts[i])], 3 * i);
  return rgb;
}

export async function overlapPng(grid: Pick<OverlapGrid, "width" | "height" | "counts">): Promise<Buffer> {
  return sharp(overlapRgb(grid), { raw: { width: grid.width, height: grid.height, channels: 3 } }).png({ compressionLevel: 9 }).toBuffer();
}
