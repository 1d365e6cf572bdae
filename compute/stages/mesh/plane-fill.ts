/**
 * @module Triangulating a large planar hole: the loop's vertices and a square grid of new points
 * inside it, at the lattice's spacing, joined by a Delaunay triangulation (delaunator) whose
 * triangles outside the loop are dropped.
 *
 * Why not a fan around the centroid (fill-holes.ts, for small holes): across a large hole a fan
 * makes long slivers that the texture stage cannot paint well, and over a non-convex loop its
 * triangles overlap and leave the loop. The grid keeps the fill's faces the size of the mesh's
 * own, so texturing and simplification treat them like any other face. The loop's edges are
 * about one grid step long and the grid stays half a step away from them, so Delaunay edges
 * follow the loop; a triangle is kept when its centroid is inside the loop (even-odd rule on a
 * raster of the loop at half the grid step).
 */
import Delaunator from "delaunator";
import { cross3, norm3 } from "../../math/linalg.js";

export interface PlaneFrame {
  origin: number[];
  /** Unit axes in the plane; u × v is the side the fill faces. */
  u: number[];
  v: number[];
}

export interface PlaneFill {
  /** New vertices (3 per point), on the plane, inside the loop. */
  interior: Float64Array;
  /** Triangles: indices < loop.length are the loop's vertices in loop order, the rest interior points. CCW seen from u × v. */
  triangles: Uint32Array;
}

/** Unit axes (u, v) of the plane with unit normal `normal`, such that u × v = normal. */
export function planeAxes(normal: ArrayLike<number>): { u: number[]; v: number[] } {
  // Any direction not nearly parallel to the normal gives the first axis.
  const helper = Math.abs(normal[0]!) < 0.9 ? [1, 0, 0] : [0, 1, 0];
  const across = cross3(helper, normal);
  const length = norm3(across);
  const u = Array.from(across, (x) => x / length);
  return { u, v: Array.from(cross3(normal, u)) };
}

/** A raster of the loop's inside (even-odd), cells of `cell` in plane coordinates. */
class LoopMask {
  readonly minU: number;
  readonly minV: number;
  readonly cols: number;
  readonly rows: number;
  readonly inside: Uint8Array;

  constructor(us: Float64Array, vs: Float64Array, readonly cell: number) {
    let minU = Infinity, minV = Infinity, maxU = -Infinity, maxV = -Infinity;
    for (let i = 0; i < us.length; i++) {
      minU = Math.min(minU, us[i]); maxU = Math.max(maxU, us[i]);
      minV = Math.min(minV, vs[i]); maxV = Math.max(maxV, vs[i]);
    }
    this.minU = minU; this.minV = minV;
    this.cols = Math.max(1, Math.ceil((maxU - minU) / cell) + 1);
    this.rows = Math.max(1, Math.ceil((maxV - minV) / cell) + 1);
    this.inside = new Uint8Array(this.cols * this.rows);
    const crossings: number[] = [];
    for (let row = 0; row < this.rows; row++) {
      const v = minV + (row + 0.5) * cell;
      crossings.length = 0;
      for (let i = 0, j = us.length - 1; i < us.length; j = i++) {
        if ((vs[i] > v) === (vs[j] > v)) continue;
        crossings.push(us[j] + ((v - vs[j]) * (us[i] - us[j])) / (vs[i] - vs[j]));
      }
      crossings.sort((a, b) => a - b);
      for (let c = 0; c + 1 < crossings.length; c += 2) {
        const from = Math.max(0, Math.ceil((crossings[c] - minU) / cell - 0.5));
        const to = Math.min(this.cols - 1, Math.floor((crossings[c + 1] - minU) / cell - 0.5));
        for (let col = from; col <= to; col++) this.inside[row * this.cols + col] = 1;
      }
    }
  }

  contains(u: number, v: number): boolean {
    const col = Math.floor((u - this.minU) / this.cell);
    const row = Math.floor((v - this.minV) / this.cell);
    return col >= 0 && row >= 0 && col < this.cols && row < this.rows && this.inside[row * this.cols + col] === 1;
  }
}

/**
 * Fills the loop (3D positions, in loop order) lying near the plane `frame`, with grid points
 * `step` apart. The loop's own winding does not matter: every triangle is made CCW in (u, v).
 */
