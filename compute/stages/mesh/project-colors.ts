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
import { projectVertices, rasterizeDepth, sampleRgb } from "../../geometry/mesh-raster.js";
import type { RawMesh } from "./surface-nets.js";
import { loadAhead } from "../../util/ahead.js";
import type { TaskRunner } from "../../util/pool.js";

export interface ProjectColorOptions {
  /** Long side, in pixels, the photos are resized to for sampling and the z-buffer. */
  imageSize: number;
  /** A vertex counts as visible when within this much of the z-buffer depth (model units). */
  depthTolerance: number;
  /** Views seeing the surface more obliquely than this cosine are ignored. */
  minCosine: number;
}

/** Σ w·rgb (3 per vertex) and Σ w per vertex over some of the views, and the photos that could not be read. */
export interface ColorSums {
  sum: Float64Array;
  weight: Float64Array;
  unreadable: string[];
}

/** The second half of the views' colour sums, on a worker (mesh/worker.ts). */
export interface ColorTask {
  kind: "colors";
  positions: Float32Array;
  indices: Uint32Array;
  normals: Float32Array;
  views: RegisteredView[];
  images: ImageRef[];
  options: ProjectColorOptions;
}

/**
 * Replaces `colors` (RGB per vertex) with colours sampled from the photos wherever at least
 * one view sees the vertex. Returns how many vertices were coloured from the photos and which
 * (`seen`, 1 each), and the photos that could not be read (skipped: a colour source, not worth
 * failing the job). The views are summed in two halves, the second on `helper` when given (the
 * mesh stage's worker) while this thread sums the first, added in that order: the same colours
 * on one thread or two; if the worker fails, the second half is summed here.
 */
export async function colorFromImages(mesh: RawMesh, normals: Float32Array, colors: Uint8Array, views: RegisteredView[], images: ImageRef[], options: ProjectColorOptions, helper?: TaskRunner<ColorTask, ColorSums>): Promise<{ colored: number; seen: Uint8Array; unreadable: string[] }> {
  const vertexCount = mesh.positions.length / 3;
  const readable = new Set(images.map((image) => image.index));
  const used = views.filter((view) => readable.has(view.imageIndex));
  const split = Math.ceil(used.length / 2);
  const second: ColorTask = { kind: "colors", positions: mesh.positions, indices: mesh.indices, normals, views: used.slice(split), images, options };
  const secondSums = helper && second.views.length > 0 ? helper.run(second).catch(() => null) : null;
  const first = await colorSums(mesh, normals, used.slice(0, split), images, options);
  const rest = (secondSums ? await secondSums : null) ?? (await colorSums(mesh, normals, second.views, images, options));
  let colored = 0;
  const seen = new Uint8Array(vertexCount);
  for (let v = 0; v < vertexCount; v++) {
    const weight = first.weight[v] + rest.weight[v];
    if (!(weight > 0)) continue;
    for (let ch = 0; ch < 3; ch++) colors[3 * v + ch] = Math.round((first.sum[3 * v + ch] + rest.sum[3 * v + ch]) / weight);
    seen[v] = 1;
    colored++;
  }
  return { colored, seen, unreadable: [...first.unreadable, ...rest.unreadable] };
}

/** The colour sums of `views` (each view's photo decoded one ahead of its projection). */
export async function colorSums(mesh: Pick<RawMesh, "positions" | "indices">, normals: Float32Array, views: RegisteredView[], images: ImageRef[], options: ProjectColorOptions): Promise<ColorSums> {
  const vertexCount = mesh.positions.length / 3;
  const sum = new Float64Array(3 * vertexCount);
  const weight = new Float64Array(vertexCount);
  const texel = new Float64Array(3);
  const byIndex = new Map(images.map((image) => [image.index, image]));
  const unreadable: string[] = [];
  const decode = async (view: RegisteredView): Promise<{ rgb: Uint8Array; width: number; height: number }> => {
    const scale = Math.min(1, options.imageSize / Math.max(view.intrinsics.width, view.intrinsics.height));
    const width = Math.max(1, Math.round(view.intrinsics.width * scale));
    const height = Math.max(1, Math.round(view.intrinsics.height * scale));
    const rgb = new Uint8Array(await sharp(byIndex.get(view.imageIndex)!.path).removeAlpha().resize(width, height, { fit: "fill" }).raw().toBuffer());
    return { rgb, width, height };
  };
  for await (const loaded of loadAhead(views.filter((view) => byIndex.has(view.imageIndex)), decode)) {
    const view = loaded.key;
    if (!loaded.ok) {
      unreadable.push(byIndex.get(view.imageIndex)!.name);
      continue;
    }
    const { rgb, width, height } = loaded.value;
    const proj = projectVertices(mesh.positions, view.camFromWorld, view.intrinsics, width / view.intrinsics.width);
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
      sampleRgb(rgb, width, height, x, y, texel);
      sum[3 * v] += w * texel[0]; sum[3 * v + 1] += w * texel[1]; sum[3 * v + 2] += w * texel[2];
      weight[v] += w;
    }
  }
  return { sum, weight, unreadable };
}
