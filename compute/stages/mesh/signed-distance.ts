/**
 * @module Signed distance to the surface of oriented points, sampled on a sparse lattice.
 *
 * Hoppe et al., "Surface reconstruction from unorganized points" (SIGGRAPH 1992) take the
 * signed distance of x as its distance to the tangent plane of the nearest point,
 * n·(x − p). A single nearest plane is noisy and discontinuous where the nearest point
 * changes, so, as in the implicit moving-least-squares surfaces of Kolluri (SIGGRAPH 2005),
 * we average the tangent-plane distances of every point within a support radius R with
 * weights w = (1 − |x − p|²/R²)⁴, a polynomial bump close to a Gaussian of σ ≈ R/2 that,
 * unlike a truncated Gaussian, falls smoothly to zero at R (so f has no jumps where a point
 * enters the support) and costs no exp():
 *
 *     f(x) = Σ wᵢ nᵢ·(x − pᵢ) / Σ wᵢ        (> 0 outside, along the normals)
 *
 * The lattice only holds nodes within R of some point, so f is undefined away from the
 * data: no surface can be invented far from the points (no "balloon" closing open scenes,
 * unlike a global Poisson solve). The sum is scattered from the points onto the nodes
 * around them, which needs no neighbour search.
 */
import { BrickLattice, BRICK_NODES } from "./brick-lattice.js";
import type { TaskRunner } from "../../util/pool.js";

export interface SignedDistanceOptions {
  spacing: number;
  /** Support radius R in voxels. */
  supportVoxels: number;
  /** Use every `stride`-th point (points much denser than the lattice add little). */
  stride: number;
}

/**
 * The weighted sums of one part of the points, as a worker hands them back: the bricks'
 * coordinates in the order they were made, then Σw·f and Σw per node (BRICK_NODES per brick).
 */
export interface LatticeSums {
  bricks: number;
  ii: Int32Array;
  jj: Int32Array;
  kk: Int32Array;
  value: Float64Array;
  weight: Float64Array;
}

/** Half of the points' sums, on a worker (mesh/worker.ts). */
export interface SignedDistanceTask {
  positions: Float32Array;
  normals: Float32Array;
  count: number;
  origin: [number, number, number];
  options: SignedDistanceOptions;
}

/**
 * The signed distance of the points, in two halves summed apart and added (the first half's,
 * then the second's), so that `helper` (a worker) can sum the second half while this thread
 * sums the first: the mesh stage's longest single-threaded phase, halved. The halves are the
 * same whether a helper is given or not, so the lattice is the same to the bit on any machine.
 * `whileWaiting` runs here once this thread's half is summed, while the helper's is still out.
 */
export async function buildSignedDistance(positions: Float32Array, normals: Float32Array, count: number, options: SignedDistanceOptions, helper?: TaskRunner<SignedDistanceTask, LatticeSums>, whileWaiting?: () => void): Promise<BrickLattice> {
  const origin = latticeOrigin(positions, count, options);
  // The split falls on the stride, so the halves take exactly the points one pass would.
  const half = Math.ceil(Math.ceil(count / options.stride) / 2) * options.stride;
  const split = Math.min(count, half);
  // A worker gets copies of the second half (a view would send the whole buffer); here, views do.
  const part = (array: Float32Array) => (helper ? array.slice(3 * split, 3 * count) : array.subarray(3 * split, 3 * count));
  const second: SignedDistanceTask = {
    positions: part(positions),
    normals: part(normals),
    count: count - split,
    origin,
    options,
  };
  // Copied to the worker, not moved: a worker that fails (a thread the machine would not start)
  // costs time, not the job, and the second half is then summed here.
  const secondSums = helper ? helper.run(second).catch(() => null) : null;
  const lattice = scatterSums(positions, normals, split, origin, options);
  // The worker's half takes longer (its copy there, its sums packed and sent back): this thread
  // does the caller's other work meanwhile.
  if (secondSums) whileWaiting?.();
  const fromHelper = secondSums ? await secondSums : null;
  addSums(lattice, fromHelper ?? latticeSums(scatterSums(second.positions, second.normals, second.count, origin, options)));
  // Sums to weighted means.
  for (let n = 0; n < lattice.value.length; n++) if (lattice.weight[n] > 0) lattice.value[n] /= lattice.weight[n];
  return lattice;
}

