/** @module Per-vertex normals and colours of the final mesh. */
import type { PointGrid } from "./point-grid.js";
import type { RawMesh } from "./surface-nets.js";

/**
 * Area-weighted vertex normals: the sum of the (unnormalised) face normals around each
 * vertex, so large faces count more; a vertex whose faces cancel out gets +Y.
 */
export function vertexNormals(mesh: RawMesh): Float32Array {
  const { positions: p, indices } = mesh;
  const acc = new Float64Array(p.length);
  for (let f = 0; f < indices.length; f += 3) {
    const a = 3 * indices[f], b = 3 * indices[f + 1], c = 3 * indices[f + 2];
    const abx = p[b] - p[a], aby = p[b + 1] - p[a + 1], abz = p[b + 2] - p[a + 2];
    const acx = p[c] - p[a], acy = p[c + 1] - p[a + 1], acz = p[c + 2] - p[a + 2];
    const nx = aby * acz - abz * acy, ny = abz * acx - abx * acz, nz = abx * acy - aby * acx;
    for (const v of [a, b, c]) { acc[v] += nx; acc[v + 1] += ny; acc[v + 2] += nz; }
  }
  const normals = new Float32Array(p.length);
  for (let v = 0; v < p.length; v += 3) {
    const len = Math.hypot(acc[v], acc[v + 1], acc[v + 2]);
    if (len > 0) {
      normals[v] = acc[v] / len; normals[v + 1] = acc[v + 1] / len; normals[v + 2] = acc[v + 2] / len;
    } else {
      normals[v + 1] = 1;
    }
  }
  return normals;
}

/**
 * Colour of each vertex as the inverse-distance-weighted mean of the point colours within
 * `radius` (Shepard 1968), or the nearest point's colour within 3·radius; mid grey if none.
 * Written into `colors`, except at the vertices `skip` marks (those the photos coloured).
 */
export function vertexColors(positions: Float32Array, grid: PointGrid, pointColors: Uint8Array, radius: number, colors: Uint8Array, skip?: Uint8Array): Uint8Array {
  const vertexCount = positions.length / 3;
  let r = 0, g = 0, b = 0, wsum = 0;
  let nearest = -1, nearestD2 = Infinity;
  // Softening so a point exactly at the vertex gets a large, finite weight.
  const eps = (0.05 * radius) ** 2;
  const gather = (i: number, d2: number): void => {
    const w = 1 / (d2 + eps);
    r += w * pointColors[3 * i]; g += w * pointColors[3 * i + 1]; b += w * pointColors[3 * i + 2];
    wsum += w;
  };
  const closest = (i: number, d2: number): void => {
    if (d2 < nearestD2) { nearestD2 = d2; nearest = i; }
  };
  for (let v = 0; v < vertexCount; v++) {
    if (skip?.[v] === 1) continue;
    const x = positions[3 * v], y = positions[3 * v + 1], z = positions[3 * v + 2];
    r = g = b = wsum = 0;
    grid.forEachWithin(x, y, z, radius, gather);
    if (wsum > 0) {
      colors[3 * v] = Math.round(r / wsum); colors[3 * v + 1] = Math.round(g / wsum); colors[3 * v + 2] = Math.round(b / wsum);
      continue;
    }
    nearest = -1; nearestD2 = Infinity;
    grid.forEachWithin(x, y, z, 3 * radius, closest);
    if (nearest >= 0) colors.set(pointColors.subarray(3 * nearest, 3 * nearest + 3), 3 * v);
    else colors.fill(128, 3 * v, 3 * v + 3);
  }
  return colors;
}
