/**
 * @module Planar priors for PatchMatch (Xu & Tao, "Planar Prior Assisted PatchMatch Multi-View
 * Stereo", AAAI 2020, "ACMP"): where the photometric cost cannot tell planes apart (a plain
 * wall, a floor, a table top), the plane of a triangle of confident pixels around it decides.
 *
 * After a level's PatchMatch, the pixel of lowest cost in each `supportStep`² cell is a support
 * point when its cost is at most `supportMaxCost`. The support points are Delaunay-triangulated
 * in the image; each triangle's three back-projected points give a plane in the reference
 * camera's frame, and every pixel inside the triangle gets that plane as its prior. The prior
 * enters the cost as `cost + weight · (1 − exp(−Δd²/2σd² − θ²/2σθ²))` (Δd the relative depth
 * difference to the prior plane along the pixel's ray, θ the angle between the normals), so a
 * pixel whose photometric cost separates planes by more than `weight` is decided by the photos,
 * and one whose cost is flat takes the prior's plane.
 *
 * Only pixels the photos left undecided get a prior: those whose cost on the level the prior is
 * built on stays above `undecidedCost`. With the prior on every pixel of its triangles (as in
 * ACMP), triangles between support points cut across carved relief that the photos had decided,
 * and it came out rough (docs/decisions.md, "Planar priors only where the photos left the depth
 * undecided").
 *
 * ACMP keeps every triangle. Here a triangle is left out when its plane is seen at a grazing
 * angle (over ~80° from the ray): such a triangle spans a depth edge (a foreground vertex and a
 * background one), whose plane is no surface. (A test of the plane against its vertices' own
 * normals rejected most triangles across plain regions: PatchMatch's normals are its least
 * accurate part.) Triangles whose longest edge exceeds `maxEdgeFraction` of the image's longest
 * side are left out too: across a very large gap there is little evidence of one surface, and
 * the mesh stage's plane completion decides such holes with the cameras' verdicts.
 *
 * Triangles are kept in normalised camera coordinates, so one prior serves every level of the
 * pyramid: each level rasterises it at its own size.
 */
import Delaunator from "delaunator";

export interface PlanarPriorParams {
  /** Weight of the prior in the cost (0 = no prior). */
  weight: number;
  /** Highest cost of a support point. */
  supportMaxCost: number;
  /** Lowest cost of a pixel that gets a prior (below it, the photos decide). */
  undecidedCost: number;
  /** Cell side (pixels of the level the prior is built on) holding at most one support point. */
  supportStep: number;
  /** σ of the relative depth difference, and of the normal angle (degrees). */
  depthSigma: number;
  angleSigmaDeg: number;
  /** Longest triangle edge kept, as a fraction of the image's longest side. */
  maxEdgeFraction: number;
  /** Red–black iterations with the prior on the level it was built on. */
  iterations: number;
}

export const NO_PLANAR_PRIOR: PlanarPriorParams = {
  weight: 0,
  supportMaxCost: 0.1,
  undecidedCost: 0.4,
  supportStep: 5,
  depthSigma: 0.005,
  angleSigmaDeg: 5,
  maxEdgeFraction: 0.5,
  iterations: 0,
};

/** Triangles of support points in normalised camera coordinates, with their planes. */
export interface PlanarPrior {
  /** Per triangle: x0, y0, x1, y1, x2, y2 (x = (u − cx) / f). */
  corners: Float64Array;
  /** Per triangle: the plane n·X = ρ in the reference camera frame (nx, ny, nz, ρ; ρ < 0). */
  planes: Float64Array;
  count: number;
  /** The pixels the photos left undecided (1) on the level the prior was built on, and its size. */
  undecided: Uint8Array;
  undecidedWidth: number;
  undecidedHeight: number;
  /** Support points, and the triangles left out: too long, or grazing (or degenerate). */
  supportPoints: number;
  leftOut: { long: number; grazing: number };
}

/** The prior rasterised at one level: the triangle of each pixel (−1: none). */
export interface PriorRaster {
  triangleOf: Int32Array;
  planes: Float64Array;
}

export interface PinholeSize {
  width: number;
  height: number;
  focal: number;
  cx: number;
  cy: number;
}

export interface SolvedPlanes {
  depth: Float32Array;
  normal: Float32Array;
  cost: Float32Array;
}

