/**
 * @module Plain objects closed from the space the photos show empty around them (issue
 * "Complete surfaces": the sides of an object).
 *
 * A white vase, a painted box, a plain ball: stereo finds depth on their outlines and on nothing
 * else, so the mesh keeps a rim and the photos' own background shows through where their sides
 * should be. What the photos do show is the space around them: every pixel whose depth lies
 * beyond a point proves the ray empty up to that depth. Carving space with those rays, as a visual
 * hull (Laurentini, "The visual hull concept for silhouette-based image understanding", PAMI
 * 1994) or the free-space evidence of Jancosek & Pajdla ("Multi-view reconstruction preserving
 * weakly-supported surfaces", CVPR 2011) does, leaves a block of space that no ray crossed where
 * the object stands; its boundary with the carved space is the object's outer surface, which this
 * module samples into points with normals for the signed distance, where no measured point lies.
 *
 * Only space that the photos show as a depthless region enclosed by measured depth counts as
 * solid (`enclosedBlank`): a plain object seen whole against a textured background is such a
 * region, and so is a plain patch on a textured wall; a clear sky, a plain wall filling a frame's
 * edge, or anything cut by a frame's edge is not, and gives no evidence. A block that touches the
 * grid's edge is not an object and is left out.
 */
import type { RegisteredView, ViewDepth } from "../../scene/index.js";
import type { CompletionPoints } from "./plane-completion.js";
import { PointGrid } from "./point-grid.js";
import type { DepthImage } from "./see-through.js";

export interface HullCompletionOptions {
  /** Most cells of the first pass's grid, over the measured points' box (sets its cell size). */
  coarseCells: number;
  /** Most cells of the second pass's grid, over the box of the blocks the first kept. */
  maxCells: number;
  /** The cell is at least this many mesh voxels. */
  minCellVoxels: number;
  /** A cell is empty once this many views see through it. */
  minCarvingViews: number;
  /** A cell is solid when this many views show it as an enclosed depthless region (and fewer than minCarvingViews see through it). */
  minEnclosedViews: number;
  /** A depthless region of a depth image counts as enclosed when it touches no border and is at most this share of the image. */
  maxEnclosedShare: number;
  /** Fewest cells of a kept block in the second pass (the first keeps blocks of an eighth of that): a smaller one is a hole in one surface's depth, not an object. */
  minBlockCells: number;
  /**
   * Most of a kept block's faces (those not toward the ground) that may face space no view saw
   * through: a block leaning on such space fills a hole in a wall's depth, whose far side is the
   * wall, not an object standing free.
   */
  maxUnseenFaceShare: number;
  /** No point is added within this many cells of a plane's or a wall's completion points: space in front of a plain wall that the completions closed is no object. */
  guessClearanceCells: number;
  /** A point is left out where the cloud already holds `surfacePoints` points within this many mesh voxels: a surface the signed distance makes without it. */
  clearanceVoxels: number;
  /** Points within the clearance that make a surface (a well-sampled one holds ~25 there). */
  surfacePoints: number;
}

/**
 * Measured on `npm run bench -- views` (docs/decisions.md, "Plain objects are closed from the space
 * the views saw through"): 6 enclosing views and 64-cell blocks leave the holes in one surface's
 * depth alone (facade, templeSparseRing), 3 cells from the completions keep a table's plane from
 * hiding the objects on it (8 cost plain-objects 2.3 dB).
 */
export const HULL_DEFAULTS: HullCompletionOptions = {
  coarseCells: 1_000_000,
  maxCells: 2_000_000,
  minCellVoxels: 1.5,
  minCarvingViews: 2,
  minEnclosedViews: 6,
  maxEnclosedShare: 0.25,
  clearanceVoxels: 1.5,
  surfacePoints: 25,
  minBlockCells: 64,
  maxUnseenFaceShare: 0.35,
  guessClearanceCells: 3,
};

