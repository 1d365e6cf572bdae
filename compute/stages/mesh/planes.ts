/**
 * @module The dominant planes of a dense cloud: sequential RANSAC (Fischler & Bolles 1981) on
 * a subsample, each plane refined by least squares on its inliers, whose points then leave the
 * pool before the next plane is sought.
 *
 * An inlier lies within `inlierDistance` of the plane and its normal within ~35° of the plane's,
 * so a plane never collects the points of a surface that only crosses it (the floor under a
 * wall's foot). Walls, floors, ground, table tops and roofs are what this finds; they are also
 * where dense stereo leaves holes (plane-completion.ts).
 */
import { symmetricEigen } from "../../math/decompositions.js";
import { createRng } from "../../math/random.js";
import { nativePlanes } from "./native-planes.js";

export interface PlaneFitOptions {
  /** Planes sought, at most. */
  maxPlanes: number;
  /** A plane must hold at least this share of the cloud's points. */
  minInlierShare: number;
  /** Largest distance of an inlier from the plane (world units). */
  inlierDistance: number;
  /** Smallest |cos| between an inlier's normal and the plane's. */
  minNormalCosine: number;
  /** RANSAC hypotheses per plane. */
  iterations: number;
  /** Points the hypotheses are scored on, at most. */
  sampleSize: number;
}

export interface Plane {
  /** Unit normal and offset: n·x = d on the plane. */
  normal: [number, number, number];
  d: number;
  /** Indices of its inliers in the whole cloud. */
  inliers: Uint32Array;
}

/** The planes, largest first. */
export function findPlanes(positions: Float32Array, normals: Float32Array, count: number, options: PlaneFitOptions, seed = 1): Plane[] {
  const rng = createRng(seed);
  const taken = new Uint8Array(count);
  const planes: Plane[] = [];
  const minInliers = Math.max(16, Math.ceil(options.minInlierShare * count));
  // The addon's passes write into one scratch array of the cloud's size.
  const addon = nativePlanes();
  const scratch = addon ? new Uint32Array(count) : null;
  const inliersOf = (plane: PlaneEq): Uint32Array =>
    addon && scratch
      ? scratch.slice(0, addon.inliersOf(positions, normals, taken, count, Float64Array.of(...plane.normal, plane.d), options.inlierDistance, options.minNormalCosine, scratch))
      : inliersOfTypeScript(positions, normals, taken, count, plane, options);
  for (let p = 0; p < options.maxPlanes; p++) {
    const pool = freeSample(taken, count, options.sampleSize, rng, scratch);
    if (pool.length < 3) break;
    const best = bestHypothesis(positions, normals, pool, options, rng);
    if (!best) break;
    let plane = refine(positions, inliersOf(best));
    const inliers = inliersOf(plane);
    if (inliers.length < minInliers) break;
    plane = refine(positions, inliers);
    for (const i of inliers) taken[i] = 1;
    planes.push({ ...plane, inliers });
  }
  return planes;
}

/** Up to `size` indices of points no plane has taken, drawn evenly (`scratch`: the addon's, of `count`). */
function freeSample(taken: Uint8Array, count: number, size: number, rng: () => number, scratch: Uint32Array | null): Uint32Array {
  const addon = nativePlanes();
  let freeCount = 0;
  let free: Uint32Array;
  if (addon && scratch) {
    freeCount = addon.freeIndices(taken, count, scratch);
    free = scratch;
  } else {
    for (let i = 0; i < count; i++) if (!taken[i]) freeCount++;
    free = new Uint32Array(freeCount);
    for (let i = 0, k = 0; i < count; i++) if (!taken[i]) free[k++] = i;
  }
  if (freeCount <= size) return free.slice(0, freeCount);
  const out = new Uint32Array(size);
  for (let k = 0; k < size; k++) out[k] = free[Math.floor(rng() * freeCount)]!;
  return out;
}

export type PlaneEq = { normal: [number, number, number]; d: number };

