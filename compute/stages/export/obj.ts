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
import { constants as zlibConstants, crc32, deflateRaw, type ZlibOptions } from "node:zlib";
import { Zip, ZipDeflate, ZipPassThrough, type ZipInputFile } from "fflate";
import type { Mesh, TexturedMesh } from "../../scene/index.js";
import { AsciiWriter } from "./ascii-writer.js";
import { CHUNK_BYTES, joinChunks, joinChunksAsync } from "./chunks.js";
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

/** OBJ text deflated as one piece: each piece is a task on libuv's thread pool. */
const DEFLATE_PIECE_BYTES = 1 << 20;

/** Pieces deflating at once: enough for both cores, few enough that little text waits in memory. */
const DEFLATES_IN_FLIGHT = 4;

/**
 * zlib's level for the OBJ text. Measured on Herz-Jesus-P8's 26.2-MB OBJ (scratch
 * `bench-out/tmp/objtime.mts`, one thread, three rounds): level 6 743–767 ms to 5.57 MB, level 3
 * 265–278 ms to 6.26 MB, level 1 180–213 ms to 6.94 MB. Level 3 takes a third of the time for
 * 12 % more bytes of text (6 % of the zip, whose texture pages are stored as they are), and this
 * deflate was the export stage's longest part once the pages' JPEGs were fast (util/jpeg.ts).
 */
const OBJ_DEFLATE_LEVEL = 3;

/** Deflate's window: each piece is compressed with the text before it as its dictionary. */
const DEFLATE_WINDOW_BYTES = 32 << 10;

/**
 * The zip of docs/API.md (model.obj, model.mtl and the texture pages) as chunks: the OBJ text is
 * deflated as it is written, and each piece of the archive is handed on as soon as it exists.
 */
export async function* objZipChunks(mesh: Mesh, textured: TexturedMesh | null, chunkBytes = DEFLATE_PIECE_BYTES, sidecars: Array<{ name: string; text: string }> = []): AsyncGenerator<Uint8Array> {
  const useTexture = textured && textured.mesh.faceCount > 0 ? textured : null;
  const shown = useTexture ? useTexture.mesh : mesh;
  // The pages are encoded (sharp, off this thread) while the OBJ text is written and deflated: they
  // go into the zip after it. A failure is raised where they are awaited.
  const encoding = useTexture ? useTexture.pages.map((page) => pageJpeg(page)) : [];
  for (const jpeg of encoding) jpeg.catch(() => undefined);
  const ready: Uint8Array[] = [];
  const zip = new Zip((error, data) => {
    if (error) throw error;
    ready.push(data);
  });
  // fflate's Zip passes a file's data on while it is the one being written, so files go one after another.
  yield* deflatedEntry(zip, "model.obj", objChunks(shown, useTexture, "model.mtl", chunkBytes), ready);
  const mtl = new ZipDeflate("model.mtl", { level: 6 });
  zip.add(mtl);
  mtl.push(new TextEncoder().encode(writeMtl(useTexture ? useTexture.pages.length : 0)), true);
  // JPEGs are stored as they are (deflating them gains nothing).
  const pages = await Promise.all(encoding);
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
  yield* ready.splice(0);
}

/**
 * One zip entry deflated piece by piece in parallel, as pigz does: each piece is a raw deflate
 * stream ended by a sync flush (byte-aligned, not final) and started with the 32 KiB of text
 * before it as its dictionary, so the pieces join into one deflate stream nearly as small as a
 * single pass. Node's zlib runs the pieces on libuv's thread pool, on both cores, while this
 * thread writes the next text. Measured on Herz-Jesus-P8's 25.7-MB OBJ
 * (a scratch script, three rounds): fflate's one-thread deflate 1.18–1.92 s, 6.31 MB; zlib in one
 * pass 1.11–1.21 s, 6.10 MB; these pieces 0.74–0.89 s, 6.10 MB, the same model.obj. The CRC
 * and size go in the entry's data descriptor.
 */
async function* deflatedEntry(zip: Zip, filename: string, text: Iterable<Uint8Array>, ready: Uint8Array[]): AsyncGenerator<Uint8Array> {
  const entry: ZipInputFile = { filename, compression: 8, size: 0, crc: 0 };
  zip.add(entry);
  const deflating: Array<Promise<Buffer>> = [];
  let size = 0;
  let crc = 0;
  let previous: Uint8Array | null = null;
  // One piece is held back: only the last is deflated with the final block.
  let held: Uint8Array | null = null;
  for (const piece of text) {
    size += piece.byteLength;
    crc = crc32(piece, crc);
    if (held) {
      deflating.push(deflatePiece(held, previous, false));
      previous = held;
    }
    held = piece;
    while (deflating.length >= DEFLATES_IN_FLIGHT) {
      entry.ondata!(null, (await deflating.shift()!) as Uint8Array<ArrayBuffer>, false);
      yield* ready.splice(0);
    }
  }
  deflating.push(deflatePiece(held ?? new Uint8Array(0), previous, true));
  for (const pending of deflating) {
    entry.ondata!(null, (await pending) as Uint8Array<ArrayBuffer>, false);
    yield* ready.splice(0);
  }
  entry.size = size;
  entry.crc = crc;
  entry.ondata!(null, new Uint8Array(0), true);
  yield* ready.splice(0);
}

function deflatePiece(piece: Uint8Array, previous: Uint8Array | null, last: boolean): Promise<Buffer> {
  const options: ZlibOptions = { level: OBJ_DEFLATE_LEVEL, finishFlush: last ? zlibConstants.Z_FINISH : zlibConstants.Z_SYNC_FLUSH };
  if (previous) options.dictionary = previous.subarray(Math.max(0, previous.byteLength - DEFLATE_WINDOW_BYTES));
  const deflated = new Promise<Buffer>((resolve, reject) => deflateRaw(piece, options, (error, out) => (error ? reject(error) : resolve(out))));
  // Awaited in order later; a failure before its turn must not count as unhandled meanwhile.
  deflated.catch(() => undefined);
  return deflated;
}

/** The whole zip in one buffer (tests and small models; the export stage writes `objZipChunks`). */
export async function writeObjZip(mesh: Mesh, textured: TexturedMesh | null): Promise<Uint8Array> {
  return joinChunksAsync(objZipChunks(mesh, textured));
}