export interface HullCompletionReport {
  /** The first pass's cell (over the whole cloud), then the cell and cells of the pass the points come from. */
  hullCoarseCellSize: number;
  hullCellSize: number;
  hullCells: number;
  hullSolidCells: number;
  hullBlocks: number;
  hullBlocksAtEdge: number;
  hullBlocksSmall: number;
  /** Blocks left out for leaning on space no view saw through (maxUnseenFaceShare). */
  hullBlocksAgainstSurface: number;
  hullBlocksKept: number;
  hullPointsAdded: number;
  hullPointsDropped: number;
}

/**
 * Each view's own depth (the dense stage's, view-depth.ts) as a depth image, with the sky's and the
 * backdrop's marks of the cloud's image of the same view (Infinity where the view measured
 * nothing). A view without its own depth gets an empty image, which shows nothing enclosed.
 */
export function viewDepthImages(views: RegisteredView[], viewDepths: ViewDepth[], cloudImages: DepthImage[]): DepthImage[] {
  const byView = new Map(viewDepths.map((d) => [d.viewIndex, d]));
  return views.map((view, i) => {
    const own = byView.get(i), cloud = cloudImages[i];
    const depth = new Float32Array(cloud.width * cloud.height);
    if (own && own.width === cloud.width && own.height === cloud.height) depth.set(own.depth);
    const marks = cloud.measured ?? cloud.depth;
    for (let p = 0; p < depth.length; p++) if (depth[p] === 0 && marks[p] === Infinity) depth[p] = Infinity;
    return { view, width: cloud.width, height: cloud.height, scale: cloud.scale, depth, measured: depth };
  });
}

interface Grid {
  origin: [number, number, number];
  cell: number;
  nx: number;
  ny: number;
  nz: number;
}

/**
 * Per depth image, 1 where the pixel is depthless and its 4-connected depthless region touches no
 * border and is at most `maxShare` of the image; else 0.
 */
export function enclosedBlank(image: DepthImage, maxShare: number): Uint8Array {
  const { width, height } = image;
  const depth = image.measured ?? image.depth;
  const n = width * height;
  const label = new Int32Array(n).fill(-1);
  const out = new Uint8Array(n);
  const stack: number[] = [];
  const members: number[] = [];
  for (let start = 0; start < n; start++) {
    if (depth[start] !== 0 || label[start] >= 0) continue;
    label[start] = start;
    stack.push(start);
    members.length = 0;
    let open = false;
    while (stack.length > 0) {
      const p = stack.pop()!;
      members.push(p);
      const x = p % width, y = (p - x) / width;
      if (x === 0 || y === 0 || x === width - 1 || y === height - 1) open = true;
      const visit = (q: number): void => {
        if (depth[q] === 0 && label[q] < 0) { label[q] = start; stack.push(q); }
      };
      if (x > 0) visit(p - 1);
      if (x < width - 1) visit(p + 1);
      if (y > 0) visit(p - width);
      if (y < height - 1) visit(p + width);
    }
    if (!open && members.length <= maxShare * n) for (const p of members) out[p] = 1;
  }
  return out;
}

/** The grid over the measured points' box (0.1th–99.9th percentile per axis), 15 % of its largest side wider. */
function gridOver(positions: Float32Array, count: number, voxel: number, options: HullCompletionOptions): Grid | null {
  if (count < 100) return null;
  const lo = [0, 0, 0], hi = [0, 0, 0];
  const step = Math.max(1, Math.floor(count / 200_000));
  const values = new Float32Array(Math.ceil(count / step));
  for (let a = 0; a < 3; a++) {
    let m = 0;
    for (let i = 0; i < count; i += step) values[m++] = positions[3 * i + a];
    const sorted = values.subarray(0, m).sort();
    lo[a] = sorted[Math.floor(0.001 * (m - 1))];
    hi[a] = sorted[Math.ceil(0.999 * (m - 1))];
  }
  // More on every side: an object may rise above the points that outline it.
  const extra = 0.15 * Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
  const volume = (hi[0] - lo[0] + 2 * extra) * (hi[1] - lo[1] + 2 * extra) * (hi[2] - lo[2] + 2 * extra);
  if (!(volume > 0)) return null;
  const cell = Math.max(options.minCellVoxels * voxel, Math.cbrt(volume / options.coarseCells));
  const margin = extra + 2 * cell;
  const origin: [number, number, number] = [lo[0] - margin, lo[1] - margin, lo[2] - margin];
  const size = (a: number): number => Math.max(1, Math.ceil((hi[a] - lo[a] + 2 * margin) / cell));
  return { origin, cell, nx: size(0), ny: size(1), nz: size(2) };
}