export function fillPlanarLoop(loop: Float64Array, frame: PlaneFrame, step: number): PlaneFill {
  const n = loop.length / 3;
  const us = new Float64Array(n), vs = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const d = [0, 1, 2].map((a) => loop[3 * i + a] - frame.origin[a]);
    us[i] = d[0] * frame.u[0] + d[1] * frame.u[1] + d[2] * frame.u[2];
    vs[i] = d[0] * frame.v[0] + d[1] * frame.v[1] + d[2] * frame.v[2];
  }
  const mask = new LoopMask(us, vs, step / 2);
  const near = new Set<number>();
  const key = (cu: number, cv: number) => cu * 1_000_003 + cv;
  for (let i = 0; i < n; i++) near.add(key(Math.round((us[i] - mask.minU) / step), Math.round((vs[i] - mask.minV) / step)));
  const gridU: number[] = [], gridV: number[] = [];
  const cols = Math.ceil((mask.cols * mask.cell) / step), rows = Math.ceil((mask.rows * mask.cell) / step);
  for (let row = 1; row < rows; row++) {
    for (let col = 1; col < cols; col++) {
      if (near.has(key(col, row))) continue; // a loop vertex holds this spot already
      const u = mask.minU + col * step, v = mask.minV + row * step;
      if (!mask.contains(u, v) || tooCloseToLoop(u, v, us, vs, step / 2, mask)) continue;
      gridU.push(u); gridV.push(v);
    }
  }
  const coords = new Float64Array(2 * (n + gridU.length));
  for (let i = 0; i < n; i++) { coords[2 * i] = us[i]; coords[2 * i + 1] = vs[i]; }
  for (let i = 0; i < gridU.length; i++) { coords[2 * (n + i)] = gridU[i]; coords[2 * (n + i) + 1] = gridV[i]; }
  const triangles = keptTriangles(new Delaunator(coords).triangles, coords, mask);
  const interior = new Float64Array(3 * gridU.length);
  for (let i = 0; i < gridU.length; i++) {
    for (let a = 0; a < 3; a++) interior[3 * i + a] = frame.origin[a] + gridU[i] * frame.u[a] + gridV[i] * frame.v[a];
  }
  return { interior, triangles };
}

/** Grid points within `gap` of a loop edge are left out, so Delaunay edges follow the loop. Checked only near the mask's border cells. */
function tooCloseToLoop(u: number, v: number, us: Float64Array, vs: Float64Array, gap: number, mask: LoopMask): boolean {
  // Inside cells all of whose neighbours are inside are far from the loop.
  const d = mask.cell;
  let border = false;
  for (const [du, dv] of [[-d, 0], [d, 0], [0, -d], [0, d], [-2 * d, 0], [2 * d, 0], [0, -2 * d], [0, 2 * d]]) border ||= !mask.contains(u + du, v + dv);
  if (!border) return false;
  const gap2 = gap * gap;
  for (let i = 0, j = us.length - 1; i < us.length; j = i++) {
    const eu = us[i] - us[j], ev = vs[i] - vs[j];
    const len2 = eu * eu + ev * ev;
    const s = len2 > 0 ? Math.max(0, Math.min(1, ((u - us[j]) * eu + (v - vs[j]) * ev) / len2)) : 0;
    const du = us[j] + s * eu - u, dv = vs[j] + s * ev - v;
    if (du * du + dv * dv < gap2) return true;
  }
  return false;
}

/** Delaunay triangles whose centroid is inside the loop, each made CCW in (u, v). */
function keptTriangles(all: Uint32Array, coords: Float64Array, mask: LoopMask): Uint32Array {
  const kept: number[] = [];
  for (let t = 0; t < all.length; t += 3) {
    const a = all[t], b = all[t + 1], c = all[t + 2];
    const cu = (coords[2 * a] + coords[2 * b] + coords[2 * c]) / 3;
    const cv = (coords[2 * a + 1] + coords[2 * b + 1] + coords[2 * c + 1]) / 3;
    if (!mask.contains(cu, cv)) continue;
    const cross = (coords[2 * b] - coords[2 * a]) * (coords[2 * c + 1] - coords[2 * a + 1]) - (coords[2 * b + 1] - coords[2 * a + 1]) * (coords[2 * c] - coords[2 * a]);
    if (cross > 0) kept.push(a, b, c);
    else if (cross < 0) kept.push(a, c, b);
  }
  return new Uint32Array(kept);
}
