/** @module Accuracy figures for dense tests: depth-map error against rendered depth, cloud-to-surface distances. */
import type { DepthMap } from "../../../compute/scene/index.js";
import type { RenderedView } from "../../support/render.js";

/** Nearest-neighbour distances by a uniform hash grid (cell = maxDistance); Infinity beyond maxDistance. */
export function nearestDistances(queries: ArrayLike<number>, points: ArrayLike<number>, maxDistance: number): Float64Array {
  const cell = maxDistance;
  const grid = new Map<string, number[]>();
  const key = (x: number, y: number, z: number): string => `${Math.floor(x / cell)},${Math.floor(y / cell)},${Math.floor(z / cell)}`;
  for (let i = 0; i < points.length; i += 3) {
    const k = key(points[i], points[i + 1], points[i + 2]);
    const list = grid.get(k);
    if (list) list.push(i);
    else grid.set(k, [i]);
  }
  const out = new Float64Array(queries.length / 3).fill(Infinity);
  for (let q = 0; q < out.length; q++) {
    const x = queries[3 * q];
    const y = queries[3 * q + 1];
    const z = queries[3 * q + 2];
    const cx = Math.floor(x / cell);
    const cy = Math.floor(y / cell);
    const cz = Math.floor(z / cell);
    let best = Infinity;
    for (let dx = -1; dx <= 1; dx++) {
      for (let dy = -1; dy <= 1; dy++) {
        for (let dz = -1; dz <= 1; dz++) {
          for (const i of grid.get(`${cx + dx},${cy + dy},${cz + dz}`) ?? []) {
            best = Math.min(best, Math.hypot(points[i] - x, points[i + 1] - y, points[i + 2] - z));
          }
        }
      }
    }
    out[q] = best <= maxDistance ? best : Infinity;
  }
  return out;
}

export function median(values: ArrayLike<number>): number {
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/**
 * Depth-map figures over the pixels whose true surface point at least `minOtherViews` other views
 * see (only those can be matched): valid fraction and median relative depth error.
 */
export function depthMapFigures(map: DepthMap, views: RenderedView[], minOtherViews = 2): { validFraction: number; medianRelError: number; matchable: number } {
  const ref = views[map.viewIndex];
  const errors: number[] = [];
  let matchable = 0;
  for (let p = 0; p < ref.depth.length; p++) {
    const d = ref.depth[p];
    if (!(d > 0) || seenBy(ref, p, views) < minOtherViews) continue;
    matchable++;
    if (map.depth[p] > 0) errors.push(Math.abs(map.depth[p] - d) / d);
  }
  return { validFraction: errors.length / matchable, medianRelError: median(errors), matchable };
}

/** How many other views see the true surface point of pixel p of `ref` unoccluded. */
function seenBy(ref: RenderedView, p: number, views: RenderedView[]): number {
  const col = p % ref.width;
  const row = (p - col) / ref.width;
  const d = ref.depth[p];
  const { R, t, K } = ref;
  const xc = (d * (col + 0.5 - K[2])) / K[0] - t[0];
  const yc = (d * (row + 0.5 - K[5])) / K[4] - t[1];
  const zc = d - t[2];
  const X = [R[0] * xc + R[3] * yc + R[6] * zc, R[1] * xc + R[4] * yc + R[7] * zc, R[2] * xc + R[5] * yc + R[8] * zc];
  let count = 0;
  for (const v of views) {
    if (v === ref) continue;
    const z = v.R[6] * X[0] + v.R[7] * X[1] + v.R[8] * X[2] + v.t[2];
    if (z <= 0) continue;
    const c = Math.floor((v.K[0] * (v.R[0] * X[0] + v.R[1] * X[1] + v.R[2] * X[2] + v.t[0])) / z + v.K[2]);
    const r = Math.floor((v.K[4] * (v.R[3] * X[0] + v.R[4] * X[1] + v.R[5] * X[2] + v.t[1])) / z + v.K[5]);
    if (c < 0 || r < 0 || c >= v.width || r >= v.height) continue;
    const dv = v.depth[r * v.width + c];
    if (dv > 0 && Math.abs(dv - z) < 0.01 * z) count++;
  }
  return count;
}
