/**
 * @module The overlap map: how many photos see each cell of a ground grid (the figure of
 * Pix4D's and OpenDroneMap's quality reports), and the area seen.
 *
 * The grid lies in the target frame's ground plane (x east, z south; y up), over the sparse
 * points' extent (their `extentPercentile` to 100 − `extentPercentile` percentiles, so a few
 * stray points far off do not stretch it), its lines on multiples of the cell size. Each
 * cell's ground height is the median height of the points in it; empty cells take the mean of
 * their filled neighbours, spread ring by ring, and the points' median height where nothing
 * reaches. A photo sees a cell when the cell's ground point projects, through the photo's
 * distortion (compute/scene/camera.ts), in front of it and inside its frame. Occlusion is not
 * tested: a sparse cloud says too little of the surface for that, and over open ground, the
 * survey case, nothing hides the ground from a photo whose frame holds it.
 */
import { foldOf } from "../../geometry/camera.js";
import type { RegisteredView, Similarity, SparsePoints } from "../../scene/index.js";
import { mapPositions, mapViews } from "../../scene/index.js";

export interface OverlapGrid {
  cellSize: number;
  width: number;
  height: number;
  /** Target-frame x of the west edge and z of the north edge (row 0 is north). */
  westX: number;
  northZ: number;
  /** Ground height (target y) of each cell, row-major. */
  groundY: Float64Array;
  /** Photos seeing each cell, row-major. */
  counts: Uint16Array;
}

export interface OverlapOptions {
  /** Cell side in ground sampling distances (Pix4D's map is coarser than the orthophoto by about this). */
  cellGsdMultiple: number;
  /** Longest side of the map in cells (= PNG pixels); the cell grows where the area would need more. */
  maxMapPixels: number;
  /** Percent of the points left out on each side of each axis when taking the extent. */
  extentPercentile: number;
}

/** Fraction of a cell within which an extent counts as on a grid line. */
const SNAP = 1e-6;

function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return 0;
  const at = Math.min(sorted.length - 1, Math.max(0, Math.round(fraction * (sorted.length - 1))));
  return sorted[at];
}

function median(values: number[]): number {
  values.sort((a, b) => a - b);
  return values.length % 2 ? values[values.length >> 1] : 0.5 * (values[values.length / 2 - 1] + values[values.length / 2]);
}

/** Fills the cells without points from their filled 8-neighbours, ring by ring; `fallback` where none reaches. */
function fillHeights(groundY: Float64Array, known: Uint8Array, width: number, height: number, fallback: number): void {
  let frontier = true;
  const next = new Uint8Array(known.length);
  while (frontier) {
    frontier = false;
    next.set(known);
    for (let r = 0; r < height; r++) {
      for (let c = 0; c < width; c++) {
        const i = r * width + c;
        if (known[i]) continue;
        let sum = 0;
        let n = 0;
        for (let dr = -1; dr <= 1; dr++) {
          for (let dc = -1; dc <= 1; dc++) {
            const rr = r + dr, cc = c + dc;
            if (rr < 0 || cc < 0 || rr >= height || cc >= width || !known[rr * width + cc]) continue;
            sum += groundY[rr * width + cc];
            n++;
          }
        }
        if (n === 0) continue;
        groundY[i] = sum / n;
        next[i] = 1;
        frontier = true;
      }
    }
    known.set(next);
  }
  for (let i = 0; i < known.length; i++) if (!known[i]) groundY[i] = fallback;
}

