/**
 * @module Guided matching (Hartley & Zisserman, 2nd ed., §11.7 step (v); COLMAP's
 * `guided_matching`): once a pair's fundamental matrix is known, keypoint a of image A is
 * compared only with the keypoints of image B within `bandPx` of its epipolar line F·a, found
 * around B's epipole (every epipolar line passes through it: B's keypoints sorted by their
 * direction from it, in shells of distance) or, when the epipole is at infinity, through a grid
 * over B's keypoints. Nearest and second-nearest neighbours are kept both ways
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
export function epipolarBandNeighbours(input: EpipolarBand, distances: CandidateDistances, search: BandSearch = "auto"): Neighbours {
  const { F, xyA, countA, xyB, countB, bandPx } = input;
  const nb = allocNeighbours(countA, countB);
  const grid = buildGrid(xyB, countB);
  const fan = search === "grid" ? null : epipoleFan(F, xyB, countB);
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
    const ranges = fan ? fanRanges(fan, l0, l1, l2, bandPx) : 0;
    const order = fan ? fan.order : grid.order;
    // Shift the line into grid coordinates (origin at the grid's corner): the band's test is the same whichever search found the keypoint.
    l2 += l0 * grid.originX + l1 * grid.originY;
    const count = fan ? ranges : bandRanges(grid, l0, l1, l2, bandPx);
    let n = 0;
    for (let r = 0; r < count; r++) {
      for (let k = rangeScratch[2 * r]; k < rangeScratch[2 * r + 1]; k++) {
        const j = order[k];
        if (Math.abs(l0 * (xyB[2 * j] - grid.originX) + l1 * (xyB[2 * j + 1] - grid.originY) + l2) <= bandPx) candidates[n++] = j;
      }
    }
    if (n === 0) continue;
    const d = distances.compute(i, n);
    for (let k = 0; k < n; k++) recordDistance(nb, i, candidates[k], d[k]);
  }
  return nb;
}

/**
 * How the band's keypoints are found: "grid" walks the cells the band crosses (bandRanges);
 * "auto" looks them up around the epipole (epipoleFan) when F has a finite one, which visits
 * about as many keypoints as the band holds instead of every cell along the line. Both give the
 * same keypoints to the band's test, so the same neighbours up to the order of equal distances,
 * and the same ratio-tested matches (mutualRatioMatches rejects a tie at the best).
 */
export type BandSearch = "auto" | "grid";

/**
 * Image B's keypoints as seen from the epipole e (every epipolar line passes through it): in
 * shells of radius [2^k, 2^(k+1)) px around e, each sorted by the direction from e modulo π. A
 * keypoint at distance r from e whose direction differs from a line's by Δ lies r·|sin Δ| from
 * the parallel to that line through e, so within the band only if |sin Δ| ≤ (band + the line's
 * distance from e) / r: per shell, one window of directions, found by binary search.
 */
interface EpipoleFan {
  ex: number;
  ey: number;
  /** Keypoint indices, shell by shell, each shell by direction. */
  order: Uint32Array;
  /** Directions (0 ≤ ψ < π) in `order`'s order. */
  angles: Float64Array;
  /** Shell s spans order[shellStart[s]]..order[shellStart[s + 1]]; its nearest keypoint is shellMin[s] from e. */
  shellStart: Uint32Array;
  shellMin: Float64Array;
}

/** Farthest epipole looked up this way, px; beyond it the lines are all but parallel and the grid walks them. */
const MAX_EPIPOLE_PX = 1e8;

