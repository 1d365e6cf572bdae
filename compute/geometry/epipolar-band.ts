/**
 * @module Guided matching (Hartley & Zisserman, 2nd ed., §11.7 step (v); COLMAP's
 * `guided_matching`): once a pair's fundamental matrix is known, keypoint a of image A is
 * compared only with the keypoints of image B within `bandPx` of its epipolar line F·a, found
 * through a grid over B's keypoints. Nearest and second-nearest neighbours are kept both ways
 * over those candidate pairs, so `mutualRatioMatches` applies unchanged: Lowe's ratio and the
 * mutual check are taken among the candidates the epipolar geometry allows.
 *
 * Why: exhaustive descriptor matching costs countA × countB distances (about 0.1 s of CPU for
 * two images of 4,300 keypoints); a band a few pixels wide holds a few dozen candidates, so
 * the guided search costs about a hundredth of that. The matching stage takes F from a
 * smaller subset of keypoints, sfm's loop closure from the model's poses; each supplies its
 * own descriptor distances.
 */
import { allocNeighbours, recordDistance, type Neighbours } from "../math/mutual-nearest.js";

/** Grid cell side over image B, pixels: a few keypoints per cell at typical densities. */
const CELL_PX = 16;

/** Keypoints of one image bucketed by grid cell (CSR): cellStart[c]..cellStart[c+1] index into `order`. */
interface KeypointGrid {
  originX: number;
  originY: number;
  cols: number;
  rows: number;
  cellStart: Uint32Array;
  order: Uint32Array;
}

function buildGrid(xy: ArrayLike<number>, count: number): KeypointGrid {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (let i = 0; i < count; i++) {
    minX = Math.min(minX, xy[2 * i]);
    maxX = Math.max(maxX, xy[2 * i]);
    minY = Math.min(minY, xy[2 * i + 1]);
    maxY = Math.max(maxY, xy[2 * i + 1]);
  }
  if (count === 0) minX = minY = maxX = maxY = 0;
  const cols = Math.floor((maxX - minX) / CELL_PX) + 1;
  const rows = Math.floor((maxY - minY) / CELL_PX) + 1;
  const cellOf = new Uint32Array(count);
  const cellStart = new Uint32Array(cols * rows + 1);
  for (let i = 0; i < count; i++) {
    const c = Math.floor((xy[2 * i + 1] - minY) / CELL_PX) * cols + Math.floor((xy[2 * i] - minX) / CELL_PX);
    cellOf[i] = c;
    cellStart[c + 1]++;
  }
  for (let c = 0; c < cols * rows; c++) cellStart[c + 1] += cellStart[c];
  const fill = cellStart.slice(0, cols * rows);
  const order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[fill[cellOf[i]]++] = i;
  return { originX: minX, originY: minY, cols, rows, cellStart, order };
}

/**
 * Descriptor distances from one A keypoint to chosen B keypoints: the search writes up to
 * countB B indices into `candidates`, then `compute(i, n)` gives the distances of A keypoint i
 * to the first n of them.
 */
export interface CandidateDistances {
  candidates: Uint32Array;
  compute(i: number, n: number): ArrayLike<number>;
}

export interface EpipolarBand {
  /** Fundamental matrix, row-major, x_Bᵀ·F·x_A = 0 in pixels. */
  F: ArrayLike<number>;
  xyA: ArrayLike<number>;
  countA: number;
  xyB: ArrayLike<number>;
  countB: number;
  /** Half-width of the band around each epipolar line in image B, pixels. */
  bandPx: number;
}

/**
 * Nearest and second-nearest neighbours both ways over the keypoint pairs within `bandPx` of
 * each other's epipolar line (distance measured in image B). Keypoints with no candidate keep
 * the "none" sentinels of `allocNeighbours`, which `mutualRatioMatches` skips.
 */
export function epipolarBandNeighbours(input: EpipolarBand, distances: CandidateDistances): Neighbours {
  const { F, xyA, countA, xyB, countB, bandPx } = input;
  const nb = allocNeighbours(countA, countB);
  const grid = buildGrid(xyB, countB);
  const candidates = distances.candidates;
  for (let i = 0; i < countA; i++) {
    const x = xyA[2 * i], y = xyA[2 * i + 1];
    // Epipolar line l = F·a in image B, scaled so that l·b is the point-line distance.
    let l0 = F[0] * x + F[1] * y + F[2];
    let l1 = F[3] * x + F[4] * y + F[5];
    let l2 = F[6] * x + F[7] * y + F[8];
    const norm = Math.hypot(l0, l1);
    if (!(norm > 0)) continue;
    l0 /= norm;
    l1 /= norm;
    l2 /= norm;
    // Shift the line into grid coordinates (origin at the grid's corner).
    l2 += l0 * grid.originX + l1 * grid.originY;
    const ranges = bandRanges(grid, l0, l1, l2, bandPx, rangeScratch);
    let n = 0;
    for (let r = 0; r < ranges; r++) {
      for (let k = rangeScratch[2 * r]; k < rangeScratch[2 * r + 1]; k++) {
        const j = grid.order[k];
        if (Math.abs(l0 * (xyB[2 * j] - grid.originX) + l1 * (xyB[2 * j + 1] - grid.originY) + l2) <= bandPx) candidates[n++] = j;
      }
    }
    if (n === 0) continue;
    const d = distances.compute(i, n);
    for (let k = 0; k < n; k++) recordDistance(nb, i, candidates[k], d[k]);
  }
  return nb;
}

/** Scratch of bandRanges: (start, end) into the grid's `order` per visited cell. */
let rangeScratch = new Uint32Array(512);

/**
 * The keypoints in the grid cells the band |l·p| ≤ band crosses (a superset of the band), as
 * `order` ranges written to `rangeScratch`; returns their count. The line is walked along its
 * longer axis: per column (or row) of cells, the band covers an interval of cells across it.
 */
function bandRanges(grid: KeypointGrid, l0: number, l1: number, l2: number, band: number, scratch: Uint32Array): number {
  const alongX = Math.abs(l1) >= Math.abs(l0); // the line is closer to horizontal: y = −(l0·x + l2)/l1
  const steps = alongX ? grid.cols : grid.rows;
  const across = alongX ? grid.rows : grid.cols;
  const stepStride = alongX ? 1 : grid.cols; // cell index change per step along the line
  const acrossStride = alongX ? grid.cols : 1;
  const a = alongX ? l0 : l1;
  const b = alongX ? l1 : l0;
  // In cell units: the line's across-coordinate at the start of step s is base + s·slope, and
  // the band adds halfWidth either side (|b| ≥ 1/√2 on the walking axis).
  const base = -l2 / b / CELL_PX;
  const slope = -a / b;
  const halfWidth = band / Math.abs(b) / CELL_PX;
  const lowAt0 = base + Math.min(0, slope) - halfWidth;
  const highAt0 = base + Math.max(0, slope) + halfWidth;
  const starts = grid.cellStart;
  let count = 0;
  for (let s = 0; s < steps; s++) {
    const from = Math.max(0, Math.floor(lowAt0 + s * slope));
    const to = Math.min(across - 1, Math.floor(highAt0 + s * slope));
    for (let c = from; c <= to; c++) {
      const cell = c * acrossStride + s * stepStride;
      const first = starts[cell];
      const last = starts[cell + 1];
      if (first === last) continue;
      if (2 * count + 2 > scratch.length) {
        const grown = new Uint32Array(2 * scratch.length);
        grown.set(scratch);
        rangeScratch = scratch = grown;
      }
      scratch[2 * count] = first;
      scratch[2 * count + 1] = last;
      count++;
    }
  }
  return count;
}
