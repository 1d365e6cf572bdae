/**
 * @module Wavefront OBJ of the mesh, delivered as a zip (docs/API.md "What each format
 * holds"): `model.obj`, `model.mtl` and the texture pages `texture_<k>.jpg`.
 *
 * - Vertex colours ride on the `v x y z r g b` extension (sRGB, 0–1) that MeshLab, Blender and
 *   loaders.gl read, for readers that ignore materials; `vn` per vertex.
 * - With a texture: `vt u v` per vertex (OBJ's v axis points up, so v = 1 − glTF's v), one
 *   `usemtl page_<k>` group per page with `map_Kd texture_<k>.jpg`, and a material
 *   `untextured` (no map) for the faces no photo saw. Faces `f a/a/a b/b/b c/c/c` (1-based,
 *   counter-clockwise from outside); without a texture `f a//a b//b c//c`.
 */
import { Zip, ZipDeflate, ZipPassThrough } from "fflate";
import type { Mesh, TexturedMesh } from "../../scene/index.js";
import { AsciiWriter } from "./ascii-writer.js";
import { CHUNK_BYTES, joinChunks } from "./chunks.js";
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

// Each line hands on the writer's text once it holds a chunk's worth, so the OBJ never stands whole in memory.
function* vertexLines(out: AsciiWriter, mesh: Mesh, uvs: Float32Array | null, chunkBytes: number): Generator<Uint8Array> {
  const { positions: p, normals: n, colors: c } = mesh;
  const d = positionDecimals(p.subarray(0, 3 * mesh.vertexCount));
  for (let v = 0; v < mesh.vertexCount; v++) {
    const i = 3 * v;
    out.text("v ").text(p[i].toFixed(d)).byte(SPACE).text(p[i + 1].toFixed(d)).byte(SPACE).text(p[i + 2].toFixed(d));
    out.bytes(COLOR_TEXT[c[i]]).bytes(COLOR_TEXT[c[i + 1]]).bytes(COLOR_TEXT[c[i + 2]]).byte(NEWLINE);
    if (out.size >= chunkBytes) yield out.take();
  }
  if (uvs) {
    for (let v = 0; v < mesh.vertexCount; v++) {
      out.text("vt ").text(uvs[2 * v].toFixed(6)).byte(SPACE).text((1 - uvs[2 * v + 1]).toFixed(6)).byte(NEWLINE);
      if (out.size >= chunkBytes) yield out.take();
    }
  }
  for (let v = 0; v < mesh.vertexCount; v++) {
    const i = 3 * v;
    out.text("vn ").text(n[i].toFixed(6)).byte(SPACE).text(n[i + 1].toFixed(6)).byte(SPACE).text(n[i + 2].toFixed(6)).byte(NEWLINE);
    if (out.size >= chunkBytes) yield out.take();
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

/** The OBJ text of a mesh, textured (with `usemtl` groups) or not, as chunks of about `chunkBytes`. */
export function* objChunks(mesh: Mesh, textured: TexturedMesh | null = null, materialLibrary = "model.mtl", chunkBytes = CHUNK_BYTES): Generator<Uint8Array> {
  const withUv = textured !== null;
  // A line is under 200 bytes, so the buffer never grows past its first size.
  const out = new AsciiWriter(chunkBytes + 256);
  out.text(`# photogrammetry-service mesh: ${mesh.vertexCount} vertices, ${mesh.faceCount} faces\n`);
  out.text("# right-handed, +Y up, model units; vertex colours as v x y z r g b (sRGB, 0..1)\n");
  out.text(`mtllib ${materialLibrary}\n`);
  yield* vertexLines(out, mesh, textured ? textured.uvs : null, chunkBytes);
  if (!textured) {
    out.text("usemtl untextured\n");
    for (let f = 0; f < mesh.faceCount; f++) {
      writeFace(out, mesh.indices, f, false);
      if (out.size >= chunkBytes) yield out.take();
    }
  } else {
    for (let page = 0; page <= textured.pages.length; page++) {
      let opened = false;
      for (let f = 0; f < mesh.faceCount; f++) {
        if (textured.facePage[f] !== page) continue;
        if (!opened) { out.text(page < textured.pages.length ? `usemtl page_${page}\n` : "usemtl untextured\n"); opened = true; }
        writeFace(out, mesh.indices, f, page < textured.pages.length);
        if (out.size >= chunkBytes) yield out.take();
      }
    }
  }
  if (out.size > 0) yield out.take();
}

/** The OBJ text of a mesh, textured (with `usemtl` groups) or not. */
export function writeObj(mesh: Mesh, textured: TexturedMesh | null = null, materialLibrary = "model.mtl"): Uint8Array {
  return joinChunks(objChunks(mesh, textured, materialLibrary));
}

/** The .mtl: one unlit-looking material per page (Kd white, the map carries the colour; illum 0 = no lighting). */
export function writeMtl(pageCount: number): string {
  const lines = ["# photogrammetry-service materials: photo texture pages (sRGB JPEG)"];
  for (let page = 0; page < pageCount; page++) lines.push("", `newmtl page_${page}`, "Ka 1 1 1", "Kd 1 1 1", "Ks 0 0 0", "illum 0", `map_Kd texture_${page}.jpg`);
  lines.push("", "newmtl untextured", "Ka 1 1 1", "Kd 1 1 1", "Ks 0 0 0", "illum 0", "");
  return lines.join("\n");
}

/**
 * The zip of docs/API.md (model.obj, model.mtl and the texture pages) as chunks: the OBJ text is
 * deflated as it is written, and each piece of the archive is handed on as soon as it exists.
 */
export async function objZipChunks(mesh: Mesh, textured: TexturedMesh | null, chunkBytes = CHUNK_BYTES, sidecars: Array<{ name: string; text: string }> = []): Promise<Iterable<Uint8Array>> {
  const useTexture = textured && textured.mesh.faceCount > 0 ? textured : null;
  const shown = useTexture ? useTexture.mesh : mesh;
  const pages: Uint8Array[] = [];
  if (useTexture) for (const page of useTexture.pages) pages.push(await pageJpeg(page));
  return (function* () {
    const ready: Uint8Array[] = [];
    const zip = new Zip((error, data) => {
      if (error) throw error;
      ready.push(data);
    });
    const drain = function* (): Generator<Uint8Array> {
      while (ready.length > 0) yield ready.shift() as Uint8Array;
    };
    // fflate's Zip passes a file's data on while it is the one being written, so files go one after another.
    const obj = new ZipDeflate("model.obj", { level: 6 });
    zip.add(obj);
    for (const piece of objChunks(shown, useTexture, "model.mtl", chunkBytes)) {
      obj.push(piece);
      yield* drain();
    }
    obj.push(new Uint8Array(0), true);
    const mtl = new ZipDeflate("model.mtl", { level: 6 });
    zip.add(mtl);
    mtl.push(new TextEncoder().encode(writeMtl(useTexture ? useTexture.pages.length : 0)), true);
    // JPEGs are stored as they are (deflating them gains nothing).
    pages.forEach((jpeg, page) => {
      const entry = new ZipPassThrough(`texture_${page}.jpg`);
      zip.add(entry);
      entry.push(jpeg, true);
    });
    // A georeferenced model's coordinate system (model.prj) and offset beside it, as GIS tools expect.
    for (const sidecar of sidecars) {
      const entry = new ZipDeflate(sidecar.name, { level: 6 });
      zip.add(entry);
      entry.push(new TextEncoder().encode(sidecar.text), true);
    }
    zip.end();
    yield* drain();
  })();
}

/** The whole zip in one buffer (tests and small models; the export stage writes `objZipChunks`). */
export async function writeObjZip(mesh: Mesh, textured: TexturedMesh | null): Promise<Uint8Array> {
  return joinChunks(await objZipChunks(mesh, textured));
}
