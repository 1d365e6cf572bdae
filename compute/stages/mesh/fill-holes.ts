/**
 * @module Closing small, flat holes: a loop of boundary edges short enough and close enough
 * to a plane is closed by a fan around a new vertex at its centroid.
 *
 * Why: the surface stops wherever the dense cloud has no points, and small gaps open where
 * stereo fails for a reason that has nothing to do with the shape: a specular or moving patch
 * (water, a window, a car that moved), a shadow without texture, an occluded corner. Seen from
 * a photo such a gap is a hole through the model. Metashape and RealityCapture close them by
 * default; we close only loops that are short and nearly planar (a tent over a real opening
 * or across the outer border of the model would invent geometry), or that run along the corner
 * where two of the scene's planes meet (closed to that corner's line), and the texture stage then
 * paints the fill from the photos like any other face.
 */
import type { RawMesh } from "./surface-nets.js";

export interface HoleOptions {
  /** Longest loop closed, in boundary edges. */
  maxEdges: number;
  /** Largest distance of a loop vertex from the loop's best plane, as a fraction of its radius. */
  maxFlatness: number;
  /**
   * …or at most this distance (model units; absent: 0). A pinhole a few lattice cells across has
   * a border that zigzags by a fraction of a cell around its plane, which is a large part of so
   * small a radius: the relative rule left 300 pinholes open in a rendered courtyard's plain walls,
   * the dark specks its held-back photos showed (docs/decisions.md, "Pinholes are closed by an
   * absolute flatness").
   */
  maxDeviation?: number;
  /**
   * Holes along the corner where two planes of the scene meet (a wall and the floor): closed too,
   * though bent, when every vertex of the loop lies within `maxOffPlanes` of one of two crossing
   * planes and the loop spans both within `maxRadius` of their line (model units). The surface
   * rounds such corners, and what stereo leaves there opens a row of holes bent across the corner
   * that no flatness rule takes (docs/decisions.md, "Holes along two planes' corner are closed to their line…").
   */
  creases?: CreaseOptions;
}

/** The planes whose crossings close bent holes (fill-holes.ts), and how near a loop must keep to them. */
export interface CreaseOptions {
  planes: Array<{ normal: readonly number[]; d: number }>;
  maxOffPlanes: number;
  maxRadius: number;
}

/** Two planes closer than this to parallel (|cos| of their normals' angle) make no corner. */
const CREASE_MAX_COSINE = 0.5;

/**
 * How many faces use the edge between two vertices. Edges are counted in each vertex's list of
 * outgoing face edges (typed arrays, a vertex has ~6), not in a map keyed by vertex pairs: on a
 * 518k-face mesh (Herz-Jesus-P8) such a map took ~0.85 s, its keys past the small-integer range.
 */
export function faceEdgeCounter(indices: Uint32Array, vertexCount: number): (a: number, b: number) => number {
  // outTo[outStart[a] .. outStart[a + 1]): the b of every face edge a→b.
  const outStart = new Uint32Array(vertexCount + 1);
  for (let f = 0; f < indices.length; f += 3) for (let k = 0; k < 3; k++) outStart[indices[f + k] + 1]++;
  for (let v = 0; v < vertexCount; v++) outStart[v + 1] += outStart[v];
  const outTo = new Uint32Array(indices.length);
  const cursor = outStart.slice(0, vertexCount);
  for (let f = 0; f < indices.length; f += 3) for (let k = 0; k < 3; k++) outTo[cursor[indices[f + k]]++] = indices[f + ((k + 1) % 3)];
  return (a, b) => {
    let count = 0;
    for (let i = outStart[a]; i < outStart[a + 1]; i++) if (outTo[i] === b) count++;
    // A degenerate edge a→a is one edge, not one each way.
    if (a !== b) for (let i = outStart[b]; i < outStart[b + 1]; i++) if (outTo[i] === a) count++;
    return count;
  };
}