/** Per cell of a grid, counts of views (capped at 255). */
interface Carving {
  /** Views that see through the cell. */
  carving: Uint8Array;
  /** Views that show it as an enclosed depthless region. */
  enclosedViews: Uint8Array;
  /** Views whose measured depth lies within the cell's margin. */
  surfaceViews: Uint8Array;
}

/** What each view's depth says of each cell of the grid. */
function carve(grid: Grid, images: DepthImage[], enclosed: Uint8Array[]): Carving {
  const { origin, cell, nx, ny, nz } = grid;
  const cells = nx * ny * nz;
  const carving = new Uint8Array(cells), enclosedViews = new Uint8Array(cells), surfaceViews = new Uint8Array(cells);
  images.forEach((image, v) => {
    const { view, width, height, scale } = image;
    const depth = image.measured ?? image.depth;
    const blank = enclosed[v];
    const { R, t } = view.camFromWorld;
    const k = view.intrinsics;
    const fx = k.focal / scale, cx = k.cx / scale, cy = k.cy / scale;
    // Depth beyond which a point proves the cell empty: a cell and a depth pixel's footprint.
    const footprintPerDepth = 1 / fx;
    for (let iz = 0; iz < nz; iz++) {
      const z = origin[2] + (iz + 0.5) * cell;
      for (let iy = 0; iy < ny; iy++) {
        const y = origin[1] + (iy + 0.5) * cell;
        // Camera coordinates of the row's first cell, then a step per cell along x.
        let xc = R[0] * (origin[0] + 0.5 * cell) + R[1] * y + R[2] * z + t[0];
        let yc = R[3] * (origin[0] + 0.5 * cell) + R[4] * y + R[5] * z + t[1];
        let zc = R[6] * (origin[0] + 0.5 * cell) + R[7] * y + R[8] * z + t[2];
        const sx = R[0] * cell, sy = R[3] * cell, sz = R[6] * cell;
        let at = (iz * ny + iy) * nx;
        for (let ix = 0; ix < nx; ix++, at++, xc += sx, yc += sy, zc += sz) {
          if (!(zc > 0)) continue;
          const u = Math.floor((fx * xc) / zc + cx), w = Math.floor((fx * yc) / zc + cy);
          if (u < 0 || w < 0 || u >= width || w >= height) continue;
          const pixel = w * width + u;
          const d = depth[pixel];
          if (d === 0) {
            if (blank[pixel] && enclosedViews[at] < 255) enclosedViews[at]++;
          } else {
            const margin = cell + zc * footprintPerDepth;
            if (zc < d - margin) {
              if (carving[at] < 255) carving[at]++;
            } else if (zc <= d + margin && surfaceViews[at] < 255) surfaceViews[at]++;
          }
        }
      }
    }
  });
  return { carving, enclosedViews, surfaceViews };
}

/**
 * Points on the outer surface of plain objects the photos show enclosed by measured depth
 * (module comment). `images` are the views' own depth images (their `measured` depths are read);
 * `cloud` is every point so far: the added points keep clear of where it already makes a surface,
 * and its points inside a kept block, or in a cell of one whose faces got points, are listed in
 * `dropped` (a visual hull's inside is never seen, so what stereo put there is noise, and noise
 * beside the hull's points folds the surface). `ground` leaves out the cells under it.
 */