/** The support points of a solved level, triangulated into prior planes. */
export function buildPlanarPrior(view: PinholeSize, solved: SolvedPlanes, params: PlanarPriorParams): PlanarPrior {
  const support = supportPoints(view, solved, params);
  const count = support.length / 3;
  const leftOut = { long: 0, grazing: 0 };
  const undecided = new Uint8Array(view.width * view.height);
  for (let p = 0; p < undecided.length; p++) undecided[p] = solved.cost[p] > params.undecidedCost ? 1 : 0;
  const gate = { undecided, undecidedWidth: view.width, undecidedHeight: view.height };
  if (count < 3) return { corners: new Float64Array(0), planes: new Float64Array(0), count: 0, ...gate, supportPoints: count, leftOut };
  const coords = new Float64Array(2 * count);
  for (let i = 0; i < count; i++) {
    coords[2 * i] = support[3 * i];
    coords[2 * i + 1] = support[3 * i + 1];
  }
  const triangles = new Delaunator(coords).triangles;
  const corners: number[] = [];
  const planes: number[] = [];
  const maxEdge = params.maxEdgeFraction * Math.max(view.width, view.height);
  const X = new Float64Array(9);
  for (let t = 0; t < triangles.length; t += 3) {
    const a = triangles[t];
    const b = triangles[t + 1];
    const c = triangles[t + 2];
    if (longestEdge(coords, a, b, c) > maxEdge) {
      leftOut.long++;
      continue;
    }
    [a, b, c].forEach((k, i) => backProject(view, coords[2 * k], coords[2 * k + 1], support[3 * k + 2], X, 3 * i));
    const plane = planeThrough(X);
    if (!plane) {
      leftOut.grazing++;
      continue;
    }
    for (const k of [a, b, c]) corners.push((coords[2 * k] - view.cx) / view.focal, (coords[2 * k + 1] - view.cy) / view.focal);
    planes.push(...plane);
  }
  return { corners: Float64Array.from(corners), planes: Float64Array.from(planes), count: planes.length / 4, ...gate, supportPoints: count, leftOut };
}

/**
 * Per cell, the pixel of lowest cost if low enough and if its plane agrees with its neighbours:
 * (u, v, depth) triples at pixel centres. A low cost alone is not enough: a window that straddles
 * a plain region and its textured edge can match well at a wrong depth, and such a point would
 * tilt every triangle across the plain region. The plane of a kept point passes within
 * `SUPPORT_AGREEMENT` (relative depth) of at least `SUPPORT_NEIGHBOURS` of the candidates in
 * the 8 cells around it.
 */
function supportPoints(view: PinholeSize, solved: SolvedPlanes, params: PlanarPriorParams): Float64Array {
  const { width, focal, cx, cy } = view;
  const step = params.supportStep;
  const cols = Math.ceil(width / step);
  const rows = Math.ceil(view.height / step);
  const candidate = cellCandidates(view, solved, params, cols, rows);
  const out: number[] = [];
  for (let cr = 0; cr < rows; cr++) {
    for (let cc = 0; cc < cols; cc++) {
      const p = candidate[cr * cols + cc];
      if (p < 0) continue;
      const d = solved.depth[p];
      const nx = solved.normal[3 * p];
      const ny = solved.normal[3 * p + 1];
      const nz = solved.normal[3 * p + 2];
      const rho = d * (nx * ((p % width) + 0.5 - cx) / focal + ny * (Math.floor(p / width) + 0.5 - cy) / focal + nz);
      let agreeing = 0;
      let missing = 0;
      for (let dr = -1; dr <= 1; dr++) {
        for (let dc = -1; dc <= 1; dc++) {
          const r = cr + dr;
          const c = cc + dc;
          if ((dr === 0 && dc === 0) || r < 0 || c < 0 || r >= rows || c >= cols) continue;
          const q = candidate[r * cols + c];
          if (q < 0) {
            missing++;
            continue;
          }
          const denom = nx * ((q % width) + 0.5 - cx) / focal + ny * (Math.floor(q / width) + 0.5 - cy) / focal + nz;
          if (denom < -1e-6 && Math.abs(rho / denom - solved.depth[q]) <= SUPPORT_AGREEMENT * solved.depth[q]) agreeing++;
        }
      }
      if (missing === 0 && agreeing >= SUPPORT_NEIGHBOURS) out.push((p % width) + 0.5, Math.floor(p / width) + 0.5, d);
    }
  }
  return Float64Array.from(out);
}

