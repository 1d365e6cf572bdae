/**
 * @module Binary STL of the mesh: 80-byte header, uint32 face count, then per face the unit
 * normal, three vertices (float32 each) and a zero uint16 attribute byte count (50 bytes).
 * STL carries no colour; the normal is the face's own (right-hand rule on the CCW winding).
 */
import type { Mesh } from "../../scene/index.js";
import { joinChunks, recordsPerChunk } from "./chunks.js";

const HEADER_BYTES = 80;
const FACE_BYTES = 50;

/** The STL as chunks: header and face count, then the faces a chunk at a time. */
export function* stlChunks(mesh: Mesh, chunkFaces = recordsPerChunk(FACE_BYTES)): Generator<Uint8Array> {
  const head = new Uint8Array(HEADER_BYTES + 4);
  // The header must not start with "solid", or readers may take the file for ASCII STL.
  head.set(new TextEncoder().encode("binary STL, photogrammetry-service; +Y up, model units").subarray(0, HEADER_BYTES));
  new DataView(head.buffer).setUint32(HEADER_BYTES, mesh.faceCount, true);
  yield head;
  const { positions: p, indices } = mesh;
  for (let first = 0; first < mesh.faceCount; first += chunkFaces) {
    const end = Math.min(mesh.faceCount, first + chunkFaces);
    const out = new Uint8Array(FACE_BYTES * (end - first));
    const view = new DataView(out.buffer);
    for (let f = first; f < end; f++) {
      const a = 3 * indices[3 * f];
      const b = 3 * indices[3 * f + 1];
      const c = 3 * indices[3 * f + 2];
      const abx = p[b] - p[a], aby = p[b + 1] - p[a + 1], abz = p[b + 2] - p[a + 2];
      const acx = p[c] - p[a], acy = p[c + 1] - p[a + 1], acz = p[c + 2] - p[a + 2];
      let nx = aby * acz - abz * acy, ny = abz * acx - abx * acz, nz = abx * acy - aby * acx;
      const len = Math.hypot(nx, ny, nz);
      if (len > 0) { nx /= len; ny /= len; nz /= len; }
      let at = (f - first) * FACE_BYTES;
      view.setFloat32(at, nx, true);
      view.setFloat32(at + 4, ny, true);
      view.setFloat32(at + 8, nz, true);
      at += 12;
      for (const v of [a, b, c]) {
        view.setFloat32(at, p[v], true);
        view.setFloat32(at + 4, p[v + 1], true);
        view.setFloat32(at + 8, p[v + 2], true);
        at += 12;
      }
      view.setUint16(at, 0, true);
    }
    yield out;
  }
}

export function writeStl(mesh: Mesh): Uint8Array {
  return joinChunks(stlChunks(mesh));
}
