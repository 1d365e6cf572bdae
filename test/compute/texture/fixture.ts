/**
 * @module Texture-stage fixtures: rendered views with their true cameras, a mesh of the true
 * surface (triangulated from one view's rendered depth), and a small software renderer of a
 * textured mesh (perspective-correct UVs, bilinear texels, z-buffer) to look at the result
 * from a held-back camera.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { projectVertices, rasterizeDepth } from "../../../compute/geometry/mesh-raster.js";
import type { ImageRef, Mesh, RegisteredView, TexturedMesh } from "../../../compute/scene/index.js";
import { writeViewsAsImages, type RenderedView } from "../../support/render.js";

export function registered(view: RenderedView, imageIndex: number): RegisteredView {
  return {
    imageIndex,
    name: view.name,
    intrinsics: { width: view.width, height: view.height, focal: view.K[0], cx: view.K[2], cy: view.K[5], k1: 0, k2: 0 },
    camFromWorld: { R: view.R, t: view.t },
  };
}

/** Writes the views as PNG files and returns their ImageRefs (index = position in `views`). */
export async function imagesOf(views: RenderedView[]): Promise<ImageRef[]> {
  const dir = await mkdtemp(path.join(tmpdir(), "texture-"));
  const files = await writeViewsAsImages(views, dir, "png");
  return views.map((v, index) => ({ index, name: v.name, path: files[index], width: v.width, height: v.height, focalPrior: v.K[0], focalPriorSource: "default" }));
}

/** The true surface seen by `view`: its depth map on a grid of `step` pixels, split at depth jumps. */
export function meshFromDepth(view: RenderedView, step: number): Mesh {
  const cols = Math.floor(view.width / step), rows = Math.floor(view.height / step);
  const index = new Int32Array(cols * rows).fill(-1);
  const positions: number[] = [];
  const { R, t, K } = view;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const u = c * step + 0.5, v = r * step + 0.5;
      const d = view.depth[Math.floor(v) * view.width + Math.floor(u)];
      if (!(d > 0)) continue;
      const xc = (d * (u - K[2])) / K[0] - t[0], yc = (d * (v - K[5])) / K[4] - t[1], zc = d - t[2];
      index[r * cols + c] = positions.length / 3;
      positions.push(R[0] * xc + R[3] * yc + R[6] * zc, R[1] * xc + R[4] * yc + R[7] * zc, R[2] * xc + R[5] * yc + R[8] * zc);
    }
  }
  const depthAt = (r: number, c: number): number => view.depth[Math.floor(r * step + 0.5) * view.width + Math.floor(c * step + 0.5)];
  const indices: number[] = [];
  for (let r = 0; r + 1 < rows; r++) {
    for (let c = 0; c + 1 < cols; c++) {
      const quad = [index[r * cols + c], index[r * cols + c + 1], index[(r + 1) * cols + c], index[(r + 1) * cols + c + 1]];
      if (quad.some((q) => q < 0)) continue;
      const depths = [depthAt(r, c), depthAt(r, c + 1), depthAt(r + 1, c), depthAt(r + 1, c + 1)];
      if (Math.max(...depths) > 1.03 * Math.min(...depths)) continue;
      indices.push(quad[0], quad[2], quad[1], quad[1], quad[2], quad[3]);
    }
  }
  const vertexCount = positions.length / 3;
  return { vertexCount, faceCount: indices.length / 3, positions: new Float32Array(positions), normals: new Float32Array(3 * vertexCount).fill(0).map((_, i) => (i % 3 === 2 ? 1 : 0)), colors: new Uint8Array(3 * vertexCount).fill(128), indices: new Uint32Array(indices) };
}

