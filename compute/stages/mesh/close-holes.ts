/**
 * @module Closing large holes in flat surfaces that no camera sees through: the plain wall
 * between two textured ones, the floor between the objects on it, the still water of a basin.
 *
 * Dense stereo leaves holes wherever the photos show no texture to match (white plaster, an even
 * floor, a road at a grazing angle), and those are what a user sees first. The signed distance
 * cannot bridge them (it is defined only near the points; mesh/index.ts), so they are closed
 * afterwards, as an argued alternative inside the sparse lattice to the free-space graph cut of
 * Jancosek & Pajdla (CVPR 2011). A boundary loop is closed when all of these hold:
 * - it is long (short ones are fill-holes.ts's) but at most `maxEdges`, and nearly planar
 *   (`maxFlatness` of its radius);
 * - it is a hole *in* a surface: the faces along it lie in the loop's plane (their mean normal
 *   within `minAlignment` of the loop's normal) and the loop runs against their winding (a hole's
 *   border is traversed clockwise seen from the surface's outside, the surface's outer border
 *   counter-clockwise), so the border of an open facade or of the ground is never tented over;
 * - no camera sees through it (see-through.ts): at most `maxSeeThrough` of the observations of
 *   points sampled on the fill meet dense points well behind it. Doorways, windows and the
 *   space under a table show what is behind them and stay open; sky shows nothing and is no
 *   evidence, but sky is not enclosed by a flat surface on all sides.
 * The fill (plane-fill.ts) lies on the loop's plane with faces the size of the mesh's own, and is
 * textured from the photos like any other face.
 */
import type { RegisteredView } from "../../scene/index.js";
import { boundaryLoops, faceEdgeCounter, loopShape } from "./fill-holes.js";
import { cross3 } from "../../math/linalg.js";
import { fillPlanarLoop, planeAxes, type PlaneFrame } from "./plane-fill.js";
import { cloudDepthImages, seeThroughVote, type DepthImage } from "./see-through.js";
import type { RawMesh } from "./surface-nets.js";

export interface EnclosedHoleOptions {
  /** Loops up to this many edges are candidates (fill-holes.ts closed the short ones before). */
  maxEdges: number;
  /** Largest distance of a loop vertex from the loop's plane, as a fraction of its radius. */
  maxFlatness: number;
  /** Smallest |cos| between the loop's normal and the mean normal of the faces along it. */
  minAlignment: number;
  /** Largest share of the fill's observations that may see dense points behind it. */
  maxSeeThrough: number;
  /** Sample points on the fill tested against the cameras, at most. */
  maxSamples: number;
}

export interface EnclosedHoleCloud {
  positions: Float32Array;
  count: number;
  views: RegisteredView[];
}

export interface EnclosedHoleReport {
  closed: number;
  fillFaces: number;
  notFlat: number;
  notInSurface: number;
  seeThrough: number;
}

interface Candidate {
  loop: number[];
  frame: PlaneFrame;
}

/**
 * The mesh with its large, flat, enclosed holes closed; `step` is the lattice spacing (the fill's
 * grid step and the depth tolerance of the see-through test).
 */
export function closeEnclosedHoles(mesh: RawMesh, cloud: EnclosedHoleCloud, step: number, options: EnclosedHoleOptions): { mesh: RawMesh; report: EnclosedHoleReport } {
  const report: EnclosedHoleReport = { closed: 0, fillFaces: 0, notFlat: 0, notInSurface: 0, seeThrough: 0 };
  const candidates = candidateLoops(mesh, options, report);
  if (candidates.length === 0) return { mesh, report };
  let images: DepthImage[] | undefined;
  const positions: number[] = Array.from(mesh.positions);
  const indices: number[] = Array.from(mesh.indices);
  for (const { loop, frame } of candidates) {
    const loopXyz = new Float64Array(3 * loop.length);
    loop.forEach((vertex, i) => loopXyz.set(mesh.positions.subarray(3 * vertex, 3 * vertex + 3), 3 * i));
    const fill = fillPlanarLoop(loopXyz, frame, step);
    if (fill.triangles.length === 0) continue;
    images ??= cloudDepthImages(cloud.positions, cloud.count, cloud.views);
    const vote = seeThroughVote(samplesOf(fill.interior, loopXyz, options.maxSamples), images, 3 * step);
    if (vote.behind > options.maxSeeThrough * (vote.behind + vote.atOrFront)) {
      report.seeThrough++;
      continue;
    }
    const first = positions.length / 3;
    for (const value of fill.interior) positions.push(value);
    for (const corner of fill.triangles) indices.push(corner < loop.length ? loop[corner] : first + corner - loop.length);
    report.closed++;
    report.fillFaces += fill.triangles.length / 3;
  }
  if (report.closed === 0) return { mesh, report };
  return { mesh: { positions: new Float32Array(positions), indices: new Uint32Array(indices) }, report };
}

