/**
 * @module PatchMatch's matching window: its samples' offsets from the centre pixel, its shape, and
 * the reference window's grey values and bilateral weights.
 *
 * "square": every sample of a (2r + 1)² grid at `step` pixels. "checker": the grid's samples of
 * one checkerboard colour (the centre's), the sparse pattern of Gipuma's and ACMM's kernels
 * (Galliani et al., ICCV 2015 §4; Xu & Tao, CVPR 2019: windows of 11 × 11 px sampled every other
 * pixel). It spans the same pixels with about half the samples, so a cost costs about half.
 */
import { bilateralWeight } from "./bilateral-weight.js";
import type { CostWindow } from "./cost-kernel.js";

export type WindowPattern = "square" | "checker";

/** Sample offsets (x, y) in pixels, row by row. */
export function windowOffsets(radius: number, step: number, pattern: WindowPattern = "square"): { dx: number[]; dy: number[] } {
  const dx: number[] = [];
  const dy: number[] = [];
  for (let j = -radius; j <= radius; j++) {
    for (let i = -radius; i <= radius; i++) {
      if (pattern === "checker" && ((i + j) & 1) !== 0) continue;
      dx.push(i * step);
      dy.push(j * step);
    }
  }
  return { dx, dy };
}

/** A window's samples: their count, the farthest one's offset in pixels, and per sample the unclamped offsets and the bilateral weight's spatial part. */
export interface WindowShape {
  sampleCount: number;
  reach: number;
  spatialWeight: Float32Array;
  baseDx: Float32Array;
  baseDy: Float32Array;
}

export function windowShape(radius: number, step: number, pattern: WindowPattern | undefined, sigmaSpatial: number): WindowShape {
  const offsets = windowOffsets(radius, step, pattern);
  // The kernel scores samples four at a time; the padding's weight stays 0.
  const length = Math.ceil(offsets.dx.length / 4) * 4;
  const shape = { sampleCount: offsets.dx.length, reach: radius * step, spatialWeight: new Float32Array(length), baseDx: new Float32Array(length), baseDy: new Float32Array(length) };
  for (let i = 0; i < shape.sampleCount; i++) {
    const dx = offsets.dx[i];
    const dy = offsets.dy[i];
    shape.baseDx[i] = dx;
    shape.baseDy[i] = dy;
    shape.spatialWeight[i] = Math.exp(-(dx * dx + dy * dy) / (2 * sigmaSpatial * sigmaSpatial));
  }
  return shape;
}

/**
 * The reference window of `shape` centred on (col, row) of `image`, in TypeScript: each sample's
 * grey value and bilateral weight into `window` (ref, weight), 1/Σw and the weighted mean into
 * stats[0], stats[1]; returns the weighted variance. Samples that would leave the image are clamped
 * to its border (they repeat edge pixels) and their offsets rewritten into window.dx, dy; a window
 * `inside` the image reads the offsets the caller wrote there. The sums ride along the weights (the
 * same order as kernel.ts windowStatistics, so the same bits); native-window.ts gives the same
 * bits in the dense addon.
 */
export function fillWindow(image: { grey: Float32Array; width: number; height: number }, col: number, row: number, shape: WindowShape, colourScale: number, window: CostWindow, inside: boolean, stats: Float64Array): number {
  const { grey, width, height } = image;
  const { spatialWeight, baseDx, baseDy, sampleCount } = shape;
  const { dx, dy, ref, weight } = window;
  const centreIndex = row * width + col;
  const centre = grey[centreIndex];
  let sumW = 0;
  let sumWR = 0;
  let sumWRR = 0;
  for (let i = 0; i < sampleCount; i++) {
    let index = centreIndex + baseDy[i] * width + baseDx[i];
    if (!inside) {
      const sampleCol = Math.min(width - 1, Math.max(0, col + baseDx[i]));
      const sampleRow = Math.min(height - 1, Math.max(0, row + baseDy[i]));
      dx[i] = sampleCol - col;
      dy[i] = sampleRow - row;
      index = sampleRow * width + sampleCol;
    }
    const v = grey[index];
    const w = bilateralWeight(spatialWeight[i], v - centre, colourScale);
    ref[i] = v;
    weight[i] = w;
    sumW += w;
    sumWR += w * v;
    sumWRR += w * v * v;
  }
  const invWeight = 1 / sumW;
  const mean = sumWR * invWeight;
  stats[0] = invWeight;
  stats[1] = mean;
  return sumWRR * invWeight - mean * mean;
}
