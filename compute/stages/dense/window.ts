/**
 * @module The samples of PatchMatch's matching window: offsets from the window's centre pixel.
 *
 * "square": every sample of a (2r + 1)² grid at `step` pixels. "checker": the grid's samples of
 * one checkerboard colour (the centre's), the sparse pattern of Gipuma's and ACMM's kernels
 * (Galliani et al., ICCV 2015 §4; Xu & Tao, CVPR 2019: windows of 11 × 11 px sampled every other
 * pixel). It spans the same pixels with about half the samples, so a cost costs about half.
 */
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