export function completeHulls(
  images: DepthImage[],
  measured: { positions: Float32Array; colors: Uint8Array; count: number },
  cloudPoints: { positions: Float32Array; count: number },
  voxel: number,
  spacing: number,
  options: HullCompletionOptions,
  ground?: { normal: number[]; d: number } | null,
  guesses?: { positions: Float32Array; count: number },
): { points: CompletionPoints; dropped: Uint8Array | null; report: HullCompletionReport } {
  const report: HullCompletionReport = { hullCoarseCellSize: 0, hullCellSize: 0, hullCells: 0, hullSolidCells: 0, hullBlocks: 0, hullBlocksAtEdge: 0, hullBlocksSmall: 0, hullBlocksAgainstSurface: 0, hullBlocksKept: 0, hullPointsAdded: 0, hullPointsDropped: 0 };
  const none: CompletionPoints = { count: 0, positions: new Float32Array(0), normals: new Float32Array(0), colors: new Uint8Array(0) };
  const coarse = images.length >= 3 ? gridOver(measured.positions, measured.count, voxel, options) : null;
  if (!coarse) return { points: none, dropped: null, report };
  report.hullCoarseCellSize = coarse.cell;
  const enclosed = images.map((image) => enclosedBlank(image, options.maxEnclosedShare));
  // The first pass keeps smaller blocks, and ones that lean on unseen space: at its cell an object
  // is a few cells across, and the gaps beside it are not yet carved.
  const coarseCarving = carve(coarse, images, enclosed);
  const loose = { minCells: Math.max(1, Math.round(options.minBlockCells / 8)), maxUnseenFaceShare: 1 };
  const strict = { minCells: options.minBlockCells, maxUnseenFaceShare: options.maxUnseenFaceShare };
  let grid = coarse;
  let cells = keptCells(coarse, coarseCarving, options, ground, loose, report);
  // Then again over the kept blocks' box, at the finest cell the budget allows there.
  const fine = cells ? gridAround(coarse, cells.kept, voxel, options) : null;
  if (fine) {
    grid = fine;
    cells = keptCells(fine, carve(fine, images, enclosed), options, ground, strict, report);
  } else if (cells) {
    // No finer grid fits the budget: the first pass's blocks stand, less those leaning on unseen space.
    cells = keptCells(coarse, coarseCarving, options, ground, { ...loose, maxUnseenFaceShare: strict.maxUnseenFaceShare }, report);
  }
  if (!cells) return { points: none, dropped: null, report };
  const { kept, carving } = cells;
  const { nx, ny, nz, cell, origin } = grid;
  report.hullCellSize = cell;
  report.hullCells = nx * ny * nz;
  const cloud = new PointGrid(cloudPoints.positions, cloudPoints.count, voxel);
  const guessed = guesses && guesses.count > 0 ? new PointGrid(guesses.positions, guesses.count, options.guessClearanceCells * cell) : null;
  const surfaced = new Uint8Array(kept.length);

  // The boundary of the kept blocks, sampled at the cloud's spacing on each cell face; not toward the ground
  // (the cells under it are not solid, and the ground's own points make that face).
  const underGround = (ix: number, iy: number, iz: number): boolean => aboveGround(ground, grid, ix, iy, iz) < cell;
  const out: number[] = [], normals: number[] = [];
  const clearance = options.clearanceVoxels * voxel;
  const perSide = Math.max(1, Math.round(cell / spacing));
  const steps = [1, nx, nx * ny];
  for (let iz = 1, at = 0; iz < nz - 1; iz++) for (let iy = 1; iy < ny - 1; iy++) for (let ix = 1; ix < nx - 1; ix++) {
    at = (iz * ny + iy) * nx + ix;
    if (!kept[at]) continue;
    const centre = [origin[0] + (ix + 0.5) * cell, origin[1] + (iy + 0.5) * cell, origin[2] + (iz + 0.5) * cell];
    const n = blockNormal(kept, grid, ix, iy, iz);
    for (let axis = 0; axis < 3; axis++) for (const side of [-1, 1]) {
      const next = at + side * steps[axis];
      // Toward space a view saw through: not toward space every view saw behind a surface (a
      // block's side inside a building, behind its facade, is no surface anyone sees).
      if (kept[next] || carving[next] === 0) continue;
      if (underGround(ix + (axis === 0 ? side : 0), iy + (axis === 1 ? side : 0), iz + (axis === 2 ? side : 0))) continue;
      const u = (axis + 1) % 3, w = (axis + 2) % 3;
      const faceCentre = centre.slice();
      faceCentre[axis] += 0.5 * side * cell;
      if (pointsWithin(cloud, faceCentre, clearance, options.surfacePoints) >= options.surfacePoints) continue;
      if (guessed?.hasPointNearer(faceCentre[0], faceCentre[1], faceCentre[2], options.guessClearanceCells * cell)) continue;
      surfaced[at] = 1;
      const normal = n ?? [0, 1, 2].map((a) => (a === axis ? side : 0));
      // At the cloud's spacing, as the other completions: the signed distance takes every stride-th point.
      for (let a = 0; a < perSide; a++) for (let b = 0; b < perSide; b++) {
        const p = faceCentre.slice();
        p[u] += ((a + 0.5) / perSide - 0.5) * cell;
        p[w] += ((b + 0.5) / perSide - 0.5) * cell;
        out.push(p[0], p[1], p[2]);
        normals.push(normal[0], normal[1], normal[2]);
      }
    }
  }
  const count = out.length / 3;
  report.hullPointsAdded = count;
  const colour = meanColourNear(measured, grid, kept);
  const colors = new Uint8Array(3 * count);
  for (let i = 0; i < count; i++) colors.set(colour, 3 * i);
  const dropped = insidePoints(cloudPoints, measured.count, grid, kept, surfaced);
  report.hullPointsDropped = dropped.reduce((sum, d) => sum + d, 0);
  return { points: { count, positions: new Float32Array(out), normals: new Float32Array(normals), colors }, dropped, report };
}