/**
 * The best of `iterations` hypotheses, alternately the plane through one pooled point with that
 * point's own normal and the plane through three pooled points. Three points drawn from the whole
 * cloud all lie on a plane of share s with probability s³: for a 3 % floor beside a facade, 400
 * triples found it in some runs and not in others, so which walls and floors a model got changed
 * with the seed (Herz-Jesus-P8's ground was found or lost as one point more or less in 573k
 * shifted the samples). A dense point's normal makes a one-point hypothesis (the use of normals
 * in Schnabel, Wahl & Klein, "Efficient RANSAC for point-cloud shape detection", 2007) that hits
 * a plane of share s with probability s. Triples stay for points whose normals are poor: on
 * SceauxCastle's ground, seen at 2–6°, one-point hypotheses alone gave a plane of 1,678 inliers
 * that the photos matched worse (sweep NCC 0.17) than the triples' 2,385 (0.27).
 */
function bestHypothesis(positions: Float32Array, normals: Float32Array, pool: Uint32Array, options: PlaneFitOptions, rng: () => number): PlaneEq | null {
  // The pool's points side by side: every hypothesis scans them all, in the same order.
  const n = pool.length;
  const poolPositions = new Float32Array(3 * n), poolNormals = new Float32Array(3 * n);
  for (let k = 0; k < n; k++) {
    for (let a = 0; a < 3; a++) {
      poolPositions[3 * k + a] = positions[3 * pool[k]! + a]!;
      poolNormals[3 * k + a] = normals[3 * pool[k]! + a]!;
    }
  }
  // Every hypothesis is drawn before any is scored: the draws do not depend on the scores.
  const draw = () => Math.floor(rng() * n);
  const hypotheses: (PlaneEq | null)[] = [];
  for (let it = 0; it < options.iterations; it++) hypotheses.push((it & 1) === 0 ? planeAt(poolPositions, poolNormals, draw()) : planeThrough(poolPositions, draw(), draw(), draw()));
  const index = bestHypothesisIndex(poolPositions, poolNormals, hypotheses, options);
  return index >= 0 ? hypotheses[index]! : null;
}

/** The first hypothesis with the most inliers among the pool's points (at least one), or -1: in the addon where it loads. */
function bestHypothesisIndex(poolPositions: Float32Array, poolNormals: Float32Array, hypotheses: (PlaneEq | null)[], options: PlaneFitOptions): number {
  const addon = nativePlanes();
  if (!addon) return bestHypothesisIndexTypeScript(poolPositions, poolNormals, hypotheses, options);
  const packed = new Float64Array(4 * hypotheses.length).fill(NaN);
  hypotheses.forEach((plane, h) => plane && packed.set([...plane.normal, plane.d], 4 * h));
  return addon.bestHypothesis(poolPositions, poolNormals, packed, options.inlierDistance, options.minNormalCosine);
}

export function bestHypothesisIndexTypeScript(poolPositions: Float32Array, poolNormals: Float32Array, hypotheses: (PlaneEq | null)[], options: PlaneFitOptions): number {
  let best = -1;
  let bestScore = 0;
  hypotheses.forEach((plane, h) => {
    if (!plane) return;
    const score = inlierCount(poolPositions, poolNormals, poolPositions.length / 3, plane, options, bestScore);
    if (score > bestScore) {
      bestScore = score;
      best = h;
    }
  });
  return best;
}

/** Points counted between the checks whether a hypothesis can still beat the best one. */
const COUNT_BLOCK = 2048;

/**
 * The inliers among the first `n` points (the test of inliersOf): the hypotheses' scoring is
 * most of findPlanes' time. A hypothesis stops being counted once even all the points left could
 * not lift it above `toBeat` (the best so far), and a count no higher than `toBeat` is returned:
 * only "higher than the best" is asked of it, so the planes found are the same.
 */
function inlierCount(positions: Float32Array, normals: Float32Array, n: number, plane: PlaneEq, options: PlaneFitOptions, toBeat: number): number {
  const [nx, ny, nz] = plane.normal;
  const { d } = plane;
  const { inlierDistance, minNormalCosine } = options;
  let count = 0;
  for (let blockStart = 0; blockStart < n; blockStart += COUNT_BLOCK) {
    const blockEnd = Math.min(n, blockStart + COUNT_BLOCK);
    for (let o = 3 * blockStart; o < 3 * blockEnd; o += 3) {
      if (Math.abs(nx * positions[o]! + ny * positions[o + 1]! + nz * positions[o + 2]! - d) > inlierDistance) continue;
      if (Math.abs(nx * normals[o]! + ny * normals[o + 1]! + nz * normals[o + 2]!) >= minNormalCosine) count++;
    }
    if (count + (n - blockEnd) <= toBeat) return count;
  }
  return count;
}

