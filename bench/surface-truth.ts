/**
 * @module Dense accuracy of a rendered capture (bench scale): the true surface the cameras see,
 * sampled by casting rays from every true camera through a grid of its pixels into the scene's
 * primitives (so only seen surface counts, as a laser scan of the visible scene would), and the
 * precision, completeness and F-score of a reconstructed cloud against it at a distance τ
 * (Knapitsch et al., "Tanks and Temples", SIGGRAPH 2017: precision is the share of
 * reconstructed points within τ of the truth, completeness the share of true points within τ
 * of the reconstruction, F their harmonic mean).
 */
import { KdTree } from "../compute/math/kdtree.js";
import { lookAt, type SceneDef } from "../test/support/render.js";

/** Hit points (3·n) of rays through every `stride`-th pixel centre of each camera at `width` × `height`. */
export function visibleSurfaceSamples(def: SceneDef, width: number, height: number, stride: number): Float64Array {
  const out: number[] = [];
  const normal = new Float64Array(3);
  const dir = new Float64Array(3);
  def.cameras.forEach((camera, index) => {
    const primitives = def.primitivesFor ? def.primitivesFor(index) : def.primitives;
    const focal = (camera.focal ?? 1.1) * width;
    const { R } = lookAt(camera.eye, camera.target);
    const origin = new Float64Array(camera.eye);
    for (let row = stride / 2; row < height; row += stride) {
      for (let col = stride / 2; col < width; col += stride) {
        const xc = (col - width / 2) / focal;
        const yc = (row - height / 2) / focal;
        for (let k = 0; k < 3; k++) dir[k] = R[k] * xc + R[3 + k] * yc + R[6 + k];
        let nearest = Infinity;
        for (const primitive of primitives) nearest = Math.min(nearest, primitive.intersect(origin, dir, nearest, normal));
        if (Number.isFinite(nearest)) out.push(origin[0] + nearest * dir[0], origin[1] + nearest * dir[1], origin[2] + nearest * dir[2]);
      }
    }
  });
  return Float64Array.from(out);
}

export interface SurfaceScore {
  tau: number;
  precision: number;
  completeness: number;
  fScore: number;
  reconstructedPoints: number;
  truthSamples: number;
}

/** Share of `queries` (3·n) within `tau` of a point of `tree`'s points. */
function shareWithin(queries: Float64Array, tree: KdTree, points: Float64Array, tau: number): number {
  const n = queries.length / 3;
  let within = 0;
  for (let i = 0; i < n; i++) {
    const x = queries[3 * i];
    const y = queries[3 * i + 1];
    const z = queries[3 * i + 2];
    const j = tree.nearest(x, y, z);
    if (Math.hypot(points[3 * j] - x, points[3 * j + 1] - y, points[3 * j + 2] - z) <= tau) within++;
  }
  return n > 0 ? within / n : 0;
}

/** Precision, completeness and F-score of `reconstructed` (3·n, in the truth's frame) against `truth` samples. */
export function surfaceScore(reconstructed: Float64Array, truth: Float64Array, tau: number): SurfaceScore {
  const precision = reconstructed.length > 0 ? shareWithin(reconstructed, new KdTree(truth), truth, tau) : 0;
  const completeness = reconstructed.length > 0 ? shareWithin(truth, new KdTree(reconstructed), reconstructed, tau) : 0;
  return {
    tau,
    precision,
    completeness,
    fScore: precision + completeness > 0 ? (2 * precision * completeness) / (precision + completeness) : 0,
    reconstructedPoints: reconstructed.length / 3,
    truthSamples: truth.length / 3,
  };
}

/** Positions (3·n) of the service's own binary PLY (compute/stages/export/ply.ts: x y z nx ny nz as float32, then r g b). */
export function readServicePly(bytes: Uint8Array): Float64Array {
  const marker = new TextEncoder().encode("end_header\n");
  let end = -1;
  for (let i = 0; i + marker.length <= Math.min(bytes.length, 4096) && end < 0; i++) {
    if (marker.every((b, k) => bytes[i + k] === b)) end = i + marker.length;
  }
  if (end < 0) throw new Error("surface-truth: no PLY header");
  const header = new TextDecoder().decode(bytes.subarray(0, end));
  const count = Number(/element vertex (\d+)/.exec(header)?.[1] ?? NaN);
  const record = 27;
  if (!Number.isFinite(count) || end + count * record > bytes.length) throw new Error("surface-truth: PLY is not the service's point cloud");
  const view = new DataView(bytes.buffer, bytes.byteOffset + end);
  const out = new Float64Array(3 * count);
  for (let i = 0; i < count; i++) for (let a = 0; a < 3; a++) out[3 * i + a] = view.getFloat32(i * record + 4 * a, true);
  return out;
}
