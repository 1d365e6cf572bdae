/**
 * @module Vertex colours from the photos: each vertex takes the weighted mean of the pixels it
 * projects to in the views that see it. Visibility is a z-buffer test against the mesh itself
 * rasterised into each view (as in texture mapping pipelines such as Waechter et al., "Let
 * there be color!", ECCV 2014, minus their seam optimisation: per-vertex colours need none).
 * Weights favour views that see the surface head-on and up close, w = cos θ · (f / z)² —
 * the number of image pixels per unit of surface. Vertices no view sees keep the colour of
 * the nearby points.
 */
import sharp from "sharp";
import type { ImageRef, RegisteredView } from "../../scene/index.js";
import type { RawMesh } from "./surface-nets.js";

export interface ProjectColorOptions {
  /** Long side, in pixels, the photos are resized to for sampling and the z-buffer. */
  imageSize: number;
  /** A vertex counts as visible when within this much of the z-buffer depth (model units). */
  depthTolerance: number;
  /** Views seeing the surface more obliquely than this cosine are ignored. */
  minCosine: number;
}

/** Per-view projection of every vertex: pixel coordinates in the resized image and depth. */
interface Projection {
  px: Float32Array;
  py: Float32Array;
  depth: Float32Array;
}

function project(positions: Float32Array, view: RegisteredView, scale: number): Projection {
  const n = positions.length / 3;
  const { R, t } = view.camFromWorld;
  const { focal, cx, cy, k1, k2 } = view.intrinsics;
  const px = new Float32Array(n), py = new Float32Array(n), depth = new Float32Array(n);
  for (let v = 0; v < n; v++) {
    const X = positions[3 * v], Y = positions[3 * v + 1], Z = positions[3 * v + 2];
    const xc = R[0] * X + R[1] * Y + R[2] * Z + t[0];
    const yc = R[3] * X + R[4] * Y + R[5] * Z + t[1];
    const zc = R[6] * X + R[7] * Y + R[8] * Z + t[2];
    depth[v] = zc;
    if (zc <= 0) continue;
    const u = xc / zc, w = yc / zc;
    const r2 = u * u + w * w;
    const d = 1 + k1 * r2 + k2 * r2 * r2;
    px[v] = (focal * d * u + cx) * scale;
    py[v] = (focal * d * w + cy) * scale;
  }
  return { px, py, depth };
}

/** Nearest depth per pixel of the mesh seen from the view (pixel centres at +0.5). */
function rasterizeDepth(indices: Uint32Array, proj: Projection, width: number, height: number): Float32Array {
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
    for (let y = y0; y <= y1; y++) {
      const sy = y + 0.5;
      for (let x = x0; x <= x1; x++) {
        const sx = x + 0.5;
        // Barycentric weights from edge functions; either winding (back faces occlude too).
        const wa = ((bx - sx) * (cy - sy) - (by - sy) * (cx - sx)) / area;
        const wb = ((cx - sx) * (ay - sy) - (cy - sy) * (ax - sx)) / area;
        const wc = 1 - wa - wb;
        if (wa < 0 || wb < 0 || wc < 0) continue;
        // 1/z, not z, is affine in screen space (perspective-correct depth).
        const z = 1 / (wa * invA + wb * invB + wc * invC);
        const at = y * width + x;
        if (z < zbuf[at]) zbuf[at] = z;
      }
    }
  }
  return zbuf;
}

/** Bilinear sample of an RGB image at continuous pixel coordinates (centres at +0.5). */
function sample(rgb: Uint8Array, width: number, height: number, x: number, y: number, out: Float64Array): void {
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

/**
 * Replaces `colors` (RGB per vertex) with colours sampled from the photos wherever at least
 * one view sees the vertex. Returns how many vertices were coloured from the photos, and
 * the photos that could not be read (skipped: a colour source, not worth failing the job).
 */
export async function colorFromImages(mesh: RawMesh, normals: Float32Array, colors: Uint8Array, views: RegisteredView[], images: ImageRef[], options: ProjectColorOptions): Promise<{ colored: number; unreadable: string[] }> {
  const vertexCount = mesh.positions.length / 3;
  const sum = new Float64Array(3 * vertexCount);
  const weight = new Float64Array(vertexCount);
  const texel = new Float64Array(3);
  const byIndex = new Map(images.map((image) => [image.index, image]));
  const unreadable: string[] = [];
  for (const view of views) {
    const image = byIndex.get(view.imageIndex);
    if (!image) continue;
    const scale = Math.min(1, options.imageSize / Math.max(view.intrinsics.width, view.intrinsics.height));
    const width = Math.max(1, Math.round(view.intrinsics.width * scale));
    const height = Math.max(1, Math.round(view.intrinsics.height * scale));
    let rgb: Uint8Array;
    try {
      rgb = new Uint8Array(await sharp(image.path).removeAlpha().resize(width, height, { fit: "fill" }).raw().toBuffer());
    } catch {
      unreadable.push(image.name);
      continue;
    }
    const proj = project(mesh.positions, view, width / view.intrinsics.width);
    const zbuf = rasterizeDepth(mesh.indices, proj, width, height);
    const { R, t } = view.camFromWorld;
    const centre = [-(R[0] * t[0] + R[3] * t[1] + R[6] * t[2]), -(R[1] * t[0] + R[4] * t[1] + R[7] * t[2]), -(R[2] * t[0] + R[5] * t[1] + R[8] * t[2])];
    const focal = view.intrinsics.focal;
    for (let v = 0; v < vertexCount; v++) {
      const z = proj.depth[v];
      const x = proj.px[v], y = proj.py[v];
      if (z <= 0 || x < 0 || y < 0 || x >= width || y >= height) continue;
      const dx = centre[0] - mesh.positions[3 * v], dy = centre[1] - mesh.positions[3 * v + 1], dz = centre[2] - mesh.positions[3 * v + 2];
      const cosine = (normals[3 * v] * dx + normals[3 * v + 1] * dy + normals[3 * v + 2] * dz) / Math.hypot(dx, dy, dz);
      if (cosine < options.minCosine) continue;
      if (z > zbuf[Math.floor(y) * width + Math.floor(x)] + options.depthTolerance) continue;
      const w = cosine * (focal / z) ** 2;
      sample(rgb, width, height, x, y, texel);
      sum[3 * v] += w * texel[0]; sum[3 * v + 1] += w * texel[1]; sum[3 * v + 2] += w * texel[2];
      weight[v] += w;
    }
  }
  let colored = 0;
  for (let v = 0; v < vertexCount; v++) {
    if (!(weight[v] > 0)) continue;
    for (let ch = 0; ch < 3; ch++) colors[3 * v + ch] = Math.round(sum[3 * v + ch] / weight[v]);
    colored++;
  }
  return { colored, unreadable };
}