/** Relative depth within which a support point's plane must pass its neighbours, and how many it must pass. */
const SUPPORT_AGREEMENT = 0.01;
const SUPPORT_NEIGHBOURS = 4;

/** Per cell (row-major, `cols` × `rows`), its pixel of lowest cost at most supportMaxCost, or −1. */
function cellCandidates(view: PinholeSize, solved: SolvedPlanes, params: PlanarPriorParams, cols: number, rows: number): Int32Array {
  const { width, height } = view;
  const step = params.supportStep;
  const candidate = new Int32Array(cols * rows).fill(-1);
  for (let cr = 0; cr < rows; cr++) {
    for (let cc = 0; cc < cols; cc++) {
      let bestCost = params.supportMaxCost;
      for (let row = cr * step; row < Math.min(height, (cr + 1) * step); row++) {
        for (let col = cc * step; col < Math.min(width, (cc + 1) * step); col++) {
          const p = row * width + col;
          if (solved.depth[p] > 0 && solved.cost[p] <= bestCost) {
            bestCost = solved.cost[p];
            candidate[cr * cols + cc] = p;
          }
        }
      }
    }
  }
  return candidate;
}

function longestEdge(coords: Float64Array, a: number, b: number, c: number): number {
  const d = (i: number, j: number) => Math.hypot(coords[2 * i] - coords[2 * j], coords[2 * i + 1] - coords[2 * j + 1]);
  return Math.max(d(a, b), d(b, c), d(c, a));
}

function backProject(view: PinholeSize, u: number, v: number, depth: number, out: Float64Array, at: number): void {
  out[at] = (depth * (u - view.cx)) / view.focal;
  out[at + 1] = (depth * (v - view.cy)) / view.focal;
  out[at + 2] = depth;
}

/** Minimum |cos| between a prior plane's normal and the ray through its centroid: below it (~80°) the plane is grazing. */
const MIN_FACING_COS = 0.17;

/** The plane through three points, its normal facing the camera (ρ = n·X < 0), or null when degenerate or grazing. */
function planeThrough(X: Float64Array): [number, number, number, number] | null {
  const e1 = [X[3] - X[0], X[4] - X[1], X[5] - X[2]];
  const e2 = [X[6] - X[0], X[7] - X[1], X[8] - X[2]];
  let nx = e1[1] * e2[2] - e1[2] * e2[1];
  let ny = e1[2] * e2[0] - e1[0] * e2[2];
  let nz = e1[0] * e2[1] - e1[1] * e2[0];
  const len = Math.hypot(nx, ny, nz);
  if (!(len > 0)) return null;
  nx /= len;
  ny /= len;
  nz /= len;
  const gx = (X[0] + X[3] + X[6]) / 3;
  const gy = (X[1] + X[4] + X[7]) / 3;
  const gz = (X[2] + X[5] + X[8]) / 3;
  let facing = (nx * gx + ny * gy + nz * gz) / Math.hypot(gx, gy, gz);
  if (facing > 0) {
    nx = -nx;
    ny = -ny;
    nz = -nz;
    facing = -facing;
  }
  if (-facing < MIN_FACING_COS) return null;
  return [nx, ny, nz, nx * X[0] + ny * X[1] + nz * X[2]];
}

/**
 * The prior at one level's size: each pixel centre inside a triangle gets that triangle (the last
 * one drawn on a shared edge), if the photos left its pixel of the prior's level undecided (the
 * levels halve exactly, so that pixel is the one at the same fraction of the image).
 */
export function rasterizePrior(prior: PlanarPrior, view: PinholeSize): PriorRaster {
  const { width, height, focal, cx, cy } = view;
  const triangleOf = new Int32Array(width * height).fill(-1);
  const u = new Float64Array(3);
  const v = new Float64Array(3);
  for (let t = 0; t < prior.count; t++) {
    for (let i = 0; i < 3; i++) {
      u[i] = focal * prior.corners[6 * t + 2 * i] + cx;
      v[i] = focal * prior.corners[6 * t + 2 * i + 1] + cy;
    }
    const area = (u[1] - u[0]) * (v[2] - v[0]) - (u[2] - u[0]) * (v[1] - v[0]);
    if (area === 0) continue;
    const colMin = Math.max(0, Math.floor(Math.min(u[0], u[1], u[2])));
    const colMax = Math.min(width - 1, Math.ceil(Math.max(u[0], u[1], u[2])));
    const rowMin = Math.max(0, Math.floor(Math.min(v[0], v[1], v[2])));
    const rowMax = Math.min(height - 1, Math.ceil(Math.max(v[0], v[1], v[2])));
    for (let row = rowMin; row <= rowMax; row++) {
      const py = row + 0.5;
      for (let col = colMin; col <= colMax; col++) {
        const px = col + 0.5;
        // Barycentric signs, each edge's cross product scaled by the area's sign.
        const w0 = ((u[1] - px) * (v[2] - py) - (u[2] - px) * (v[1] - py)) / area;
        const w1 = ((u[2] - px) * (v[0] - py) - (u[0] - px) * (v[2] - py)) / area;
        const w2 = 1 - w0 - w1;
        if (w0 >= 0 && w1 >= 0 && w2 >= 0 && undecidedAt(prior, col, row, width, height)) triangleOf[row * width + col] = t;
      }
    }
  }
  return { triangleOf, planes: prior.planes };
}

