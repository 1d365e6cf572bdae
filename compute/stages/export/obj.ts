/**
 * @module Wavefront OBJ of the mesh, delivered as a zip (API.md): `model.obj`, `model.mtl` and
 * the texture pages `texture_<k>.jpg`.
 *
 * - Vertex colours ride on the `v x y z r g b` extension (sRGB, 0–1) that MeshLab, Blender and
 *   loaders.gl read, for readers that ignore materials; `vn` per vertex.
 * - With a texture: `vt u v` per vertex (OBJ's v axis points up, so v = 1 − glTF's v), one
 *   `usemtl page_<k>` group per page with `map_Kd texture_<k>.jpg`, and a material
 *   `untextured` (no map) for the faces no photo saw. Faces `f a/a/a b/b/b c/c/c` (1-based,
 *   counter-clockwise from outside); without a texture `f a//a b//b c//c`.
 */
import { zipSync } from "fflate";
import type { Mesh, TexturedMesh } from "../../scene/index.js";
import { AsciiWriter } from "./ascii-writer.js";
import { pageJpeg } from "./texture-jpeg.js";

const SPACE = 32;
const NEWLINE = 10;
const SLASH = 47;

/** The 256 possible colour components as " 0.1234" bytes (leading space included). */
const COLOR_TEXT = Array.from({ length: 256 }, (_, v) => new TextEncoder().encode(` ${(v / 255).toFixed(4)}`));

/**
 * Decimals that resolve the float32 spacing at the largest |coordinate| (relative precision
 * about 1.2e-7): fixed-point is ~6× faster to format than 9 significant digits.
 */
export function positionDecimals(positions: Float32Array): number {
  let maxAbs = 0;
  for (let i = 0; i < positions.length; i++) maxAbs = Math.max(maxAbs, Math.abs(positions[i]));
  if (maxAbs === 0) return 1;
  return Math.min(9, Math.max(1, Math.ceil(-Math.log10(maxAbs * 1.2e-7))));
}

function writeVertices(out: AsciiWriter, mesh: Mesh, uvs: Float32Array | null): void {
  const { positions: p, normals: n, colors: c } = mesh;
  const d = positionDecimals(p.subarray(0, 3 * mesh.vertexCount));
  for (let v = 0; v < mesh.vertexCount; v++) {
    const i = 3 * v;
    out.text("v ").text(p[i].toFixed(d)).byte(SPACE).text(p[i + 1].toFixed(d)).byte(SPACE).text(p[i + 2].toFixed(d));
    out.bytes(COLOR_TEXT[c[i]]).bytes(COLOR_TEXT[c[i + 1]]).bytes(COLOR_TEXT[c[i + 2]]).byte(NEWLINE);
  }
  if (uvs) for (let v = 0; v < mesh.vertexCount; v++) out.text("vt ").text(uvs[2 * v].toFixed(6)).byte(SPACE).text((1 - uvs[2 * v + 1]).toFixed(6)).byte(NEWLINE);
  for (let v = 0; v < mesh.vertexCount; v++) {
    const i = 3 * v;
    out.text("vn ").text(n[i].toFixed(6)).byte(SPACE).text(n[i + 1].toFixed(6)).byte(SPACE).text(n[i + 2].toFixed(6)).byte(NEWLINE);
  }
}

function writeFace(out: AsciiWriter, indices: Uint32Array, f: number, withUv: boolean): void {
  out.byte(102); // "f"
  for (let k = 0; k < 3; k++) {
    const index = indices[3 * f + k] + 1;
    out.byte(SPACE).int(index).byte(SLASH);
    if (withUv) out.int(index);
    out.byte(SLASH).int(index);
  }
  out.byte(NEWLINE);
}

/** The OBJ text of a mesh, textured (with `usemtl` groups) or not. */
export function writeObj(mesh: Mesh, textured: TexturedMesh | null = null, materialLibrary = "model.mtl"): Uint8Array {
  const withUv = textured !== null;
  const out = new AsciiWriter(100 * mesh.vertexCount + 50 * mesh.faceCount + 256);
  out.text(`# photogrammetry-service mesh: ${mesh.vertexCount} vertices, ${mesh.faceCount} faces\n`);
  out.text("# right-handed, +Y up, model units; vertex colours as v x y z r g b (sRGB, 0..1)\n");
  out.text(`mtllib ${materialLibrary}\n`);
  writeVertices(out, mesh, textured ? textured.uvs : null);
  if (!textured) {
    out.text("usemtl untextured\n");
    for (let f = 0; f < mesh.faceCount; f++) writeFace(out, mesh.indices, f, false);
    return out.result();
  }
  for (let page = 0; page <= textured.pages.length; page++) {
    let opened = false;
    for (let f = 0; f < mesh.faceCount; f++) {
      if (textured.facePage[f] !== page) continue;
      if (!opened) { out.text(page < textured.pages.length ? `usemtl page_${page}\n` : "usemtl untextured\n"); opened = true; }
      writeFace(out, mesh.indices, f, page < textured.pages.length);
    }
  }
  return out.result();
}

/** The .mtl: one unlit-looking material per page (Kd white, the map carries the colour; illum 0 = no lighting). */
export function writeMtl(pageCount: number): string {
  const lines = ["# photogrammetry-service materials: photo texture pages (sRGB JPEG)"];
  for (let page = 0; page < pageCount; page++) lines.push("", `newmtl page_${page}`, "Ka 1 1 1", "Kd 1 1 1", "Ks 0 0 0", "illum 0", `map_Kd texture_${page}.jpg`);
  lines.push("", "newmtl untextured", "Ka 1 1 1", "Kd 1 1 1", "Ks 0 0 0", "illum 0", "");
  return lines.join("\n");
}

/** The zip of API.md: model.obj, model.mtl and the texture pages. */
export async function writeObjZip(mesh: Mesh, textured: TexturedMesh | null): Promise<Uint8Array> {
  const useTexture = textured && textured.mesh.faceCount > 0 ? textured : null;
  const shown = useTexture ? useTexture.mesh : mesh;
  const files: Record<string, Uint8Array> = {
    "model.obj": writeObj(shown, useTexture),
    "model.mtl": new TextEncoder().encode(writeMtl(useTexture ? useTexture.pages.length : 0)),
  };
  if (useTexture) for (let page = 0; page < useTexture.pages.length; page++) files[`texture_${page}.jpg`] = await pageJpeg(useTexture.pages[page]);
  // JPEGs are stored as they are (deflating them gains nothing); the text is deflated.
  const entries: Record<string, [Uint8Array, { level: 0 | 6 }]> = {};
  for (const [name, bytes] of Object.entries(files)) entries[name] = [bytes, { level: name.endsWith(".jpg") ? 0 : 6 }];
  return zipSync(entries);
}