/** The ground grid over the points (target frame), with each cell's height. */
export function groundGrid(pointsInTarget: Float64Array, gsd: number | null, options: OverlapOptions): Omit<OverlapGrid, "counts"> {
  const count = pointsInTarget.length / 3;
  const xs = new Float64Array(count);
  const zs = new Float64Array(count);
  for (let p = 0; p < count; p++) {
    xs[p] = pointsInTarget[3 * p];
    zs[p] = pointsInTarget[3 * p + 2];
  }
  xs.sort();
  zs.sort();
  const q = options.extentPercentile / 100;
  const [x0, x1, z0, z1] = [percentile(xs, q), percentile(xs, 1 - q), percentile(zs, q), percentile(zs, 1 - q)];
  const span = Math.max(x1 - x0, z1 - z0, 1e-9);
  let cellSize = gsd && gsd > 0 ? options.cellGsdMultiple * gsd : span / options.maxMapPixels;
  cellSize = Math.max(cellSize, span / options.maxMapPixels);
  // Grid lines on multiples of the cell, one cell at least per axis; SNAP keeps an extent that
  // is a whole number of cells (up to round-off of the similarity) from gaining a cell.
  const westX = Math.floor(x0 / cellSize + SNAP) * cellSize;
  const northZ = Math.floor(z0 / cellSize + SNAP) * cellSize;
  const width = Math.min(options.maxMapPixels, Math.max(1, Math.ceil((x1 - westX) / cellSize - SNAP)));
  const height = Math.min(options.maxMapPixels, Math.max(1, Math.ceil((z1 - northZ) / cellSize - SNAP)));
  const heightsIn: number[][] = Array.from({ length: width * height }, () => []);
  const all: number[] = [];
  for (let p = 0; p < count; p++) {
    const c = Math.floor((pointsInTarget[3 * p] - westX) / cellSize);
    const r = Math.floor((pointsInTarget[3 * p + 2] - northZ) / cellSize);
    all.push(pointsInTarget[3 * p + 1]);
    if (c < 0 || r < 0 || c >= width || r >= height) continue;
    heightsIn[r * width + c].push(pointsInTarget[3 * p + 1]);
  }
  const groundY = new Float64Array(width * height);
  const known = new Uint8Array(width * height);
  heightsIn.forEach((h, i) => {
    if (h.length === 0) return;
    groundY[i] = median(h);
    known[i] = 1;
  });
  fillHeights(groundY, known, width, height, all.length ? median(all) : 0);
  return { cellSize, width, height, westX, northZ, groundY };
}

/** Counts, for each cell, the views whose frame holds the cell's ground point (views in the target frame). */
export function countViews(grid: Omit<OverlapGrid, "counts">, viewsInTarget: RegisteredView[]): Uint16Array {
  const { width, height, cellSize, westX, northZ, groundY } = grid;
  const counts = new Uint16Array(width * height);
  for (const view of viewsInTarget) {
    const { R, t } = view.camFromWorld;
    const { focal, cx, cy, k1, k2, width: w, height: h } = view.intrinsics;
    for (let r = 0; r < height; r++) {
      const Z = northZ + (r + 0.5) * cellSize;
      for (let c = 0; c < width; c++) {
        const X = westX + (c + 0.5) * cellSize;
        const Y = groundY[r * width + c];
        const z = R[6] * X + R[7] * Y + R[8] * Z + t[2];
        if (!(z > 0)) continue;
        const u = (R[0] * X + R[1] * Y + R[2] * Z + t[0]) / z;
        const v = (R[3] * X + R[4] * Y + R[5] * Z + t[1]) / z;
        const r2 = u * u + v * v;
        // Beyond the distortion polynomial's turning point a far point folds back into the frame.
        if (r2 >= foldOf(k1, k2)) continue;
        const d = 1 + r2 * (k1 + r2 * k2);
        const px = focal * d * u + cx;
        const py = focal * d * v + cy;
        if (px >= 0 && px < w && py >= 0 && py < h) counts[r * width + c]++;
      }
    }
  }
  return counts;
}

/** The overlap grid of a model, in the target frame given by `modelToTarget`. */
export function overlapOf(views: RegisteredView[], points: SparsePoints, modelToTarget: Similarity, gsd: number | null, options: OverlapOptions): OverlapGrid {
  const grid = groundGrid(mapPositions(modelToTarget, points.xyz), gsd, options);
  return { ...grid, counts: countViews(grid, mapViews(modelToTarget, views)) };
}

/** Cells seen by 0, 1, 2, 3, 4 and 5 or more photos. */
export function cellsByPhotos(counts: Uint16Array): [number, number, number, number, number, number] {
  const out: [number, number, number, number, number, number] = [0, 0, 0, 0, 0, 0];
  for (const n of counts) out[Math.min(5, n)]++;
  return out;
}
