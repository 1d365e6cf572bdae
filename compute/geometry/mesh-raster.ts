/**
 * @module A triangle mesh seen from one camera: every vertex projected to pixels (with the
 * radial distortion of the camera model) and the mesh rasterised into a z-buffer, so later code
 * can ask which surface a pixel sees. Used for visibility by the vertex colouring of the mesh
 * stage and by the texture stage.
 */
import { foldRadius2 } from "./camera.js";
import { nativeRaster } from "./native-raster.js";
import type { CameraIntrinsics, RigidTransform } from "./types.js";

/** Per-vertex projection into an image scaled by `scale`: pixel coordinates and depth. */
export interface VertexProjection {
  px: Float32Array;
  py: Float32Array;
  /**
   * Depth along the camera's z axis; ≤ 0 for vertices behind the camera, and 0 for those past the
   * lens's fold (camera.ts foldRadius2), which no pixel sees; px, py then 0.
   */
  depth: Float32Array;
}

/** Projects `positions` (3 per vertex) through camFromWorld and the intrinsics, times `scale`. */
export function projectVertices(positions: Float32Array, camFromWorld: RigidTransform, intrinsics: CameraIntrinsics, scale: number): VertexProjection {
  const n = positions.length / 3;
  const { R, t } = camFromWorld;
  const { focal, cx, cy, k1, k2 } = intrinsics;
  const px = new Float32Array(n), py = new Float32Array(n), depth = new Float32Array(n);
  const fold = foldRadius2(k1, k2);
  for (let v = 0; v < n; v++) {
    const X = positions[3 * v], Y = positions[3 * v + 1], Z = positions[3 * v + 2];
    const xc = R[0] * X + R[1] * Y + R[2] * Z + t[0];
    const yc = R[3] * X + R[4] * Y + R[5] * Z + t[1];
    const zc = R[6] * X + R[7] * Y + R[8] * Z + t[2];
    depth[v] = zc;
    if (zc <= 0) continue;
    const u = xc / zc, w = yc / zc;
    const r2 = u * u + w * w;
    if (r2 >= fold) {
      // A far point past the fold would land inside the frame, in front of what the photo shows.
      depth[v] = 0;
      continue;
    }
    const d = 1 + k1 * r2 + k2 * r2 * r2;
    px[v] = (focal * d * u + cx) * scale;
    py[v] = (focal * d * w + cy) * scale;
  }
  return { px, py, depth };
}

/**
 * Nearest depth per pixel of the mesh seen from the view (pixel centres at +0.5; Infinity
 * where no face lies). Both windings are drawn: back faces occlude too.
 *
 * Each row of a face's bounding box is scanned only over the span where the row's sample line
 * crosses the face (widened by SPAN_SLACK), and every pixel there takes the same barycentric test
 * and depth as the whole-box scan (rasterizeDepthReference), so the buffer is the same to the bit
 * (test/compute/geometry/mesh-raster.test.ts). The simplified mesh's long thin faces on walls and
 * ground fill a small share of their boxes: Herz-Jesus-P8's delivered mesh from its first photo at
 * 3,072 px took 77 ms against the whole boxes' 175 (docs/decisions.md, "The z-buffer scans each
 * row's span of a face"). Where the addon loads (./native-raster.ts), the same spans run in C, to
 * the same bits (rasterizeDepthSpans is the TypeScript).
 */
export function rasterizeDepth(indices: Uint32Array, proj: VertexProjection, width: number, height: number): Float32Array {
  const native = nativeRaster();
  if (native) {
    // The same buffer in about half the time; a face with a corner that is not finite is left to the TypeScript.
    const zbuf = new Float32Array(width * height);
    if (native.rasterizeDepth(indices, proj.px, proj.py, proj.depth, width, height, zbuf)) return zbuf;
  }
  return rasterizeDepthSpans(indices, proj, width, height);
}

/** rasterizeDepth in TypeScript: ./native/raster.h gives the same bits in C. */
export function rasterizeDepthSpans(indices: Uint32Array, proj: VertexProjection, width: number, height: number): Float32Array {
  const zbuf = new Float32Array(width * height).fill(Infinity);
  const { px, py, depth } = proj;
  for (let f = 0; f < indices.length; f += 3) {
    const a = indices[f], b = indices[f + 1], c = indices[f + 2];
    if (depth[a] <= 0 || depth[b] <= 0 || depth[c] <= 0) continue;
    const ax = px[a], ay = py[a], bx = px[b], by = py[b], cx = px[c], cy = py[c];
    const area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    if (area === 0) continue;
    const invA = 1 / depth[a], invB = 1 / depth[b], invC = 1 / depth[c];
    const minX = Math.min(ax, bx, cx), maxX = Math.max(ax, bx, cx);
    const x0 = Math.max(0, Math.floor(minX)), x1 = Math.min(width - 1, Math.ceil(maxX));
    const y0 = Math.max(0, Math.floor(Math.min(ay, by, cy))), y1 = Math.min(height - 1, Math.ceil(Math.max(ay, by, cy)));
    // The corners from top to bottom: the long edge top–bottom bounds one side of every row, top–middle and middle–bottom the other.
    let tx = ax, ty = ay, mx = bx, my = by, lx = cx, ly = cy, swap = 0;
    if (my < ty) { swap = tx; tx = mx; mx = swap; swap = ty; ty = my; my = swap; }
    if (ly < my) { swap = mx; mx = lx; lx = swap; swap = my; my = ly; ly = swap; }
    if (my < ty) { swap = tx; tx = mx; mx = swap; swap = ty; ty = my; my = swap; }
    // A level edge (dy within ROW_SLACK) has no slope: its rows take the face's whole width.
    const long = ly - ty > ROW_SLACK ? (lx - tx) / (ly - ty) : NaN;
    const upper = my - ty > ROW_SLACK ? (mx - tx) / (my - ty) : NaN;
    const lower = ly - my > ROW_SLACK ? (lx - mx) / (ly - my) : NaN;
    for (let y = y0; y <= y1; y++) {
      const sy = y + 0.5;
      if (sy < ty - ROW_SLACK || sy > ly + ROW_SLACK) continue;
      const onLong = tx + (sy - ty) * long;
      const onShort = sy < my ? tx + (sy - ty) * upper : mx + (sy - my) * lower;
      let left = minX, right = maxX;
      if (onLong === onLong && onShort === onShort) {
        // Within the face's own width: a row just past a corner extrapolates the edges.
        left = Math.max(minX, Math.min(onLong, onShort));
        right = Math.min(maxX, Math.max(onLong, onShort));
      }
      // Centres sx = x + 0.5 within [left, right], widened by SPAN_SLACK for rounding.
      const from = Math.max(x0, Math.ceil(left - 0.5 - SPAN_SLACK)), to = Math.min(x1, Math.floor(right - 0.5 + SPAN_SLACK));
      drawSpan(zbuf, y * width, from, to, sy, ax, ay, bx, by, cx, cy, area, invA, invB, invC);
    }
  }
  return zbuf;
}

