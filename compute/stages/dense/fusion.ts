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
 *
 * The loop visits every valid pixel once as a seed and projects it into every other map, so it
 * reads each map's camera from one flat array (CAMERA) and sums into fixed scratch instead of a
 * new array per seed; the arithmetic is the same, operation for operation.
 */
import type { PointCloud } from "../../scene/index.js";
import { GrowableFloat32, GrowableUint8 } from "../../util/growable.js";
import { nativeFusion } from "./native-fusion.js";
import { packCameras, PACKED_CAMERA, type DenseView } from "./views.js";

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

/** A map's camera in `cameras` (views.ts packCameras): R (9, row-major camFromWorld), t (3), focal, cx, cy, width, height. */
const CAMERA = PACKED_CAMERA;

/** World point and world normal of pixel p of map m into out (x, y, z, nx, ny, nz from `at`). */
function pixelToWorld(cameras: Float64Array, m: number, depth: Float32Array, normal: Float32Array, p: number, out: Float64Array, at: number): void {
  const o = CAMERA * m;
  const width = cameras[o + 15];
  const col = p % width;
  const row = (p - col) / width;
  const d = depth[p];
  const xc = (d * (col + 0.5 - cameras[o + 13])) / cameras[o + 12] - cameras[o + 9];
  const yc = (d * (row + 0.5 - cameras[o + 14])) / cameras[o + 12] - cameras[o + 10];
  const zc = d - cameras[o + 11];
  // worldFromCam: X = Rᵀ(x − t); normals rotate by Rᵀ.
  out[at] = cameras[o] * xc + cameras[o + 3] * yc + cameras[o + 6] * zc;
  out[at + 1] = cameras[o + 1] * xc + cameras[o + 4] * yc + cameras[o + 7] * zc;
  out[at + 2] = cameras[o + 2] * xc + cameras[o + 5] * yc + cameras[o + 8] * zc;
  const nx = normal[3 * p];
  const ny = normal[3 * p + 1];
  const nz = normal[3 * p + 2];
  out[at + 3] = cameras[o] * nx + cameras[o + 3] * ny + cameras[o + 6] * nz;
  out[at + 4] = cameras[o + 1] * nx + cameras[o + 4] * ny + cameras[o + 7] * nz;
  out[at + 5] = cameras[o + 2] * nx + cameras[o + 5] * ny + cameras[o + 8] * nz;
}

/** The fused cloud: in the native addon where it loads (native-fusion.ts), else fuseTypeScript; the same bits. */
export function fuse(maps: FusionMap[], options: FusionOptions): PointCloud {
  const addon = nativeFusion();
  if (!addon) return fuseTypeScript(maps, options);
  const cameras = packCameras(maps.map((m) => m.view));
  const cosMax = Math.cos((options.maxNormalAngleDeg * Math.PI) / 180);
  const seedMaps = Math.min(maps.length, options.seedMaps ?? maps.length);
  const [positions, normals, colors] = addon.fuse(
    maps.map((m) => m.depth), maps.map((m) => m.normal), maps.map((m) => m.view.rgb), cameras,
    options.maxRelativeDepthError, cosMax, options.maxReprojectionPx, options.minFusedViews, seedMaps, options.yieldTo ?? null,
  );
  return { count: positions.length / 3, positions, colors, normals };
}