/**
 * The mesh's boundary as simple loops of vertices, each in the winding of its faces (edges used by
 * exactly one face). Where boundaries touch at a vertex (a vertex with two boundary edges out: two
 * pinholes sharing a corner, a pinhole against the surface's border, a non-manifold crossing of two
 * sheets) the walk cuts the loop it has closed off at that vertex and goes on, so each hole comes
 * out as its own loop; a loop cut so is kept only where it surrounds a hole (surroundsHole). Boundary walks that end where no boundary edge goes on (next to an edge used
 * by three faces or more) are dropped.
 *
 * Why: the rendered courtyard's mesh had 23,256 boundary edges before the fill, of which 4,392 were
 * in loops with no shared vertex; the others, skipped as ambiguous, left hundreds of pinholes
 * open in its plain walls (docs/decisions.md, "Pinholes are closed by an absolute flatness").
 */
export function boundaryLoops(indices: Uint32Array, positions: Float32Array): number[][] {
  const vertexCount = positions.length / 3;
  const faceEdgesBetween = faceEdgeCounter(indices, vertexCount);
  // The boundary edges a→b grouped by a (outTo[outStart[a] .. outStart[a + 1])), in face order.
  const outStart = new Uint32Array(vertexCount + 1);
  const from: number[] = [], to: number[] = [], face: number[] = [];
  for (let f = 0; f < indices.length; f += 3) {
    for (let k = 0; k < 3; k++) {
      const a = indices[f + k], b = indices[f + ((k + 1) % 3)];
      if (faceEdgesBetween(a, b) !== 1) continue;
      from.push(a);
      to.push(b);
      face.push(f / 3);
      outStart[a + 1]++;
    }
  }
  for (let v = 0; v < vertexCount; v++) outStart[v + 1] += outStart[v];
  const outTo = new Int32Array(from.length);
  const outFace = new Int32Array(from.length);
  const nextOut = outStart.slice(0, vertexCount);
  for (let e = 0; e < from.length; e++) {
    outFace[nextOut[from[e]]] = face[e];
    outTo[nextOut[from[e]]++] = to[e];
  }
  nextOut.set(outStart.subarray(0, vertexCount));
  // Position of a vertex on the current walk, or −1.
  const onPath = new Int32Array(vertexCount).fill(-1);
  const loops: number[][] = [];
  // The walk's vertices, and the face of the edge that leaves each.
  const path: number[] = [], pathFaces: number[] = [];
  const touches = (v: number) => outStart[v + 1] - outStart[v] > 1;
  for (const start of from) {
    while (nextOut[start] < outStart[start + 1]) {
      path.length = 0;
      pathFaces.length = 0;
      path.push(start);
      onPath[start] = 0;
      let at = start;
      while (path.length > 0) {
        if (nextOut[at] === outStart[at + 1]) {
          // A dead end: the walk's edges belong to no closed loop.
          for (const v of path) onPath[v] = -1;
          break;
        }
        pathFaces[path.length - 1] = outFace[nextOut[at]];
        const next = outTo[nextOut[at]++];
        const seenAt = onPath[next];
        if (seenAt < 0) {
          onPath[next] = path.length;
          path.push(next);
          at = next;
          continue;
        }
        // The walk came back to a vertex on it: the part since is a loop.
        const loop = path.splice(seenAt);
        const loopFaces = pathFaces.splice(seenAt);
        for (const v of loop) onPath[v] = -1;
        if (loop.length >= 3 && (!loop.some(touches) || surroundsHole(loop, loopFaces, indices, positions))) loops.push(loop);
        if (next === start && nextOut[start] === outStart[start + 1]) break;
        onPath[next] = path.length;
        path.push(next);
        at = next;
      }
      for (const v of path) onPath[v] = -1;
    }
  }
  return loops;
}

/**
 * Whether the faces along a loop lie outside it: the loop runs clockwise seen from their side
 * (its vector area, Newell's sum, points against the sum of their normals). A hole's border does;
 * a lobe of a surface's outer border that touches itself runs the other way round the surface
 * inside it, and closing it would cap the surface (synthetic smoke's mesh lost 0.006 of precision at
 * 0.5 % of the radius when such lobes were closed).
 */
