/**
 * @module Per-view filtering of PatchMatch depth maps: a photometric cost threshold, then
 * geometric consistency with the source views' depth maps (forward–backward reprojection, as in
 * Schönberger et al., ECCV 2016 §4.3 and Galliani et al., ICCV 2015 §3.3 fusion checks).
 */
import { nativeFusion } from "./native-fusion.js";
import type { DenseView } from "./views.js";
import { relativePose } from "./views.js";

export interface FilterOptions {
  /** Highest aggregated cost (1 − NCC) kept. */
  maxCost: number;
  /** Forward–backward reprojection error in pixels. */
  maxReprojectionPx: number;
  /** Relative depth disagreement, e.g. 0.01 = 1 %. */
  maxRelativeDepthError: number;
  /** Fewest source views that must agree. */
  minConsistentViews: number;
  /** Fewest for a pixel kept on its prior's word (costFilter's onPrior). */
  priorConsistentViews?: number;
}

/** Pixels kept on their planar prior's word: a higher cost allowed, more agreeing views needed. */
export interface PriorKeep {
  agrees: Uint8Array;
  maxPriorCost: number;
}

/**
 * Zero the depth of pixels whose cost exceeds maxCost (in place), except those whose plane agrees
 * with their planar prior, kept up to maxPriorCost. Returns how many remain, and the pixels kept
 * only on their prior's word (1), which the geometric filter holds to a stricter count.
 */
export function costFilter(depth: Float32Array, cost: Float32Array, maxCost: number, prior?: PriorKeep): { kept: number; onPrior: Uint8Array | null } {
  let kept = 0;
  const onPrior = prior ? new Uint8Array(depth.length) : null;
  for (let p = 0; p < depth.length; p++) {
    if (!(depth[p] > 0)) continue;
    if (cost[p] <= maxCost) kept++;
    else if (prior && prior.agrees[p] && cost[p] <= prior.maxPriorCost) {
      kept++;
      onPrior![p] = 1;
    } else depth[p] = 0;
  }
  return { kept, onPrior };
}

/**
 * A new depth map for `ref` keeping only pixels whose 3-D point, projected into at least
 * minConsistentViews of `sources`, lands on a depth that back-projects to within
 * maxReprojectionPx of the pixel and agrees in depth.
 */
export function geometricFilter(ref: DenseView, refDepth: Float32Array, sources: Array<{ view: DenseView; depth: Float32Array }>, options: FilterOptions, onPrior: Uint8Array | null = null): Float32Array {
  const addon = nativeFusion();
  if (!addon) return geometricFilterTypeScript(ref, refDepth, sources, options, onPrior);
  // Each source as the addon reads it (native/fusion.c): srcFromRef R, t, then its intrinsics and size.
  const cameras = new Float64Array(17 * sources.length);
  sources.forEach((source, j) => {
    const { R, t } = relativePose(ref, source.view);
    const s = source.view;
    cameras.set(R.subarray(0, 9), 17 * j);
    cameras.set(t.subarray(0, 3), 17 * j + 9);
    cameras.set([s.focal, s.cx, s.cy, s.width, s.height], 17 * j + 12);
  });
  return addon.geometricFilter(
    refDepth, ref.width, ref.height, ref.focal, ref.cx, ref.cy, sources.map((s) => s.depth), cameras,
    options.maxReprojectionPx ** 2, options.maxRelativeDepthError, options.minConsistentViews, options.priorConsistentViews ?? options.minConsistentViews, onPrior,
  );
}

/** geometricFilter in TypeScript: where the addon is not built, and the reference it is tested against. */
export function geometricFilterTypeScript(ref: DenseView, refDepth: Float32Array, sources: Array<{ view: DenseView; depth: Float32Array }>, options: FilterOptions, onPrior: Uint8Array | null = null): Float32Array {
  const out = new Float32Array(refDepth.length);
  const poses = sources.map((s) => relativePose(ref, s.view));
  const { width, height, focal, cx, cy } = ref;
  const maxErr2 = options.maxReprojectionPx ** 2;
  for (let row = 0; row < height; row++) {
    for (let col = 0; col < width; col++) {
      const p = row * width + col;
      const d = refDepth[p];
      if (!(d > 0)) continue;
      const X = [(d * (col + 0.5 - cx)) / focal, (d * (row + 0.5 - cy)) / focal, d];
      const needed = onPrior?.[p] ? (options.priorConsistentViews ?? options.minConsistentViews) : options.minConsistentViews;
      let agree = 0;
      for (let j = 0; j < sources.length && agree < needed; j++) {
        if (consistentIn(X, col + 0.5, row + 0.5, ref, sources[j], poses[j], maxErr2, options.maxRelativeDepthError)) agree++;
      }
      if (agree >= needed) out[p] = d;
    }
  }
  return out;
}

function consistentIn(X: number[], u: number, v: number, ref: DenseView, src: { view: DenseView; depth: Float32Array }, pose: { R: Float64Array; t: Float64Array }, maxErr2: number, maxRel: number): boolean {
  const { R, t } = pose;
  const s = src.view;
  const xs = R[0] * X[0] + R[1] * X[1] + R[2] * X[2] + t[0];
  const ys = R[3] * X[0] + R[4] * X[1] + R[5] * X[2] + t[1];
  const zs = R[6] * X[0] + R[7] * X[1] + R[8] * X[2] + t[2];
  if (!(zs > 0)) return false;
  const col = Math.floor((s.focal * xs) / zs + s.cx);
  const row = Math.floor((s.focal * ys) / zs + s.cy);
  if (col < 0 || row < 0 || col >= s.width || row >= s.height) return false;
  const ds = src.depth[row * s.width + col];
  if (!(ds > 0)) return false;
  // Back-project the source pixel at its own depth and map it into the reference: x_ref = Rᵀ(x_src − t).
  const bx = (ds * (col + 0.5 - s.cx)) / s.focal - t[0];
  const by = (ds * (row + 0.5 - s.cy)) / s.focal - t[1];
  const bz = ds - t[2];
  const xr = R[0] * bx + R[3] * by + R[6] * bz;
  const yr = R[1] * bx + R[4] * by + R[7] * bz;
  const zr = R[2] * bx + R[5] * by + R[8] * bz;
  if (!(zr > 0)) return false;
  const du = (ref.focal * xr) / zr + ref.cx - u;
  const dv = (ref.focal * yr) / zr + ref.cy - v;
  return du * du + dv * dv <= maxErr2 && Math.abs(zr - X[2]) <= maxRel * X[2];
}