/**
 * 1 for each measured point (the first `measuredCount`; the completions' stay) in a block that got
 * points, in a cell whose six neighbours are the block's too, or whose faces got points. A block that
 * got none (in front of a completed plain wall) keeps every point.
 */
function insidePoints(cloud: { positions: Float32Array; count: number }, measuredCount: number, grid: Grid, kept: Int32Array, surfaced: Uint8Array): Uint8Array {
  const { nx, ny, nz, cell, origin } = grid;
  const dropped = new Uint8Array(cloud.count);
  let blocks = 0;
  for (let at = 0; at < kept.length; at++) blocks = Math.max(blocks, kept[at]);
  const blockGotPoints = new Uint8Array(blocks + 1);
  for (let at = 0; at < kept.length; at++) if (surfaced[at]) blockGotPoints[kept[at]] = 1;
  for (let i = 0; i < Math.min(cloud.count, measuredCount); i++) {
    const ix = Math.floor((cloud.positions[3 * i] - origin[0]) / cell);
    const iy = Math.floor((cloud.positions[3 * i + 1] - origin[1]) / cell);
    const iz = Math.floor((cloud.positions[3 * i + 2] - origin[2]) / cell);
    if (ix < 1 || iy < 1 || iz < 1 || ix >= nx - 1 || iy >= ny - 1 || iz >= nz - 1) continue;
    const at = (iz * ny + iy) * nx + ix;
    if (!kept[at] || !blockGotPoints[kept[at]]) continue;
    if (surfaced[at] || (kept[at - 1] && kept[at + 1] && kept[at - nx] && kept[at + nx] && kept[at - nx * ny] && kept[at + nx * ny])) dropped[i] = 1;
  }
  return dropped;
}

/** How many of the cloud's points lie within `radius` of `p`, counted up to `enough`. */
function pointsWithin(cloud: PointGrid, p: number[], radius: number, enough: number): number {
  let n = 0;
  cloud.forEachWithin(p[0], p[1], p[2], radius, () => (++n >= enough ? false : undefined));
  return n;
}

/**
 * The grid's kept cells (1), or null when no block is kept: solid where enough views show the
 * cell enclosed, too few see through it, and it holds a measured surface in fewer views than show
 * it enclosed (the ground beside an object is behind the object in some views, and no view can
 * see through the ground's own cells); above the ground if there is one.
 */
