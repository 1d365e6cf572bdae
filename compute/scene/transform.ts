/**
 * @module Moving a reconstruction into another frame by a similarity: world' = scale · R · world
 * + translation. The pipeline uses it to put a georeferenced model into its coordinate system's
 * metres (compute/pipeline/georeference.ts) after the stages have worked in the model's own
 * frame; cameras stay rigid (their coordinates scale with the world, which leaves every
 * projection unchanged), normals only turn.
 */
import type { RigidTransform } from "./camera.js";
import type { Mesh, PointCloud, TexturedMesh } from "./dense-outputs.js";
import type { RegisteredView, SparsePoints } from "./reconstruction.js";

/** The shape of compute/geometry/similarity.ts's Similarity (scene/ imports nothing outside itself). */
export interface Similarity {
  /** Rotation, row-major 3×3. */
  R: Float64Array;
  s: number;
  t: Float64Array;
}

export const IDENTITY_ROTATION = new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]);

/** p' = scale·R·p + translation, for 3-vectors stored from `at` (in place). */
function mapPoint(s: Similarity, values: Float32Array | Float64Array, at: number): void {
  const { R, s: scale, t: translation } = s;
  const x = values[at];
  const y = values[at + 1];
  const z = values[at + 2];
  values[at] = scale * (R[0] * x + R[1] * y + R[2] * z) + translation[0];
  values[at + 1] = scale * (R[3] * x + R[4] * y + R[5] * z) + translation[1];
  values[at + 2] = scale * (R[6] * x + R[7] * y + R[8] * z) + translation[2];
}

function turnVector(R: Float64Array, values: Float32Array, at: number): void {
  const x = values[at];
  const y = values[at + 1];
  const z = values[at + 2];
  values[at] = R[0] * x + R[1] * y + R[2] * z;
  values[at + 1] = R[3] * x + R[4] * y + R[5] * z;
  values[at + 2] = R[6] * x + R[7] * y + R[8] * z;
}

/** Positions as a new array in the new frame. */
export function mapPositions<T extends Float32Array | Float64Array>(s: Similarity, positions: T): T {
  const out = positions.slice() as T;
  for (let at = 0; at < out.length; at += 3) mapPoint(s, out, at);
  return out;
}

function turnNormals(s: Similarity, normals: Float32Array): Float32Array {
  const out = normals.slice();
  for (let at = 0; at < out.length; at += 3) turnVector(s.R, out, at);
  return out;
}

/**
 * The camera in the new frame: with world = Rsᵀ(world' − b)/a, camera = R·world + t becomes
 * (R·Rsᵀ·world' − R·Rsᵀ·b)/a + t; scaled by a (projections are unchanged by a camera-frame
 * scale) that is R' = R·Rsᵀ, t' = a·t − R'·b.
 */
export function mapCamera(s: Similarity, camFromWorld: RigidTransform): RigidTransform {
  const { R, t } = camFromWorld;
  const Rs = s.R;
  const Rp = new Float64Array(9);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) Rp[3 * i + j] = R[3 * i] * Rs[3 * j] + R[3 * i + 1] * Rs[3 * j + 1] + R[3 * i + 2] * Rs[3 * j + 2];
  }
  const b = s.t;
  const tp = new Float64Array(3);
  for (let i = 0; i < 3; i++) tp[i] = s.s * t[i] - (Rp[3 * i] * b[0] + Rp[3 * i + 1] * b[1] + Rp[3 * i + 2] * b[2]);
  return { R: Rp, t: tp };
}

export function mapViews(s: Similarity, views: RegisteredView[]): RegisteredView[] {
  return views.map((v) => ({ ...v, camFromWorld: mapCamera(s, v.camFromWorld) }));
}

export function mapSparsePoints(s: Similarity, points: SparsePoints): SparsePoints {
  return { ...points, xyz: mapPositions(s, points.xyz) };
}

export function mapCloud(s: Similarity, cloud: PointCloud): PointCloud {
  return { ...cloud, positions: mapPositions(s, cloud.positions), normals: turnNormals(s, cloud.normals) };
}

/** The mesh in the new frame; a rotation with determinant −1 would turn faces inside out, so only rotations are allowed. */
export function mapMesh(s: Similarity, mesh: Mesh): Mesh {
  return { ...mesh, positions: mapPositions(s, mesh.positions), normals: turnNormals(s, mesh.normals) };
}

export function mapTexturedMesh(s: Similarity, textured: TexturedMesh): TexturedMesh {
  return { ...textured, mesh: mapMesh(s, textured.mesh) };
}

/** b ∘ a: first a, then b. */
export function composeSimilarities(a: Similarity, b: Similarity): Similarity {
  const R = new Float64Array(9);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) R[3 * i + j] = b.R[3 * i] * a.R[j] + b.R[3 * i + 1] * a.R[3 + j] + b.R[3 * i + 2] * a.R[6 + j];
  }
  const t = a.t.slice();
  mapPoint(b, t, 0);
  return { R, s: a.s * b.s, t };
}