function planeThrough(positions: Float32Array, a: number, b: number, c: number): PlaneEq | null {
  const ab = [0, 1, 2].map((k) => positions[3 * b + k] - positions[3 * a + k]);
  const ac = [0, 1, 2].map((k) => positions[3 * c + k] - positions[3 * a + k]);
  const n: [number, number, number] = [ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2], ab[0] * ac[1] - ab[1] * ac[0]];
  const len = Math.hypot(n[0], n[1], n[2]);
  if (!(len > 1e-12)) return null;
  for (let k = 0; k < 3; k++) n[k] /= len;
  return { normal: n, d: n[0] * positions[3 * a] + n[1] * positions[3 * a + 1] + n[2] * positions[3 * a + 2] };
}

/** The plane through point a with a's normal; null without a normal. */
function planeAt(positions: Float32Array, normals: Float32Array, a: number): PlaneEq | null {
  const n: [number, number, number] = [normals[3 * a]!, normals[3 * a + 1]!, normals[3 * a + 2]!];
  const len = Math.hypot(n[0], n[1], n[2]);
  if (!(len > 1e-12)) return null;
  for (let k = 0; k < 3; k++) n[k] /= len;
  return { normal: n, d: n[0] * positions[3 * a] + n[1] * positions[3 * a + 1] + n[2] * positions[3 * a + 2] };
}

/** The inliers among the points no plane has taken: a whole-cloud pass, twice per plane. */
export function inliersOfTypeScript(positions: Float32Array, normals: Float32Array, taken: Uint8Array, count: number, plane: PlaneEq, options: PlaneFitOptions): Uint32Array {
  const [n0, n1, n2] = plane.normal;
  const { d } = plane;
  const { inlierDistance, minNormalCosine } = options;
  let out = new Uint32Array(1024);
  let found = 0;
  for (let i = 0; i < count; i++) {
    if (taken[i]) continue;
    const o = 3 * i;
    if (Math.abs(n0 * positions[o]! + n1 * positions[o + 1]! + n2 * positions[o + 2]! - d) > inlierDistance) continue;
    if (!(Math.abs(n0 * normals[o]! + n1 * normals[o + 1]! + n2 * normals[o + 2]!) >= minNormalCosine)) continue;
    if (found === out.length) {
      const grown = new Uint32Array(2 * out.length);
      grown.set(out);
      out = grown;
    }
    out[found++] = i;
  }
  return out.slice(0, found);
}

/** Least-squares plane of the points: through their centroid, normal along the covariance's least eigenvector. */
function refine(positions: Float32Array, indices: Uint32Array): PlaneEq {
  const count = indices.length;
  let c0 = 0, c1 = 0, c2 = 0;
  for (let k = 0; k < count; k++) {
    const o = 3 * indices[k]!;
    c0 += positions[o]! / count;
    c1 += positions[o + 1]! / count;
    c2 += positions[o + 2]! / count;
  }
  let xx = 0, xy = 0, xz = 0, yx = 0, yy = 0, yz = 0, zx = 0, zy = 0, zz = 0;
  for (let k = 0; k < count; k++) {
    const o = 3 * indices[k]!;
    const dx = positions[o]! - c0, dy = positions[o + 1]! - c1, dz = positions[o + 2]! - c2;
    xx += dx * dx; xy += dx * dy; xz += dx * dz;
    yx += dy * dx; yy += dy * dy; yz += dy * dz;
    zx += dz * dx; zy += dz * dy; zz += dz * dz;
  }
  const cov = Float64Array.of(xx, xy, xz, yx, yy, yz, zx, zy, zz);
  // The normal: the eigenvector of the least eigenvalue (column 0, values ascending).
  const { vectors } = symmetricEigen(cov, 3);
  const n: [number, number, number] = [vectors[0]!, vectors[3]!, vectors[6]!];
  return { normal: n, d: n[0] * c0 + n[1] * c1 + n[2] * c2 };
}