function keptCells(
  grid: Grid,
  { carving, enclosedViews, surfaceViews }: Carving,
  options: HullCompletionOptions,
  ground: { normal: number[]; d: number } | null | undefined,
  rules: { minCells: number; maxUnseenFaceShare: number },
  report: HullCompletionReport,
): { kept: Int32Array; carving: Uint8Array } | null {
  const { nx, ny, nz } = grid;
  const solid = new Uint8Array(carving.length);
  report.hullSolidCells = 0;
  for (let iz = 0, at = 0; iz < nz; iz++) for (let iy = 0; iy < ny; iy++) for (let ix = 0; ix < nx; ix++, at++) {
    if (enclosedViews[at] < options.minEnclosedViews || carving[at] >= options.minCarvingViews || surfaceViews[at] >= enclosedViews[at]) continue;
    if (aboveGround(ground, grid, ix, iy, iz) < 0) continue;
    solid[at] = 1;
    report.hullSolidCells++;
  }
  report.hullBlocks = report.hullBlocksAtEdge = report.hullBlocksSmall = report.hullBlocksAgainstSurface = report.hullBlocksKept = 0;
  const kept = keptBlocks(solid, grid, { ...rules, carving, ground }, report);
  return report.hullBlocksKept > 0 ? { kept, carving } : null;
}

/** A finer grid over the box of the coarse grid's kept cells (two coarse cells wider), or null when it would be no finer. */
function gridAround(coarse: Grid, kept: Int32Array, voxel: number, options: HullCompletionOptions): Grid | null {
  const { nx, ny, cell, origin } = coarse;
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (let at = 0; at < kept.length; at++) {
    if (!kept[at]) continue;
    const i = [at % nx, Math.floor(at / nx) % ny, Math.floor(at / (nx * ny))];
    for (let a = 0; a < 3; a++) {
      lo[a] = Math.min(lo[a], origin[a] + (i[a] - 2) * cell);
      hi[a] = Math.max(hi[a], origin[a] + (i[a] + 3) * cell);
    }
  }
  const volume = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
  const fineCell = Math.max(options.minCellVoxels * voxel, Math.cbrt(volume / options.maxCells));
  if (!(fineCell < 0.9 * cell)) return null;
  const size = (a: number): number => Math.max(3, Math.ceil((hi[a] - lo[a]) / fineCell));
  return { origin: [lo[0], lo[1], lo[2]], cell: fineCell, nx: size(0), ny: size(1), nz: size(2) };
}

/** How far the cell's centre lies above the ground plane (Infinity without one). */
function aboveGround(ground: { normal: number[]; d: number } | null | undefined, grid: Grid, ix: number, iy: number, iz: number): number {
  if (!ground) return Infinity;
  const { origin, cell } = grid;
  const x = origin[0] + (ix + 0.5) * cell, y = origin[1] + (iy + 0.5) * cell, z = origin[2] + (iz + 0.5) * cell;
  return ground.normal[0] * x + ground.normal[1] * y + ground.normal[2] * z - ground.d;
}

interface BlockRules {
  minCells: number;
  maxUnseenFaceShare: number;
  /** Per cell, how many views saw through it. */
  carving: Uint8Array;
  ground: { normal: number[]; d: number } | null | undefined;
}

/**
 * Solid cells joined face to face into blocks; blocks touching the grid's edge, too small, or
 * leaning on space no view saw through are dropped. The kept block's number (from 1) at its cells,
 * 0 elsewhere.
 */
