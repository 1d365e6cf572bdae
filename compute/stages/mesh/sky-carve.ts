/**
 * @module Surface that a photo shows the sky through is cut.
 *
 * A camera whose photo shows clear sky at a pixel has seen nothing along that pixel's ray, up to
 * infinity: any surface on the ray would hide the sky (an occluder in front of it would too, so
 * no visibility test is needed). Window-based stereo nevertheless leaves a band of foreground
 * depth beside every silhouette against the sky (the fattening that edge-trim.ts trims where its
 * colour test catches it), and the signed distance turns that band into a rim of surface around
 * roofs, chimneys and the ends of a facade, textured with the sky: from any new viewpoint a pale
 * halo around the building (SceauxCastle's roofs). This is the free-space reasoning of the
 * completions (backdrop.ts, sky.ts), applied to the extracted surface itself, with the sky's own
 * pixels as the evidence instead of the cloud's depths, which the band is part of.
 *
 * A vertex is cut when the photos of at least `minViews` views show sky, eroded by
 * `erodePixels`, where it projects: the erosion keeps a true rim, which lies on the silhouette
 * and so within a pixel or two of the sky under a camera's small error, and the second view keeps
 * a surface that one photo's mask (a sky-blue sign, a reflection) would cut. A face goes when two
 * of its corners do. The sky is read as sky.ts reads it, at `imageSize` pixels on the long side.
 * What that reading cannot tell from a sky, it cuts: a smooth, sky-blue surface that reaches the
 * top of the frame in two photos (a blue-painted wall, a car's roof filling the top of a close-up)
 * loses the faces in front of it there. The sets of the benches hold none (their masks looked at).
 */
import type { RegisteredView } from "../../scene/index.js";
import { projectVertices } from "../../geometry/mesh-raster.js";
import { depthImageShape } from "./see-through.js";
import type { RawMesh } from "./surface-nets.js";

export interface SkyCarveOptions {
  /** Long side, in pixels, the photos' sky is read at. */
  imageSize: number;
  /** Pixels of sky next to anything else that do not count (at imageSize). */
  erodePixels: number;
  /** Fewest views whose sky a vertex must lie in front of to be cut. */
  minViews: number;
}

export const SKY_CARVE_DEFAULTS: SkyCarveOptions = { imageSize: 1024, erodePixels: 1, minViews: 2 };

export interface SkyCarveReport {
  /** Vertices seen against the sky by at least minViews views. */
  skyVertices: number;
  /** Faces cut. */
  carvedFaces: number;
}

/**
 * The mesh without the faces two of whose corners the photos show the sky through; `masks` holds
 * per view the sky (sky.ts skyMasks at options.imageSize) or null. Vertices are left for
 * compactVertices to drop.
 */
export function carveSky(mesh: RawMesh, views: RegisteredView[], masks: Array<Uint8Array | null>, options: SkyCarveOptions): { mesh: RawMesh; report: SkyCarveReport } {
  const vertexCount = mesh.positions.length / 3;
  const skyViews = new Uint8Array(vertexCount);
  views.forEach((view, i) => {
    const mask = masks[i];
    if (!mask) return;
    const { width, height, scale } = depthImageShape(view, options.imageSize);
    const sky = eroded(mask, width, height, options.erodePixels);
    const { px, py, depth } = projectVertices(mesh.positions, view.camFromWorld, view.intrinsics, 1 / scale);
    for (let v = 0; v < vertexCount; v++) {
      if (!(depth[v]! > 0)) continue;
      const x = Math.floor(px[v]!), y = Math.floor(py[v]!);
      if (x < 0 || y < 0 || x >= width || y >= height) continue;
      if (sky[y * width + x] && skyViews[v]! < 255) skyViews[v]!++;
    }
  });
  let skyVertices = 0;
  const cut = new Uint8Array(vertexCount);
  for (let v = 0; v < vertexCount; v++) {
    if (skyViews[v]! >= options.minViews) {
      cut[v] = 1;
      skyVertices++;
    }
  }
  if (skyVertices === 0) return { mesh, report: { skyVertices, carvedFaces: 0 } };
  const kept = new Uint32Array(mesh.indices.length);
  let n = 0;
  for (let f = 0; f < mesh.indices.length; f += 3) {
    const a = mesh.indices[f]!, b = mesh.indices[f + 1]!, c = mesh.indices[f + 2]!;
    if (cut[a]! + cut[b]! + cut[c]! >= 2) continue;
    kept[n++] = a;
    kept[n++] = b;
    kept[n++] = c;
  }
  return { mesh: { positions: mesh.positions, indices: kept.slice(0, n) }, report: { skyVertices, carvedFaces: (mesh.indices.length - n) / 3 } };
}

/** The mask's pixels whose (2r + 1)² neighbourhood inside the image is all set (a separable min filter). */
export function eroded(mask: Uint8Array, width: number, height: number, radius: number): Uint8Array {
  if (radius <= 0) return mask;
  const rows = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let all = 1;
      for (let dx = -radius; dx <= radius && all; dx++) {
        const xx = x + dx;
        if (xx >= 0 && xx < width && !mask[y * width + xx]) all = 0;
      }
      rows[y * width + x] = all;
    }
  }
  const out = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let all = 1;
      for (let dy = -radius; dy <= radius && all; dy++) {
        const yy = y + dy;
        if (yy >= 0 && yy < height && !rows[yy * width + x]) all = 0;
      }
      out[y * width + x] = all;
    }
  }
  return out;
}
