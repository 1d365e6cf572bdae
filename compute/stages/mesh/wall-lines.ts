/**
 * @module Lines in the ground's plane along which points stand: the footprints of walls.
 *
 * A wall standing on the ground projects onto the ground as a line, whatever of it stereo has
 * found: a plain wall in shade may give nothing but its top edge against the sky, and that edge
 * still projects onto the line of its foot. Finding walls as lines in the points' projection on
 * the floor is how floor plans are drawn from scans (Okorn, Xiong, Akinci & Huber, "Toward
 * automated modeling of floor plans", 3DPVT 2010, with a Hough transform); here the lines are
 * found by sequential RANSAC (Fischler & Bolles 1981) on the projected points, each line's
 * inliers then split into runs where they leave gaps wider than `maxGap`.
 */
import { createRng, randomInt } from "../../math/random.js";

export interface WallLineOptions {
  /** Lines sought, at most. */
  maxLines: number;
  /** A run must hold at least this many points… */
  minPoints: number;
  /** …and be at least this long (world units). */
  minLength: number;
  /** Largest distance of an inlier from the line (world units). */
  inlierDistance: number;
  /** Gaps along a line wider than this split it into runs (world units). */
  maxGap: number;
  /** RANSAC hypotheses per line. */
  iterations: number;
  /** Points the hypotheses are scored on, at most. */
  sampleSize: number;
}

/** A run of points along a line of the plane: p(t) = origin + t · direction for t in [from, to]. */
export interface WallRun {
  origin: [number, number];
  direction: [number, number];
  from: number;
  to: number;
  /** Indices (into the projected points) of its inliers. */
  inliers: Uint32Array;
}

/**
 * The runs of points along lines, best line first. `uv` holds the points' plane coordinates
 * as pairs; the inliers of a line leave the pool before the next is sought, runs too short or
 * too sparse included.
 */
export function findWallRuns(uv: Float64Array, options: WallLineOptions, seed = 1): WallRun[] {
  const count = uv.length / 2;
  const rng = createRng(seed);
  const taken = new Uint8Array(count);
  const runs: WallRun[] = [];
  for (let line = 0; line < options.maxLines; line++) {
    const pool = freeIndices(taken, options.sampleSize, rng);
    if (pool.length < options.minPoints) break;
    const best = bestLine(uv, pool, options, rng);
    if (!best) break;
    const inliers = lineInliers(uv, taken, best, options.inlierDistance);
    if (inliers.length < options.minPoints) break;
    const fitted = fitLine(uv, inliers);
    const members = lineInliers(uv, taken, fitted, options.inlierDistance);
    // The hypothesis' own inliers leave the pool too, so that the next search moves on.
    for (const i of inliers) taken[i] = 1;
    for (const i of members) taken[i] = 1;
    runs.push(...splitRuns(uv, members, fitted, options));
  }
  return runs;
}

interface Line {
  origin: [number, number];
  direction: [number, number];
}

/** Up to `size` free indices, drawn evenly with a random start. */
function freeIndices(taken: Uint8Array, size: number, rng: () => number): Uint32Array {
  let free = 0;
  for (const t of taken) free += 1 - t;
  const step = Math.max(1, free / size);
  const out: number[] = [];
  let next = rng() * step, seen = 0;
  for (let i = 0; i < taken.length; i++) {
    if (taken[i]) continue;
    if (seen >= next) {
      out.push(i);
      next += step;
    }
    seen++;
  }
  return Uint32Array.from(out);
}

/** The hypothesis through two pooled points with the most pooled inliers. */
function bestLine(uv: Float64Array, pool: Uint32Array, options: WallLineOptions, rng: () => number): Line | null {
  let best: Line | null = null, bestCount = 0;
  for (let iteration = 0; iteration < options.iterations; iteration++) {
    const a = pool[randomInt(rng, pool.length)]!, b = pool[randomInt(rng, pool.length)]!;
    const dx = uv[2 * b]! - uv[2 * a]!, dy = uv[2 * b + 1]! - uv[2 * a + 1]!;
    const length = Math.hypot(dx, dy);
    if (length < 4 * options.inlierDistance) continue;
    const nx = -dy / length, ny = dx / length, c = nx * uv[2 * a]! + ny * uv[2 * a + 1]!;
    let inliers = 0;
    for (const i of pool) if (Math.abs(nx * uv[2 * i]! + ny * uv[2 * i + 1]! - c) <= options.inlierDistance) inliers++;
    if (inliers > bestCount) {
      bestCount = inliers;
      best = { origin: [uv[2 * a]!, uv[2 * a + 1]!], direction: [dx / length, dy / length] };
    }
  }
  return best;
}

function lineInliers(uv: Float64Array, taken: Uint8Array, line: Line, distance: number): Uint32Array {
  const nx = -line.direction[1], ny = line.direction[0];
  const c = nx * line.origin[0] + ny * line.origin[1];
  const out: number[] = [];
  for (let i = 0; i < taken.length; i++) if (!taken[i] && Math.abs(nx * uv[2 * i]! + ny * uv[2 * i + 1]! - c) <= distance) out.push(i);
  return Uint32Array.from(out);
}

/** The total-least-squares line of the points: through their mean along their main axis. */
function fitLine(uv: Float64Array, inliers: Uint32Array): Line {
  let mu = 0, mv = 0;
  for (const i of inliers) {
    mu += uv[2 * i]!;
    mv += uv[2 * i + 1]!;
  }
  mu /= inliers.length;
  mv /= inliers.length;
  let suu = 0, suv = 0, svv = 0;
  for (const i of inliers) {
    const du = uv[2 * i]! - mu, dv = uv[2 * i + 1]! - mv;
    suu += du * du;
    suv += du * dv;
    svv += dv * dv;
  }
  const angle = 0.5 * Math.atan2(2 * suv, suu - svv);
  return { origin: [mu, mv], direction: [Math.cos(angle), Math.sin(angle)] };
}

/** The inliers split where consecutive ones along the line are more than maxGap apart; runs too short or sparse dropped. */
function splitRuns(uv: Float64Array, inliers: Uint32Array, line: Line, options: WallLineOptions): WallRun[] {
  const along = (i: number) => (uv[2 * i]! - line.origin[0]) * line.direction[0] + (uv[2 * i + 1]! - line.origin[1]) * line.direction[1];
  const sorted = Array.from(inliers, (i) => ({ i, t: along(i) })).sort((a, b) => a.t - b.t);
  const runs: WallRun[] = [];
  let start = 0;
  for (let k = 1; k <= sorted.length; k++) {
    if (k < sorted.length && sorted[k]!.t - sorted[k - 1]!.t <= options.maxGap) continue;
    const from = sorted[start]!.t, to = sorted[k - 1]!.t;
    if (k - start >= options.minPoints && to - from >= options.minLength) {
      runs.push({ ...line, from, to, inliers: Uint32Array.from(sorted.slice(start, k), (s) => s.i) });
    }
    start = k;
  }
  return runs;
}