function keptBlocks(solid: Uint8Array, grid: Grid, rules: BlockRules, report: HullCompletionReport): Int32Array {
  const { nx, ny, nz } = grid;
  const kept = new Int32Array(solid.length);
  const seen = new Uint8Array(solid.length);
  const stack: number[] = [], members: number[] = [];
  for (let start = 0; start < solid.length; start++) {
    if (!solid[start] || seen[start]) continue;
    seen[start] = 1;
    stack.push(start);
    members.length = 0;
    let atEdge = false;
    while (stack.length > 0) {
      const at = stack.pop()!;
      members.push(at);
      const ix = at % nx, iy = Math.floor(at / nx) % ny, iz = Math.floor(at / (nx * ny));
      if (ix === 0 || iy === 0 || iz === 0 || ix === nx - 1 || iy === ny - 1 || iz === nz - 1) { atEdge = true; continue; }
      for (const q of [at - 1, at + 1, at - nx, at + nx, at - nx * ny, at + nx * ny]) {
        if (solid[q] && !seen[q]) { seen[q] = 1; stack.push(q); }
      }
    }
    report.hullBlocks++;
    if (atEdge) { report.hullBlocksAtEdge++; continue; }
    if (members.length < rules.minCells) { report.hullBlocksSmall++; continue; }
    if (unseenFaceShare(members, solid, grid, rules) > rules.maxUnseenFaceShare) { report.hullBlocksAgainstSurface++; continue; }
    report.hullBlocksKept++;
    for (const at of members) kept[at] = report.hullBlocksKept;
  }
  return kept;
}

/**
 * The share of a block's outer faces (leaving out those toward the ground) that face space no view
 * saw through. A free-standing object is seen around: only where it stands close to another
 * surface is the space beside it hidden from every view. A hole in a plain wall's depth that no view
 * measured leaves a slab of solid cells in the wall's plane, leaning on the space behind the wall.
 */
function unseenFaceShare(members: number[], solid: Uint8Array, grid: Grid, rules: BlockRules): number {
  const { nx, ny } = grid;
  let seen = 0, unseen = 0;
  for (const at of members) {
    for (const next of [at - 1, at + 1, at - nx, at + nx, at - nx * ny, at + nx * ny]) {
      if (solid[next]) continue;
      const ix = next % nx, iy = Math.floor(next / nx) % ny, iz = Math.floor(next / (nx * ny));
      if (aboveGround(rules.ground, grid, ix, iy, iz) < grid.cell) continue;
      if (rules.carving[next] > 0) seen++;
      else unseen++;
    }
  }
  return seen + unseen > 0 ? unseen / (seen + unseen) : 1;
}

/** The outward normal of a block at a cell: minus the gradient of its cells' occupancy over a 5 × 5 × 5 neighbourhood; null where flat. */
function blockNormal(kept: Int32Array, grid: Grid, ix: number, iy: number, iz: number): number[] | null {
  const { nx, ny, nz } = grid;
  const g = [0, 0, 0];
  for (let dz = -2; dz <= 2; dz++) for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) {
    const x = ix + dx, y = iy + dy, z = iz + dz;
    if (x < 0 || y < 0 || z < 0 || x >= nx || y >= ny || z >= nz) continue;
    if (!kept[(z * ny + y) * nx + x]) continue;
    g[0] += dx; g[1] += dy; g[2] += dz;
  }
  const length = Math.hypot(g[0], g[1], g[2]);
  return length > 0 ? [-g[0] / length, -g[1] / length, -g[2] / length] : null;
}

/** The mean colour of the measured points within the kept blocks' box (grey where none). */
function meanColourNear(measured: { positions: Float32Array; colors: Uint8Array; count: number }, grid: Grid, kept: Int32Array): number[] {
  const { nx, ny, nz, cell, origin } = grid;
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (let at = 0; at < kept.length; at++) {
    if (!kept[at]) continue;
    const i = [at % nx, Math.floor(at / nx) % ny, Math.floor(at / (nx * ny))];
    for (let a = 0; a < 3; a++) { lo[a] = Math.min(lo[a], origin[a] + (i[a] - 1) * cell); hi[a] = Math.max(hi[a], origin[a] + (i[a] + 2) * cell); }
  }
  void nz;
  const sum = [0, 0, 0];
  let n = 0;
  for (let i = 0; i < measured.count; i++) {
    const x = measured.positions[3 * i], y = measured.positions[3 * i + 1], z = measured.positions[3 * i + 2];
    if (x < lo[0] || y < lo[1] || z < lo[2] || x > hi[0] || y > hi[1] || z > hi[2]) continue;
    for (let c = 0; c < 3; c++) sum[c] += measured.colors[3 * i + c];
    n++;
  }
  return n > 0 ? sum.map((s) => Math.round(s / n)) : [200, 200, 200];
}