function surroundsHole(loop: number[], faces: number[], indices: Uint32Array, positions: Float32Array): boolean {
  let ax = 0, ay = 0, az = 0;
  for (let i = 0; i < loop.length; i++) {
    const p = 3 * loop[i], q = 3 * loop[(i + 1) % loop.length];
    ax += positions[p + 1] * positions[q + 2] - positions[p + 2] * positions[q + 1];
    ay += positions[p + 2] * positions[q] - positions[p] * positions[q + 2];
    az += positions[p] * positions[q + 1] - positions[p + 1] * positions[q];
  }
  let nx = 0, ny = 0, nz = 0;
  for (const f of faces) {
    const a = 3 * indices[3 * f], b = 3 * indices[3 * f + 1], c = 3 * indices[3 * f + 2];
    const ux = positions[b] - positions[a], uy = positions[b + 1] - positions[a + 1], uz = positions[b + 2] - positions[a + 2];
    const vx = positions[c] - positions[a], vy = positions[c + 1] - positions[a + 1], vz = positions[c + 2] - positions[a + 2];
    nx += uy * vz - uz * vy;
    ny += uz * vx - ux * vz;
    nz += ux * vy - uy * vx;
  }
  return ax * nx + ay * ny + az * nz < 0;
}

/** Centroid, radius (RMS distance to it), the least-squares plane's unit normal and the largest distance from that plane (relative to the radius). */
export function loopShape(positions: Float32Array, loop: number[]): { centroid: number[]; radius: number; normal: number[]; flatness: number } {
  const centroid = [0, 0, 0];
  for (const v of loop) for (let a = 0; a < 3; a++) centroid[a] += positions[3 * v + a] / loop.length;
  const cov = [0, 0, 0, 0, 0, 0, 0, 0, 0];
  let radius2 = 0;
  for (const v of loop) {
    const d = [0, 1, 2].map((a) => positions[3 * v + a] - centroid[a]);
    radius2 += (d[0] ** 2 + d[1] ** 2 + d[2] ** 2) / loop.length;
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) cov[3 * i + j] += d[i] * d[j];
  }
  // Plane normal: the covariance's eigenvector of least eigenvalue, by inverse power iteration
  // on cov + ε·I (a few steps are plenty for a 3×3 matrix).
  const eps = 1e-9 * (cov[0] + cov[4] + cov[8] + 1e-30);
  const m = cov.map((c, i) => c + (i % 4 === 0 ? eps : 0));
  let n = [0.577, 0.577, 0.577];
  for (let iteration = 0; iteration < 20; iteration++) n = normalise(solve3(m, n));
  let flatness = 0;
  for (const v of loop) {
    const d = [0, 1, 2].map((a) => positions[3 * v + a] - centroid[a]);
    flatness = Math.max(flatness, Math.abs(d[0] * n[0] + d[1] * n[1] + d[2] * n[2]));
  }
  const radius = Math.sqrt(radius2);
  return { centroid, radius, normal: n, flatness: radius > 0 ? flatness / radius : Infinity };
}

function normalise(v: number[]): number[] {
  const len = Math.hypot(v[0], v[1], v[2]) || 1;
  return v.map((x) => x / len);
}

/** Solves the 3×3 system m·x = b by Cramer's rule. */
function solve3(m: number[], b: number[]): number[] {
  const det = (a: number[]): number => a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6]);
  const d = det(m) || 1e-300;
  return [0, 1, 2].map((col) => {
    const replaced = m.slice();
    for (let row = 0; row < 3; row++) replaced[3 * row + col] = b[row];
    return det(replaced) / d;
  });
}

/**
 * The mesh with its small flat holes closed, and how many were closed. The fills are found
 * first and the arrays written once at their final size: copying the whole mesh into JS arrays
 * and back took ~0.45 s of the mesh stage on an 830k-face mesh (synthetic smoke).
 */