/** Node (0, 0, 0): a margin of a few voxels below the points keeps every node index ≥ 0. */
function latticeOrigin(positions: Float32Array, count: number, options: SignedDistanceOptions): [number, number, number] {
  const h = options.spacing;
  const min = [Infinity, Infinity, Infinity];
  for (let i = 0; i < count; i++) for (let a = 0; a < 3; a++) min[a] = Math.min(min[a], positions[3 * i + a]);
  const pad = Math.ceil(options.supportVoxels) + 2;
  return [min[0] - pad * h, min[1] - pad * h, min[2] - pad * h];
}

/** Σ w·n·(x − p) and Σ w over the nodes within R of the first `count` points (every stride-th). */
export function scatterSums(positions: Float32Array, normals: Float32Array, count: number, origin: [number, number, number], options: SignedDistanceOptions): BrickLattice {
  const h = options.spacing;
  const radius = options.supportVoxels * h;
  const r2 = radius * radius;
  const invR2 = 1 / r2;
  const lattice = new BrickLattice(origin, h, Math.max(64, count >> 4));
  const [ox, oy, oz] = lattice.origin;
  for (let i = 0; i < count; i += options.stride) {
    let nx = normals[3 * i], ny = normals[3 * i + 1], nz = normals[3 * i + 2];
    const len = Math.hypot(nx, ny, nz);
    if (!(len > 0)) continue;
    nx /= len; ny /= len; nz /= len;
    const px = positions[3 * i], py = positions[3 * i + 1], pz = positions[3 * i + 2];
    const i0 = Math.ceil((px - radius - ox) / h), i1 = Math.floor((px + radius - ox) / h);
    const j0 = Math.ceil((py - radius - oy) / h), j1 = Math.floor((py + radius - oy) / h);
    const k0 = Math.ceil((pz - radius - oz) / h), k1 = Math.floor((pz + radius - oz) / h);
    for (let ni = i0; ni <= i1; ni++) {
      const dx = ox + ni * h - px;
      for (let nj = j0; nj <= j1; nj++) {
        const dy = oy + nj * h - py;
        const dxy2 = dx * dx + dy * dy;
        if (dxy2 > r2) continue;
        for (let nk = k0; nk <= k1; nk++) {
          const dz = oz + nk * h - pz;
          const d2 = dxy2 + dz * dz;
          if (d2 > r2) continue;
          const node = lattice.nodeOrCreate(ni, nj, nk);
          const falloff = 1 - d2 * invR2;
          const w2 = falloff * falloff;
          const w = w2 * w2;
          lattice.value[node] += w * (nx * dx + ny * dy + nz * dz);
          lattice.weight[node] += w;
        }
      }
    }
  }
  return lattice;
}

/** The lattice's sums in the form a worker posts (copies sized to its bricks). */
export function latticeSums(lattice: BrickLattice): LatticeSums {
  const bricks = lattice.brickCount;
  return {
    bricks,
    ii: lattice.bricks.ii.slice(0, bricks),
    jj: lattice.bricks.jj.slice(0, bricks),
    kk: lattice.bricks.kk.slice(0, bricks),
    value: lattice.value.slice(0, bricks * BRICK_NODES),
    weight: lattice.weight.slice(0, bricks * BRICK_NODES),
  };
}

/** Adds `sums` into `lattice`, brick by brick in the order they were made. */
export function addSums(lattice: BrickLattice, sums: LatticeSums): void {
  for (let b = 0; b < sums.bricks; b++) {
    const first = lattice.brickOrCreate(sums.ii[b], sums.jj[b], sums.kk[b]);
    const from = b * BRICK_NODES;
    for (let n = 0; n < BRICK_NODES; n++) {
      lattice.value[first + n] += sums.value[from + n];
      lattice.weight[first + n] += sums.weight[from + n];
    }
  }
}
