/**
 * @module Zero level set of the lattice's signed distance as a triangle mesh, by surface nets
 * (Gibson, "Constrained elastic surface nets", MERL TR 1998; the "naive surface nets" of
 * Mikola Lysenko's write-up): one vertex per cell whose corners change sign, at the mean of
 * the zero crossings on its edges, and one quad (two triangles) per lattice edge that
 * changes sign, joining the four cells around that edge.
 *
 * Chosen over marching cubes (Lorensen & Cline 1987) because each surface cell owns exactly
 * one shared vertex, so the output is indexed and free of the slivers marching cubes makes
 * near corners, which the simplifier then handles better; accuracy is the same order (a
 * fraction of a voxel). A cell is used only when all eight corners exist, and a quad only
 * when all four cells exist, so the surface stops where the data stops.
 */
import type { BrickLattice } from "./brick-lattice.js";
import { GrowableFloat32, GrowableUint32 } from "../../util/growable.js";

export interface RawMesh {
  positions: Float32Array;
  indices: Uint32Array;
}

/** Corner c of a cell is at offset (c&1, c>>1&1, c>>2&1). The 12 edges as corner pairs. */
const CELL_EDGES = [0, 1, 2, 3, 4, 5, 6, 7, 0, 2, 1, 3, 4, 6, 5, 7, 0, 4, 1, 5, 2, 6, 3, 7];

export function extractSurfaceNets(lattice: BrickLattice, minWeight: number): RawMesh {
  const { value, weight, origin, spacing: h } = lattice;
  const slots = lattice.slotCount;
  /** Vertex of the cell whose min corner is node id n, or −1. */
  const cellVertex = new Int32Array(slots).fill(-1);
  const vertices = new GrowableFloat32(slots >> 2);
  // Scratch: lattice coordinates of the current node, values at the 8 corners of its cell.
  const ijk = new Int32Array(3);
  const cornerValue = new Float64Array(8);
  const defined = (n: number): boolean => n >= 0 && weight[n] >= minWeight;

  for (let e = 0; e < slots; e++) {
    if (!defined(e)) continue;
    lattice.coordinates(e, ijk);
    const i = ijk[0], j = ijk[1], k = ijk[2];
    let inside = 0;
    let complete = true;
    for (let c = 0; c < 8; c++) {
      const n = c === 0 ? e : lattice.node(i + (c & 1), j + ((c >> 1) & 1), k + ((c >> 2) & 1));
      if (!defined(n)) { complete = false; break; }
      cornerValue[c] = value[n];
      if (value[n] < 0) inside++;
    }
    if (!complete || inside === 0 || inside === 8) continue;
    let sx = 0, sy = 0, sz = 0, crossings = 0;
    for (let edge = 0; edge < 12; edge++) {
      const a = CELL_EDGES[2 * edge], b = CELL_EDGES[2 * edge + 1];
      const fa = cornerValue[a], fb = cornerValue[b];
      if ((fa < 0) === (fb < 0)) continue;
      const t = fa / (fa - fb);
      sx += (a & 1) + t * ((b & 1) - (a & 1));
      sy += ((a >> 1) & 1) + t * (((b >> 1) & 1) - ((a >> 1) & 1));
      sz += ((a >> 2) & 1) + t * (((b >> 2) & 1) - ((a >> 2) & 1));
      crossings++;
    }
    cellVertex[e] = vertices.length / 3;
    vertices.push3(origin[0] + (i + sx / crossings) * h, origin[1] + (j + sy / crossings) * h, origin[2] + (k + sz / crossings) * h);
  }

  const indices = new GrowableUint32(2 * vertices.length);
  const vertexPositions = vertices.data;
  const quad = new Int32Array(4);
  const cell = new Int32Array(3);
  for (let e = 0; e < slots; e++) {
    if (!defined(e)) continue;
    lattice.coordinates(e, ijk);
    for (let axis = 0; axis < 3; axis++) {
      const u = (axis + 1) % 3, v = (axis + 2) % 3;
      const n = lattice.node(ijk[0] + (axis === 0 ? 1 : 0), ijk[1] + (axis === 1 ? 1 : 0), ijk[2] + (axis === 2 ? 1 : 0));
      if (!defined(n) || (value[e] < 0) === (value[n] < 0)) continue;
      // The four cells around the edge, counter-clockwise in the (u, v) plane, so with
      // e_u × e_v = e_axis the quad faces +axis.
      let complete = true;
      for (let q = 0; q < 4 && complete; q++) {
        cell[0] = ijk[0]; cell[1] = ijk[1]; cell[2] = ijk[2];
        cell[u] -= q === 0 || q === 3 ? 1 : 0;
        cell[v] -= q === 0 || q === 1 ? 1 : 0;
        const c = lattice.node(cell[0], cell[1], cell[2]);
        quad[q] = c < 0 ? -1 : cellVertex[c];
        complete = quad[q] >= 0;
      }
      if (!complete) continue;
      // Outside (f ≥ 0) lies towards +axis when the edge goes from inside to outside.
      emitQuad(indices, vertexPositions, quad, value[e] < 0);
    }
  }
  return { positions: vertices.toArray(), indices: indices.toArray() };
}
function distance2(p: Float32Array, a: number, b: number): number {
  const dx = p[3 * a] - p[3 * b], dy = p[3 * a + 1] - p[3 * b + 1], dz = p[3 * a + 2] - p[3 * b + 2];
  return dx * dx + dy * dy + dz * dz;
}

/** Two triangles split along the shorter diagonal (better shaped triangles). */
function emitQuad(out: GrowableUint32, p: Float32Array, q: Int32Array, forward: boolean): void {
  const [a, b, c, d] = forward ? [q[0], q[1], q[2], q[3]] : [q[0], q[3], q[2], q[1]];
  if (distance2(p, a, c) <= distance2(p, b, d)) {
    out.push3(a, b, c);
    out.push3(a, c, d);
  } else {
    out.push3(a, b, d);
    out.push3(b, c, d);
  }
}