export function fillSmallHoles(mesh: RawMesh, options: HoleOptions): { mesh: RawMesh; filled: number; fillFaces: number; creases: number } {
  const fills: Array<{ loop: number[]; centroid: number[] }> = [];
  let fillFaces = 0;
  let creases = 0;
  for (const loop of boundaryLoops(mesh.indices, mesh.positions)) {
    if (loop.length > options.maxEdges) continue;
    const shape = loopShape(mesh.positions, loop);
    const deviation = shape.flatness * shape.radius;
    let centre: number[] | null = shape.centroid;
    if (!(shape.flatness <= options.maxFlatness || deviation <= (options.maxDeviation ?? 0))) {
      centre = options.creases && shape.radius <= options.creases.maxRadius ? creaseCentre(mesh.positions, loop, shape.centroid, options.creases) : null;
      if (!centre) continue;
      creases++;
    }
    fills.push({ loop, centroid: centre });
    fillFaces += loop.length;
  }
  if (fills.length === 0) return { mesh, filled: 0, fillFaces: 0, creases: 0 };
  const positions = new Float32Array(mesh.positions.length + 3 * fills.length);
  positions.set(mesh.positions);
  const indices = new Uint32Array(mesh.indices.length + 3 * fillFaces);
  indices.set(mesh.indices);
  let vertex = mesh.positions.length / 3;
  let at = mesh.indices.length;
  for (const { loop, centroid } of fills) {
    positions.set(centroid, 3 * vertex);
    // Boundary edge a→b runs along its face's winding; the fill face runs the other way.
    for (let i = 0; i < loop.length; i++) {
      indices[at++] = loop[(i + 1) % loop.length];
      indices[at++] = loop[i];
      indices[at++] = vertex;
    }
    vertex++;
  }
  return { mesh: { positions, indices }, filled: fills.length, fillFaces, creases };
}

/**
 * Where a bent loop is closed: the point of the line where two crossing planes meet nearest its
 * centroid, when each of its vertices lies within maxOffPlanes of one of the two, some nearer
 * each, and that point within maxRadius of the centroid; else null. The fan from that point lies
 * on the two planes, so the corner is closed square rather than cut across.
 */
function creaseCentre(positions: Float32Array, loop: number[], centroid: number[], creases: CreaseOptions): number[] | null {
  const { planes, maxOffPlanes, maxRadius } = creases;
  const off = (plane: CreaseOptions["planes"][number], v: number) => Math.abs(plane.normal[0]! * positions[3 * v] + plane.normal[1]! * positions[3 * v + 1] + plane.normal[2]! * positions[3 * v + 2] - plane.d);
  for (let a = 0; a < planes.length; a++) {
    for (let b = a + 1; b < planes.length; b++) {
      const A = planes[a]!, B = planes[b]!;
      const cosine = A.normal[0]! * B.normal[0]! + A.normal[1]! * B.normal[1]! + A.normal[2]! * B.normal[2]!;
      if (Math.abs(cosine) > CREASE_MAX_COSINE) continue;
      let nearA = 0, nearB = 0, within = true;
      for (const v of loop) {
        const da = off(A, v), db = off(B, v);
        if (Math.min(da, db) > maxOffPlanes) { within = false; break; }
        if (da < db) nearA++; else nearB++;
      }
      if (!within || nearA === 0 || nearB === 0) continue;
      // The point x = c − λa·nA − λb·nB on both planes: [1 k; k 1]·[λa λb] = [nA·c − dA, nB·c − dB].
      const ea = A.normal[0]! * centroid[0]! + A.normal[1]! * centroid[1]! + A.normal[2]! * centroid[2]! - A.d;
      const eb = B.normal[0]! * centroid[0]! + B.normal[1]! * centroid[1]! + B.normal[2]! * centroid[2]! - B.d;
      const det = 1 - cosine * cosine;
      const la = (ea - cosine * eb) / det, lb = (eb - cosine * ea) / det;
      const x = [0, 1, 2].map((k) => centroid[k]! - la * A.normal[k]! - lb * B.normal[k]!);
      if (Math.hypot(x[0]! - centroid[0]!, x[1]! - centroid[1]!, x[2]! - centroid[2]!) <= maxRadius) return x;
    }
  }
  return null;
}
