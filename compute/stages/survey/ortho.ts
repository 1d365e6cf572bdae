/**
 * @module The orthophoto's rows from a strip of the top view: for each pixel, the colour of the
 * surface the z-buffer kept there, sampled bilinearly from the face's texture page at the UV of
 * the pixel centre (the face's barycentric interpolation of its vertices' UVs; affine, as the
 * view is orthographic). Faces without a page (no photo saw them) and meshes without a texture
 * give the interpolated vertex colours. Alpha is 255 where a surface was seen, 0 elsewhere
 * (RGB 0 there too, which compresses to nothing).
 */
import { sampleRgb } from "../../geometry/mesh-raster.js";
import type { Mesh, TexturedMesh } from "../../scene/index.js";
import type { TopViewVertices } from "./raster-grid.js";
import type { TopStrip } from "./top-view.js";

/** The colour sources of the surface: a mesh and, when the texture stage made one, its atlas. */
export interface SurfaceColours {
  mesh: Mesh;
  textured: TexturedMesh | null;
}

/** The sampled texel (RGB, 0–255) of the pixel being coloured (scratch, 3 values). */
const texel = new Float64Array(3);

/** Writes the strip's colours into `out` (rows · width · 4 bytes, RGBA). */
export function orthoRows(strip: TopStrip, vertices: TopViewVertices, surface: SurfaceColours, out: Uint8Array): void {
  const { width, rows, row0, face } = strip;
  const { px, py } = vertices;
  const { indices, colors } = surface.mesh;
  const textured = surface.textured;
  const pages = textured?.pages ?? [];
  for (let r = 0; r < rows; r++) {
    const sy = row0 + r + 0.5;
    for (let col = 0; col < width; col++) {
      const at = r * width + col, o = 4 * at;
      const f = face[at];
      if (f < 0) {
        out[o] = out[o + 1] = out[o + 2] = out[o + 3] = 0;
        continue;
      }
      const a = indices[3 * f], b = indices[3 * f + 1], c = indices[3 * f + 2];
      const ax = px[a], ay = py[a], sx = col + 0.5;
      const area = (px[b] - ax) * (py[c] - ay) - (px[c] - ax) * (py[b] - ay);
      // Barycentric weights of the pixel centre; a centre drawn on the face's edge may fall a
      // rounding error outside, so the weights are clamped and renormalised.
      let wb = ((sx - ax) * (py[c] - ay) - (px[c] - ax) * (sy - ay)) / area;
      let wc = ((px[b] - ax) * (sy - ay) - (sx - ax) * (py[b] - ay)) / area;
      let wa = 1 - wb - wc;
      wa = wa < 0 ? 0 : wa;
      wb = wb < 0 ? 0 : wb;
      wc = wc < 0 ? 0 : wc;
      const sum = wa + wb + wc;
      wa /= sum;
      wb /= sum;
      wc /= sum;
      const page = textured ? textured.facePage[f] : pages.length;
      if (textured && page < pages.length) {
        const { uvs } = textured;
        const { width: pw, height: ph, rgb } = pages[page];
        const u = wa * uvs[2 * a] + wb * uvs[2 * b] + wc * uvs[2 * c];
        const v = wa * uvs[2 * a + 1] + wb * uvs[2 * b + 1] + wc * uvs[2 * c + 1];
        // UV (0, 0) is the page's top-left corner (glTF), so u·width is a texel x with centres at +0.5.
        sampleRgb(rgb, pw, ph, u * pw, v * ph, texel);
      } else {
        for (let ch = 0; ch < 3; ch++) texel[ch] = wa * colors[3 * a + ch] + wb * colors[3 * b + ch] + wc * colors[3 * c + ch];
      }
      out[o] = Math.round(texel[0]);
      out[o + 1] = Math.round(texel[1]);
      out[o + 2] = Math.round(texel[2]);
      out[o + 3] = 255;
    }
  }
}