/** The textured mesh seen from `view`: RGB and a mask of the pixels it covers. */
export function renderTextured(textured: TexturedMesh, view: RegisteredView): { rgb: Float32Array; covered: Uint8Array } {
  const { width, height } = view.intrinsics;
  const { mesh, uvs, pages, facePage } = textured;
  const proj = projectVertices(mesh.positions, view.camFromWorld, view.intrinsics, 1);
  const zbuf = rasterizeDepth(mesh.indices, proj, width, height);
  const rgb = new Float32Array(3 * width * height);
  const covered = new Uint8Array(width * height);
  for (let f = 0; f < mesh.faceCount; f++) {
    const [a, b, c] = [mesh.indices[3 * f], mesh.indices[3 * f + 1], mesh.indices[3 * f + 2]];
    if (proj.depth[a] <= 0 || proj.depth[b] <= 0 || proj.depth[c] <= 0) continue;
    const ax = proj.px[a], ay = proj.py[a], bx = proj.px[b], by = proj.py[b], cx = proj.px[c], cy = proj.py[c];
    const area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    if (area === 0) continue;
    const page = pages[facePage[f]];
    for (let y = Math.max(0, Math.floor(Math.min(ay, by, cy))); y <= Math.min(height - 1, Math.ceil(Math.max(ay, by, cy))); y++) {
      for (let x = Math.max(0, Math.floor(Math.min(ax, bx, cx))); x <= Math.min(width - 1, Math.ceil(Math.max(ax, bx, cx))); x++) {
        const sx = x + 0.5, sy = y + 0.5;
        const wa = ((bx - sx) * (cy - sy) - (by - sy) * (cx - sx)) / area;
        const wb = ((cx - sx) * (ay - sy) - (cy - sy) * (ax - sx)) / area;
        const wc = 1 - wa - wb;
        if (wa < 0 || wb < 0 || wc < 0) continue;
        // Perspective-correct interpolation: weights over depth, renormalised.
        const pa = wa / proj.depth[a], pb = wb / proj.depth[b], pc = wc / proj.depth[c];
        const z = 1 / (pa + pb + pc);
        if (z > zbuf[y * width + x] * 1.0001) continue;
        const at = y * width + x;
        covered[at] = 1;
        if (!page) { for (let ch = 0; ch < 3; ch++) rgb[3 * at + ch] = z * (pa * mesh.colors[3 * a + ch] + pb * mesh.colors[3 * b + ch] + pc * mesh.colors[3 * c + ch]); continue; }
        const u = z * (pa * uvs[2 * a] + pb * uvs[2 * b] + pc * uvs[2 * c]) * page.width - 0.5;
        const v = z * (pa * uvs[2 * a + 1] + pb * uvs[2 * b + 1] + pc * uvs[2 * c + 1]) * page.height - 0.5;
        const u0 = Math.max(0, Math.min(page.width - 2, Math.floor(u))), v0 = Math.max(0, Math.min(page.height - 2, Math.floor(v)));
        const tu = Math.min(1, Math.max(0, u - u0)), tv = Math.min(1, Math.max(0, v - v0));
        for (let ch = 0; ch < 3; ch++) {
          const texel = (px: number, py: number): number => page.rgb[3 * (py * page.width + px) + ch];
          rgb[3 * at + ch] = (1 - tv) * ((1 - tu) * texel(u0, v0) + tu * texel(u0 + 1, v0)) + tv * ((1 - tu) * texel(u0, v0 + 1) + tu * texel(u0 + 1, v0 + 1));
        }
      }
    }
  }
  return { rgb, covered };
}

/** PSNR (dB, 8-bit peak) of `rendered` against `truth` over the covered pixels, and the share covered. */
export function psnrOverCovered(rendered: { rgb: Float32Array; covered: Uint8Array }, truth: Uint8Array): { psnr: number; coverage: number } {
  let sum = 0, n = 0;
  for (let i = 0; i < rendered.covered.length; i++) {
    if (!rendered.covered[i]) continue;
    for (let ch = 0; ch < 3; ch++) sum += (rendered.rgb[3 * i + ch] - truth[3 * i + ch]) ** 2;
    n++;
  }
  return { psnr: 10 * Math.log10((255 * 255) / (sum / Math.max(1, 3 * n))), coverage: n / rendered.covered.length };
}
