/**
 * @module Wavefront OBJ of the mesh, one self-contained text file: vertex colours ride on the
 * `v x y z r g b` extension (colours in [0, 1]) that MeshLab, Blender and loaders.gl read, so no
 * .mtl side file is needed; `vn` per vertex and `f a//a b//b c//c` (1-based, CCW from outside).
 */
import type { Mesh } from "../../scene/index.js";
import { AsciiWriter } from "./ascii-writer.js";

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

export function writeObj(mesh: Mesh): Uint8Array {
  const { positions: p, normals: n, colors: c, indices } = mesh;
  const d = positionDecimals(p.subarray(0, 3 * mesh.vertexCount));
  const out = new AsciiWriter(80 * mesh.vertexCount + 40 * mesh.faceCount + 256);
  out.text(`# photogrammetry-service mesh: ${mesh.vertexCount} vertices, ${mesh.faceCount} faces\n`);
  out.text("# right-handed, +Y up, model units; vertex colours as v x y z r g b (0..1)\n");
  for (let v = 0; v < mesh.vertexCount; v++) {
    const i = 3 * v;
    out.text("v ").text(p[i].toFixed(d)).byte(SPACE).text(p[i + 1].toFixed(d)).byte(SPACE).text(p[i + 2].toFixed(d));
    out.bytes(COLOR_TEXT[c[i]]).bytes(COLOR_TEXT[c[i + 1]]).bytes(COLOR_TEXT[c[i + 2]]).byte(NEWLINE);
  }
  for (let v = 0; v < mesh.vertexCount; v++) {
    const i = 3 * v;
    out.text("vn ").text(n[i].toFixed(6)).byte(SPACE).text(n[i + 1].toFixed(6)).byte(SPACE).text(n[i + 2].toFixed(6)).byte(NEWLINE);
  }
  for (let f = 0; f < mesh.faceCount; f++) {
    out.byte(102); // "f"
    for (let k = 0; k < 3; k++) {
      const index = indices[3 * f + k] + 1;
      out.byte(SPACE).int(index).byte(SLASH).byte(SLASH).int(index);
    }
    out.byte(NEWLINE);
  }
  return out.result();
}