/** The loops that pass the size, flatness and in-a-surface tests, each with its plane frame (u × v along the surface's outside). */
function candidateLoops(mesh: RawMesh, options: EnclosedHoleOptions, report: EnclosedHoleReport): Candidate[] {
  const loops = boundaryLoops(mesh.indices, mesh.positions).filter((loop) => loop.length <= options.maxEdges);
  if (loops.length === 0) return [];
  const faceNormals = boundaryFaceNormals(mesh);
  const candidates: Candidate[] = [];
  for (const loop of loops) {
    const shape = loopShape(mesh.positions, loop);
    if (!(shape.flatness <= options.maxFlatness)) {
      report.notFlat++;
      continue;
    }
    const surface = [0, 0, 0];
    for (let i = 0; i < loop.length; i++) {
      const normal = faceNormals.get(edgeKey(loop[i], loop[(i + 1) % loop.length]));
      if (normal) for (let a = 0; a < 3; a++) surface[a] += normal[a];
    }
    const area = loopAreaVector(mesh.positions, loop);
    const surfaceLength = Math.hypot(surface[0], surface[1], surface[2]);
    const areaLength = Math.hypot(area[0], area[1], area[2]);
    const cosine = (surface[0] * area[0] + surface[1] * area[1] + surface[2] * area[2]) / (surfaceLength * areaLength || 1);
    // A hole's border runs clockwise seen from outside: its area vector points inward.
    if (!(-cosine >= options.minAlignment)) {
      report.notInSurface++;
      continue;
    }
    // The fill lies on the loop's own plane, facing the surface's outside.
    const side = Math.sign(shape.normal[0] * surface[0] + shape.normal[1] * surface[1] + shape.normal[2] * surface[2]) || 1;
    candidates.push({ loop, frame: { origin: shape.centroid, ...planeAxes(shape.normal.map((x) => x * side)) } });
  }
  return candidates;
}

/** Unnormalised normal (area-weighted) of the face along each boundary edge, by the edge's key. */
function boundaryFaceNormals(mesh: RawMesh): Map<number, number[]> {
  const { indices, positions } = mesh;
  const uses = faceEdgeCounter(indices, positions.length / 3);
  const normals = new Map<number, number[]>();
  for (let f = 0; f < indices.length; f += 3) {
    for (let k = 0; k < 3; k++) {
      if (uses(indices[f + k], indices[f + ((k + 1) % 3)]) !== 1) continue;
      const key = edgeKey(indices[f + k], indices[f + ((k + 1) % 3)]);
      const [a, b, c] = [indices[f], indices[f + 1], indices[f + 2]].map((i) => [positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]]);
      normals.set(key, Array.from(cross3([b[0] - a[0], b[1] - a[1], b[2] - a[2]], [c[0] - a[0], c[1] - a[1], c[2] - a[2]])));
    }
  }
  return normals;
}

/** ½ Σ pᵢ × pᵢ₊₁ over the loop: its normal follows the loop's winding (right-hand rule). */
function loopAreaVector(positions: Float32Array, loop: number[]): number[] {
  const sum = [0, 0, 0];
  // Relative to the first vertex: the same vector, without the rounding of large coordinates.
  const o = loop[0];
  const at = (v: number) => [positions[3 * v] - positions[3 * o], positions[3 * v + 1] - positions[3 * o + 1], positions[3 * v + 2] - positions[3 * o + 2]];
  for (let i = 0; i < loop.length; i++) {
    const c = cross3(at(loop[i]), at(loop[(i + 1) % loop.length]));
    for (let k = 0; k < 3; k++) sum[k] += c[k] / 2;
  }
  return sum;
}

/** Up to `max` sample points: the fill's interior points (evenly thinned), or the loop's own when it has none. */
function samplesOf(interior: Float64Array, loop: Float64Array, max: number): Float64Array {
  const source = interior.length > 0 ? interior : loop;
  const count = source.length / 3;
  const stride = Math.max(1, Math.ceil(count / max));
  const out = new Float64Array(3 * Math.ceil(count / stride));
  for (let i = 0, o = 0; i < count; i += stride, o++) out.set(source.subarray(3 * i, 3 * i + 3), 3 * o);
  return out;
}

function edgeKey(a: number, b: number): number {
  return a < b ? a * 4_294_967_296 + b : b * 4_294_967_296 + a;
}