function undecidedAt(prior: PlanarPrior, col: number, row: number, width: number, height: number): boolean {
  const c = Math.min(prior.undecidedWidth - 1, Math.floor(((col + 0.5) * prior.undecidedWidth) / width));
  const r = Math.min(prior.undecidedHeight - 1, Math.floor(((row + 0.5) * prior.undecidedHeight) / height));
  return prior.undecided[r * prior.undecidedWidth + c] === 1;
}

/**
 * The prior's cost share of the hypothesis (depth d at the pixel whose normalised ray is
 * (rx, ry, 1), normal n): weight · (1 − exp(−Δd²/2σd² − θ²/2σθ²)), with θ² ≈ 2(1 − cos θ).
 * 0 where the pixel has no prior.
 */
export function priorPenalty(raster: PriorRaster, p: number, rx: number, ry: number, d: number, nx: number, ny: number, nz: number, params: PlanarPriorParams): number {
  const t = raster.triangleOf[p];
  if (t < 0) return 0;
  const deviation = priorDeviation(raster, t, rx, ry, d, nx, ny, nz, params);
  return params.weight * (1 - Math.exp(-0.5 * deviation));
}

/** Δd²/σd² + θ²/σθ² of a hypothesis from triangle t's plane (Infinity when the plane misses the ray). */
function priorDeviation(raster: PriorRaster, t: number, rx: number, ry: number, d: number, nx: number, ny: number, nz: number, params: PlanarPriorParams): number {
  const { planes } = raster;
  const px = planes[4 * t];
  const py = planes[4 * t + 1];
  const pz = planes[4 * t + 2];
  const denom = px * rx + py * ry + pz;
  if (denom > -1e-6) return Infinity;
  const priorDepth = planes[4 * t + 3] / denom;
  const relative = (d - priorDepth) / priorDepth;
  const sigmaAngle = (params.angleSigmaDeg * Math.PI) / 180;
  const angle2 = 2 * Math.max(0, 1 - (nx * px + ny * py + nz * pz));
  return (relative * relative) / (params.depthSigma * params.depthSigma) + angle2 / (sigmaAngle * sigmaAngle);
}

/** The prior plane's depth along the ray (rx, ry, 1) of a pixel in triangle t, or 0 when it misses. */
export function priorDepthAt(raster: PriorRaster, t: number, rx: number, ry: number): number {
  const { planes } = raster;
  const denom = planes[4 * t] * rx + planes[4 * t + 1] * ry + planes[4 * t + 2];
  return denom < -1e-6 ? planes[4 * t + 3] / denom : 0;
}

/** Whether a hypothesis lies within two σ of its pixel's prior in depth and in angle (1) or not, or has none (0). */
export function agreesWithPrior(raster: PriorRaster, p: number, rx: number, ry: number, d: number, nx: number, ny: number, nz: number, params: PlanarPriorParams): boolean {
  const t = raster.triangleOf[p];
  if (t < 0) return false;
  const { planes } = raster;
  const denom = planes[4 * t] * rx + planes[4 * t + 1] * ry + planes[4 * t + 2];
  if (denom > -1e-6) return false;
  const priorDepth = planes[4 * t + 3] / denom;
  const cos = nx * planes[4 * t] + ny * planes[4 * t + 1] + nz * planes[4 * t + 2];
  return Math.abs(d - priorDepth) <= 2 * params.depthSigma * priorDepth && cos >= Math.cos((2 * params.angleSigmaDeg * Math.PI) / 180);
}