function epipoleFan(F: ArrayLike<number>, xyB: ArrayLike<number>, countB: number): EpipoleFan | null {
  // eᵀ·F = 0: e is orthogonal to F's three columns; the largest cross product of two of them.
  let e0 = 0, e1 = 0, e2 = 0, best = 0;
  for (const [p, q] of [[0, 1], [0, 2], [1, 2]] as const) {
    const ax = F[p], ay = F[3 + p], az = F[6 + p], bx = F[q], by = F[3 + q], bz = F[6 + q];
    const cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
    const size = cx * cx + cy * cy + cz * cz;
    if (size > best) [e0, e1, e2, best] = [cx, cy, cz, size];
  }
  if (!(best > 0) || e2 === 0) return null;
  const ex = e0 / e2, ey = e1 / e2;
  if (!(Math.hypot(ex, ey) < MAX_EPIPOLE_PX)) return null;
  const shellOf = new Int32Array(countB);
  const radius = new Float64Array(countB);
  const direction = new Float64Array(countB);
  let shells = 0;
  for (let j = 0; j < countB; j++) {
    const dx = xyB[2 * j] - ex, dy = xyB[2 * j + 1] - ey;
    radius[j] = Math.hypot(dx, dy);
    const phi = Math.atan2(dy, dx);
    direction[j] = phi < 0 ? phi + Math.PI : phi >= Math.PI ? 0 : phi;
    shellOf[j] = radius[j] < 1 ? 0 : Math.floor(Math.log2(radius[j])) + 1;
    shells = Math.max(shells, shellOf[j] + 1);
  }
  const shellStart = new Uint32Array(shells + 1);
  for (let j = 0; j < countB; j++) shellStart[shellOf[j] + 1]++;
  for (let s = 0; s < shells; s++) shellStart[s + 1] += shellStart[s];
  const fill = shellStart.slice(0, shells);
  const order = new Uint32Array(countB);
  for (let j = 0; j < countB; j++) order[fill[shellOf[j]]++] = j;
  const shellMin = new Float64Array(shells).fill(Infinity);
  for (let s = 0; s < shells; s++) {
    const members = order.subarray(shellStart[s], shellStart[s + 1]);
    members.sort((p, q) => direction[p] - direction[q]);
    for (const j of members) shellMin[s] = Math.min(shellMin[s], radius[j]);
  }
  const angles = Float64Array.from(order, (j) => direction[j]);
  return { ex, ey, order, angles, shellStart, shellMin };
}

/** First index in angles[from, to) with a value ≥ value. */
function lowerBound(angles: Float64Array, from: number, to: number, value: number): number {
  let lo = from, hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (angles[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index in angles[from, to) with a value > value. */
function upperBound(angles: Float64Array, from: number, to: number, value: number): number {
  let lo = from, hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (angles[mid] <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The keypoints whose direction from the epipole lies within each shell's window around the
 * line's (a superset of the band, with a margin for rounding), as `fan.order` ranges in
 * rangeScratch; returns their count. The line (l0, l1, l2) is normalised, in image B's pixels.
 */
function fanRanges(fan: EpipoleFan, l0: number, l1: number, l2: number, band: number): number {
  const offset = Math.abs(l0 * fan.ex + l1 * fan.ey + l2);
  // Rounding in the directions, radii and the band's test is far below a millionth of a pixel at these sizes.
  const reach = band + offset + 1e-6 + 1e-9 * (Math.abs(fan.ex) + Math.abs(fan.ey));
  let theta = Math.atan2(l0, -l1);
  if (theta < 0) theta += Math.PI;
  if (theta >= Math.PI) theta = 0;
  let count = 0;
  const push = (first: number, last: number): void => {
    if (first < last) count = pushRange(count, first, last);
  };
  for (let s = 0; s + 1 < fan.shellStart.length; s++) {
    const from = fan.shellStart[s], to = fan.shellStart[s + 1];
    if (from === to) continue;
    const sine = reach / fan.shellMin[s];
    if (!(sine < 0.5)) {
      push(from, to);
      continue;
    }
    const half = Math.asin(sine) * (1 + 1e-9) + 1e-12;
    const lo = theta - half, hi = theta + half;
    if (lo < 0) {
      push(from, upperBound(fan.angles, from, to, hi));
      push(lowerBound(fan.angles, from, to, lo + Math.PI), to);
    } else if (hi >= Math.PI) {
      push(lowerBound(fan.angles, from, to, lo), to);
      push(from, upperBound(fan.angles, from, to, hi - Math.PI));
    } else {
      push(lowerBound(fan.angles, from, to, lo), upperBound(fan.angles, from, to, hi));
    }
  }
  return count;
}

/** Scratch of bandRanges and fanRanges: (start, end) into the search's `order` per range. */
let rangeScratch = new Uint32Array(512);

/** Writes range number `count` into rangeScratch, growing it when full; returns the new count. */
function pushRange(count: number, first: number, last: number): number {
  if (2 * count + 2 > rangeScratch.length) {
    const grown = new Uint32Array(2 * rangeScratch.length);
    grown.set(rangeScratch);
    rangeScratch = grown;
  }
  rangeScratch[2 * count] = first;
  rangeScratch[2 * count + 1] = last;
  return count + 1;
}

/**
 * The keypoints in the grid cells the band |l·p| ≤ band crosses (a superset of the band), as
 * `order` ranges written to `rangeScratch`; returns their count. The line is walked along its
 * longer axis: per column (or row) of cells, the band covers an interval of cells across it.
 */
function bandRanges(grid: KeypointGrid, l0: number, l1: number, l2: number, band: number): number {
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
      count = pushRange(count, first, last);
    }
  }
  return count;
}