/**
 * Pixels `from` … `to` of the row starting at `rowStart`, sample line sy: each inside the face
 * (barycentric weights from edge functions, all ≥ 0) takes its depth if nearer. 1/z, not z, is
 * affine in screen space, so the depth is perspective-correct.
 */
function drawSpan(zbuf: Float32Array, rowStart: number, from: number, to: number, sy: number, ax: number, ay: number, bx: number, by: number, cx: number, cy: number, area: number, invA: number, invB: number, invC: number): void {
  for (let x = from; x <= to; x++) {
    const sx = x + 0.5;
    const wa = ((bx - sx) * (cy - sy) - (by - sy) * (cx - sx)) / area;
    const wb = ((cx - sx) * (ay - sy) - (cy - sy) * (ax - sx)) / area;
    const wc = 1 - wa - wb;
    if (wa < 0 || wb < 0 || wc < 0) continue;
    const z = 1 / (wa * invA + wb * invB + wc * invC);
    if (z < zbuf[rowStart + x]) zbuf[rowStart + x] = z;
  }
}

/**
 * Pixels whose centre lies this far outside a row's span are tested too. The barycentric test is
 * exact to about 1e-10 px at these sizes; the span, from the edges' slopes, to about 1e-13 px × the
 * slope, which is under ROW_SLACK⁻¹ × the image's width (3e-4 px at 3,000 px).
 */
const SPAN_SLACK = 0.01;

/** Rows within this (px) of the face's top or bottom corner are scanned; an edge this level has no slope. */
const ROW_SLACK = 1e-6;

/**
 * Plain reference of rasterizeDepth: every pixel of each face's bounding box tested. The tests
 * and `npm run bench -- kernels` hold rasterizeDepth to it, bit for bit.
 */
export function rasterizeDepthReference(indices: Uint32Array, proj: VertexProjection, width: number, height: number): Float32Array {
  const zbuf = new Float32Array(width * height).fill(Infinity);
  const { px, py, depth } = proj;
  for (let f = 0; f < indices.length; f += 3) {
    const a = indices[f], b = indices[f + 1], c = indices[f + 2];
    if (depth[a] <= 0 || depth[b] <= 0 || depth[c] <= 0) continue;
    const ax = px[a], ay = py[a], bx = px[b], by = py[b], cx = px[c], cy = py[c];
    const area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    if (area === 0) continue;
    const invA = 1 / depth[a], invB = 1 / depth[b], invC = 1 / depth[c];
    const x0 = Math.max(0, Math.floor(Math.min(ax, bx, cx))), x1 = Math.min(width - 1, Math.ceil(Math.max(ax, bx, cx)));
    const y0 = Math.max(0, Math.floor(Math.min(ay, by, cy))), y1 = Math.min(height - 1, Math.ceil(Math.max(ay, by, cy)));
    for (let y = y0; y <= y1; y++) drawSpan(zbuf, y * width, x0, x1, y + 0.5, ax, ay, bx, by, cx, cy, area, invA, invB, invC);
  }
  return zbuf;
}

/** Bilinear sample of an RGB image at continuous pixel coordinates (centres at +0.5) into `out`. */
export function sampleRgb(rgb: Uint8Array, width: number, height: number, x: number, y: number, out: Float64Array): void {
  const fx = Math.min(Math.max(x - 0.5, 0), width - 1), fy = Math.min(Math.max(y - 0.5, 0), height - 1);
  const x0 = Math.floor(fx), y0 = Math.floor(fy);
  const x1 = Math.min(x0 + 1, width - 1), y1 = Math.min(y0 + 1, height - 1);
  const tx = fx - x0, ty = fy - y0;
  for (let ch = 0; ch < 3; ch++) {
    const top = rgb[3 * (y0 * width + x0) + ch] * (1 - tx) + rgb[3 * (y0 * width + x1) + ch] * tx;
    const bottom = rgb[3 * (y1 * width + x0) + ch] * (1 - tx) + rgb[3 * (y1 * width + x1) + ch] * tx;
    out[ch] = top * (1 - ty) + bottom * ty;
  }
}
