/**
 * @module Mesh clean-up after extraction: drop faces far from the data, drop small
 * disconnected pieces, and compact away unused vertices.
 */
import type { PointGrid } from "./point-grid.js";
import type { RawMesh } from "./surface-nets.js";

/**
 * Keeps faces whose centroid has a point within `maxDistance`. The signed distance is
 * extrapolated up to the support radius past the edge of the data (the tangent planes
 * continue); this cuts that fringe off open surfaces and real holes.
 *
 * A face farther than that is still kept when the data surrounds it: the mean of the points
 * within 2·maxDistance lies within 0.6·maxDistance of the centroid. Random sampling leaves
 * such small gaps inside well-covered surface (a Poisson gap of radius h is not rare), and
 * cutting them would riddle closed surfaces with pinholes; past a boundary all neighbours lie
 * on one side, at least maxDistance away, so the mean cannot come that close.
 */
export function trimFaces(mesh: RawMesh, grid: PointGrid, maxDistance: number): { mesh: RawMesh; rescued: number } {
  const { positions: p, indices } = mesh;
  const kept = new Uint32Array(indices.length);
  let n = 0;
  let rescued = 0;
  let mx = 0, my = 0, mz = 0, neighbours = 0;
  const gather = (i: number): void => {
    mx += grid.positions[3 * i]; my += grid.positions[3 * i + 1]; mz += grid.positions[3 * i + 2];
    neighbours++;
  };
  const enclosed = 0.6 * maxDistance;
  for (let f = 0; f < indices.length; f += 3) {
    const a = 3 * indices[f], b = 3 * indices[f + 1], c = 3 * indices[f + 2];
    const cx = (p[a] + p[b] + p[c]) / 3, cy = (p[a + 1] + p[b + 1] + p[c + 1]) / 3, cz = (p[a + 2] + p[b + 2] + p[c + 2]) / 3;
    if (!grid.hasPointWithin(cx, cy, cz, maxDistance)) {
      mx = my = mz = neighbours = 0;
      grid.forEachWithin(cx, cy, cz, 2 * maxDistance, gather);
      if (neighbours < 3 || Math.hypot(mx / neighbours - cx, my / neighbours - cy, mz / neighbours - cz) > enclosed) continue;
      rescued++;
    }
    kept[n++] = indices[f]; kept[n++] = indices[f + 1]; kept[n++] = indices[f + 2];
  }
  return { mesh: { positions: p, indices: kept.slice(0, n) }, rescued };
}

function findRoot(parent: Int32Array, x: number): number {
  while (parent[x] !== x) {
    parent[x] = parent[parent[x]]; // path halving
    x = parent[x];
  }
  return x;
}

/**
 * Removes connected components (through shared vertices; union-find) with fewer faces than
 * `minFraction` of all faces: floaters from noise and stray depth.
 */
export function removeSmallComponents(mesh: RawMesh, minFraction: number): { mesh: RawMesh; components: number; removed: number } {
  const vertexCount = mesh.positions.length / 3;
  const parent = new Int32Array(vertexCount);
  for (let v = 0; v < vertexCount; v++) parent[v] = v;
  const { indices } = mesh;
  for (let i = 0; i < indices.length; i += 3) {
    for (const other of [indices[i + 1], indices[i + 2]]) {
      const ra = findRoot(parent, indices[i]), rb = findRoot(parent, other);
      if (ra !== rb) parent[ra] = rb;
    }
  }
  const facesOfRoot = new Uint32Array(vertexCount);
  for (let i = 0; i < indices.length; i += 3) facesOfRoot[findRoot(parent, indices[i])]++;
  let components = 0;
  for (let v = 0; v < vertexCount; v++) if (facesOfRoot[v] > 0) components++;
  const minFaces = minFraction * (indices.length / 3);
  const kept = new Uint32Array(indices.length);
  let n = 0;
  let removed = 0;
  for (let v = 0; v < vertexCount; v++) if (facesOfRoot[v] > 0 && facesOfRoot[v] < minFaces) removed++;
  for (let i = 0; i < indices.length; i += 3) {
    if (facesOfRoot[findRoot(parent, indices[i])] < minFaces) continue;
    kept[n++] = indices[i]; kept[n++] = indices[i + 1]; kept[n++] = indices[i + 2];
  }
  return { mesh: { positions: mesh.positions, indices: kept.slice(0, n) }, components, removed };
}

/** Drops vertices no face uses and renumbers the rest in first-use order. */
export function compactVertices(mesh: RawMesh): RawMesh {
  const vertexCount = mesh.positions.length / 3;
  const remap = new Int32Array(vertexCount).fill(-1);
  const indices = new Uint32Array(mesh.indices.length);
  let next = 0;
  for (let i = 0; i < mesh.indices.length; i++) {
    const v = mesh.indices[i];
    if (remap[v] < 0) remap[v] = next++;
    indices[i] = remap[v];
  }
  const positions = new Float32Array(3 * next);
  for (let v = 0; v < vertexCount; v++) {
    const w = remap[v];
    if (w < 0) continue;
    positions[3 * w] = mesh.positions[3 * v];
    positions[3 * w + 1] = mesh.positions[3 * v + 1];
    positions[3 * w + 2] = mesh.positions[3 * v + 2];
  }
  return { positions, indices };
}

/** Drops faces with a repeated vertex (the simplifier and the quad split can leave none, but cheap to be sure). */
export function dropDegenerateFaces(mesh: RawMesh): RawMesh {
  const kept = new Uint32Array(mesh.indices.length);
  let n = 0;
  const idx = mesh.indices;
  for (let i = 0; i < idx.length; i += 3) {
    if (idx[i] === idx[i + 1] || idx[i + 1] === idx[i + 2] || idx[i] === idx[i + 2]) continue;
    kept[n++] = idx[i]; kept[n++] = idx[i + 1]; kept[n++] = idx[i + 2];
  }
  return { positions: mesh.positions, indices: kept.slice(0, n) };
}