export function fuseTypeScript(maps: FusionMap[], options: FusionOptions): PointCloud {
  const used = maps.map((m) => new Uint8Array(m.depth.length));
  const cameras = packCameras(maps.map((m) => m.view));
  const positions = new GrowableFloat32(3 * 4096);
  const normals = new GrowableFloat32(3 * 4096);
  const colors = new GrowableUint8(3 * 4096);
  const cosMax = Math.cos((options.maxNormalAngleDeg * Math.PI) / 180);
  const maxPx = options.maxReprojectionPx;
  const yieldTo = options.yieldTo;
  // The seed's point and normal (0–5), then a candidate's (6–11).
  const points = new Float64Array(12);
  // Sums of the cluster's points, normals and colours.
  const sum = new Float64Array(9);
  const seedMaps = Math.min(maps.length, options.seedMaps ?? maps.length);
  for (let i = 0; i < seedMaps; i++) {
    const { depth: seedDepth, normal: seedNormal, view: seedView } = maps[i];
    const seedUsed = used[i];
    const rgb = seedView.rgb;
    for (let p = 0; p < seedDepth.length; p++) {
      if (!(seedDepth[p] > 0) || seedUsed[p]) continue;
      pixelToWorld(cameras, i, seedDepth, seedNormal, p, points, 0);
      for (let k = 0; k < 6; k++) sum[k] = points[k];
      sum[6] = rgb[3 * p];
      sum[7] = rgb[3 * p + 1];
      sum[8] = rgb[3 * p + 2];
      let members = 1;
      let yielded = false;
      seedUsed[p] = 1;
      for (let j = 0; j < maps.length; j++) {
        if (j === i) continue;
        const q = matchingPixel(cameras, j, maps[j], used[j], points, options.maxRelativeDepthError, cosMax);
        if (q < 0 || !reprojectsNear(cameras, i, points, p, maxPx)) continue;
        used[j][q] = 1;
        members++;
        if (yieldTo?.[j] === 1) yielded = true;
        const joined = maps[j].view.rgb;
        for (let k = 0; k < 3; k++) {
          sum[k] += points[6 + k];
          sum[3 + k] += points[9 + k];
          sum[6 + k] += joined[3 * q + k];
        }
      }
      if (members < options.minFusedViews || yielded) continue;
      const nLen = Math.hypot(sum[3], sum[4], sum[5]) || 1;
      positions.push3(sum[0] / members, sum[1] / members, sum[2] / members);
      normals.push3(sum[3] / nLen, sum[4] / nLen, sum[5] / nLen);
      colors.push3(Math.round(sum[6] / members), Math.round(sum[7] / members), Math.round(sum[8] / members));
    }
  }
  return { count: positions.length / 3, positions: positions.toArray(), colors: colors.toArray(), normals: normals.toArray() };
}

/**
 * The unused pixel of map m that agrees with the seed's point and normal (points 0–5), or −1.
 * Writes its own point and normal into points 6–11.
 */
function matchingPixel(cameras: Float64Array, m: number, map: FusionMap, used: Uint8Array, points: Float64Array, maxRelativeDepthError: number, cosMax: number): number {
  const o = CAMERA * m;
  const x = points[0];
  const y = points[1];
  const z = points[2];
  const zc = cameras[o + 6] * x + cameras[o + 7] * y + cameras[o + 8] * z + cameras[o + 11];
  if (!(zc > 0)) return -1;
  const xc = cameras[o] * x + cameras[o + 1] * y + cameras[o + 2] * z + cameras[o + 9];
  const yc = cameras[o + 3] * x + cameras[o + 4] * y + cameras[o + 5] * z + cameras[o + 10];
  const focal = cameras[o + 12];
  const width = cameras[o + 15];
  const col = Math.floor((focal * xc) / zc + cameras[o + 13]);
  const row = Math.floor((focal * yc) / zc + cameras[o + 14]);
  if (col < 0 || row < 0 || col >= width || row >= map.view.height) return -1;
  const q = row * width + col;
  const d = map.depth[q];
  if (!(d > 0) || used[q]) return -1;
  if (Math.abs(d - zc) > maxRelativeDepthError * zc) return -1;
  pixelToWorld(cameras, m, map.depth, map.normal, q, points, 6);
  if (points[9] * points[3] + points[10] * points[4] + points[11] * points[5] < cosMax) return -1;
  return q;
}

/** Whether the candidate's point (points 6–8) projects into map m within maxPx of the centre of pixel p. */
function reprojectsNear(cameras: Float64Array, m: number, points: Float64Array, p: number, maxPx: number): boolean {
  const o = CAMERA * m;
  const x = points[6];
  const y = points[7];
  const z = points[8];
  const zc = cameras[o + 6] * x + cameras[o + 7] * y + cameras[o + 8] * z + cameras[o + 11];
  if (!(zc > 0)) return false;
  const width = cameras[o + 15];
  const col = p % width;
  const row = (p - col) / width;
  const focal = cameras[o + 12];
  const du = (focal * (cameras[o] * x + cameras[o + 1] * y + cameras[o + 2] * z + cameras[o + 9])) / zc + cameras[o + 13] - (col + 0.5);
  const dv = (focal * (cameras[o + 3] * x + cameras[o + 4] * y + cameras[o + 5] * z + cameras[o + 10])) / zc + cameras[o + 14] - (row + 0.5);
  return du * du + dv * dv <= maxPx * maxPx;
}
