/**
 * @module Fusion of filtered depth maps into one coloured point cloud with normals.
 *
 * Follows the fusion of Schönberger et al., ECCV 2016 §4.4 (COLMAP's StereoFusion): a pixel
 * seeds a cluster; its 3-D point is projected into every other view, and the pixel hit there
 * joins the cluster when its depth and normal agree and its own 3-D point reprojects near the
 * seed pixel; joined pixels are consumed so
 * no surface point is emitted twice. The fused point, colour and normal are cluster means.
 * Across dense clusters (clusters.ts) the same holds through `yieldTo`: a point that a view of
 * an earlier cluster joins is that cluster's to emit.
 */
import type { PointCloud } from "../../scene/index.js";
import type { DenseView } from "./views.js";

export interface FusionOptions {
  maxReprojectionPx: number;
  maxRelativeDepthError: number;
  maxNormalAngleDeg: number;
  /** Fewest pixels (views) per fused point. */
  minFusedViews: number;
  /** Only the first `seedMaps` maps seed points (default all); the others only join them. */
  seedMaps?: number;
  /**
   * Per map, 1 when a point it joins belongs to someone else (a view whose own cluster fuses
   * before this one, clusters.ts): such a point is consumed here but not emitted.
   */
  yieldTo?: Uint8Array;
}

export interface FusionMap {
  view: DenseView;
  /** Filtered depth (0 = none) and camera-frame normals. */
  depth: Float32Array;
  normal: Float32Array;
}

/** World point and world normal of pixel p of map m. */
function pixelToWorld(m: FusionMap, p: number, outX: Float64Array, outN: Float64Array): void {
  const { view, depth, normal } = m;
  const col = p % view.width;
  const row = (p - col) / view.width;
  const d = depth[p];
  const xc = (d * (col + 0.5 - view.cx)) / view.focal - view.t[0];
  const yc = (d * (row + 0.5 - view.cy)) / view.focal - view.t[1];
  const zc = d - view.t[2];
  const R = view.R;
  // worldFromCam: X = Rᵀ(x − t); normals rotate by Rᵀ.
  outX[0] = R[0] * xc + R[3] * yc + R[6] * zc;
  outX[1] = R[1] * xc + R[4] * yc + R[7] * zc;
  outX[2] = R[2] * xc + R[5] * yc + R[8] * zc;
  const nx = normal[3 * p];
  const ny = normal[3 * p + 1];
  const nz = normal[3 * p + 2];
  outN[0] = R[0] * nx + R[3] * ny + R[6] * nz;
  outN[1] = R[1] * nx + R[4] * ny + R[7] * nz;
  outN[2] = R[2] * nx + R[5] * ny + R[8] * nz;
}

export function fuse(maps: FusionMap[], options: FusionOptions): PointCloud {
  const used = maps.map((m) => new Uint8Array(m.depth.length));
  const positions: number[] = [];
  const colors: number[] = [];
  const normals: number[] = [];
  const cosMax = Math.cos((options.maxNormalAngleDeg * Math.PI) / 180);
  const seedX = new Float64Array(3);
  const seedN = new Float64Array(3);
  const X = new Float64Array(3);
  const N = new Float64Array(3);
  const seedMaps = Math.min(maps.length, options.seedMaps ?? maps.length);
  for (let i = 0; i < seedMaps; i++) {
    const seedMap = maps[i];
    for (let p = 0; p < seedMap.depth.length; p++) {
      if (!(seedMap.depth[p] > 0) || used[i][p]) continue;
      pixelToWorld(seedMap, p, seedX, seedN);
      const sum = [seedX[0], seedX[1], seedX[2], seedN[0], seedN[1], seedN[2], seedMap.view.rgb[3 * p], seedMap.view.rgb[3 * p + 1], seedMap.view.rgb[3 * p + 2]];
      let members = 1;
      let yielded = false;
      used[i][p] = 1;
      for (let j = 0; j < maps.length; j++) {
        if (j === i) continue;
        const q = matchingPixel(maps[j], seedX, seedN, used[j], options, cosMax, X, N);
        if (q >= 0 && !reprojectsNear(seedMap.view, X, p, options.maxReprojectionPx)) continue;
        if (q < 0) continue;
        used[j][q] = 1;
        members++;
        if (options.yieldTo?.[j] === 1) yielded = true;
        for (let k = 0; k < 3; k++) {
          sum[k] += X[k];
          sum[3 + k] += N[k];
          sum[6 + k] += maps[j].view.rgb[3 * q + k];
        }
      }
      if (members < options.minFusedViews || yielded) continue;
      const nLen = Math.hypot(sum[3], sum[4], sum[5]) || 1;
      for (let k = 0; k < 3; k++) {
        positions.push(sum[k] / members);
        normals.push(sum[3 + k] / nLen);
        colors.push(Math.round(sum[6 + k] / members));
      }
    }
  }
  return { count: positions.length / 3, positions: new Float32Array(positions), colors: new Uint8Array(colors), normals: new Float32Array(normals) };
}

/** The unused pixel of map m that agrees with the world point X (normal N), or −1. Writes its point and normal. */
function matchingPixel(m: FusionMap, X: Float64Array, N: Float64Array, used: Uint8Array, options: FusionOptions, cosMax: number, outX: Float64Array, outN: Float64Array): number {
  const { R, t, focal, cx, cy, width, height } = m.view;
  const xc = R[0] * X[0] + R[1] * X[1] + R[2] * X[2] + t[0];
  const yc = R[3] * X[0] + R[4] * X[1] + R[5] * X[2] + t[1];
  const zc = R[6] * X[0] + R[7] * X[1] + R[8] * X[2] + t[2];
  if (!(zc > 0)) return -1;
  const col = Math.floor((focal * xc) / zc + cx);
  const row = Math.floor((focal * yc) / zc + cy);
  if (col < 0 || row < 0 || col >= width || row >= height) return -1;
  const q = row * width + col;
  const d = m.depth[q];
  if (!(d > 0) || used[q]) return -1;
  if (Math.abs(d - zc) > options.maxRelativeDepthError * zc) return -1;
  pixelToWorld(m, q, outX, outN);
  if (outN[0] * N[0] + outN[1] * N[1] + outN[2] * N[2] < cosMax) return -1;
  return q;
}

/** Whether world point X projects into `view` within maxPx of the centre of pixel p. */
function reprojectsNear(view: DenseView, X: Float64Array, p: number, maxPx: number): boolean {
  const { R, t, focal, cx, cy, width } = view;
  const zc = R[6] * X[0] + R[7] * X[1] + R[8] * X[2] + t[2];
  if (!(zc > 0)) return false;
  const col = p % width;
  const row = (p - col) / width;
  const du = (focal * (R[0] * X[0] + R[1] * X[1] + R[2] * X[2] + t[0])) / zc + cx - (col + 0.5);
  const dv = (focal * (R[3] * X[0] + R[4] * X[1] + R[5] * X[2] + t[1])) / zc + cy - (row + 0.5);
  return du * du + dv * dv <= maxPx * maxPx;
}
