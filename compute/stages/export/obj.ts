/**
 * @module Wavefront OBJ of the mesh, one self-contained text file: vertex colours ride on the
 * `v x y z r g b` extension (colours in [0, 1]) that MeshLab, Blender and loaders.gl read, so no
 * .mtl side file is needed; `vn` per vertex and `f a//a b//b c//c` (1-based, CCW from outside).
 */
import type { Mesh } from "../../scene/index.js";

/** Lines per joined chunk: keeps the intermediate string arrays small on million-face meshes. */
const CHUNK_LINES = 65536;

/** 9 significant digits round-trip any float32 exactly. */
function num(value: number): string {
  return String(+value.toPrecision(9));
}

export function writeObj(mesh: Mesh): string {
  const { positions: p, normals: n, colors: c, indices } = mesh;
  const chunks: string[] = [
    `# photogrammetry-service mesh: ${mesh.vertexCount} vertices, ${mesh.faceCount} faces\n` +
      "# right-handed, +Y up, model units; vertex colours as v x y z r g b (0..1)\n",
  ];
  let lines: string[] = [];
  const flush = (): void => {
    if (lines.length > 0) chunks.push(lines.join("\n") + "\n");
    lines = [];
  };
  for (let v = 0; v < mesh.vertexCount; v++) {
    const i = 3 * v;
    lines.push(
      `v ${num(p[i])} ${num(p[i + 1])} ${num(p[i + 2])} ${(c[i] / 255).toFixed(4)} ${(c[i + 1] / 255).toFixed(4)} ${(c[i + 2] / 255).toFixed(4)}`,
    );
    if (lines.length >= CHUNK_LINES) flush();
  }
  flush();
  for (let v = 0; v < mesh.vertexCount; v++) {
    const i = 3 * v;
    lines.push(`vn ${num(n[i])} ${num(n[i + 1])} ${num(n[i + 2])}`);
    if (lines.length >= CHUNK_LINES) flush();
  }
  flush();
  for (let f = 0; f < mesh.faceCount; f++) {
    const a = indices[3 * f] + 1, b = indices[3 * f + 1] + 1, d = indices[3 * f + 2] + 1;
    lines.push(`f ${a}//${a} ${b}//${b} ${d}//${d}`);
    if (lines.length >= CHUNK_LINES) flush();
  }
  flush();
  return chunks.join("");
}
