/**
 * @module A height per region of the ground: after the photos' sweep has set one plane for the
 * whole ground (ground-sweep.ts), each tile of it is swept again in height alone, over the patches
 * that fall in it, and the ground's added points are raised or lowered by the tiles' heights,
 * interpolated bilinearly between the tiles' centres.
 *
 * Why: a courtyard or a street is rarely one plane. SceauxCastle's dense points fit two planes
 * 2.3° apart (3,187 and 10,124 points; the cameras 12 and 16–28 voxels above them), and which one
 * the fit takes depends on which ground points stereo keeps; near the photographers' feet, where
 * the held-back view loses most, they differ by several voxels (docs/decisions.md, "A narrower
 * window on planes that face the camera: tried, not kept"). A tile moves only for the same clear
 * gain the whole plane needs, and only inside the heights searched.
 */
import { flatSeenBy, patchScorer, type GroundPlane } from "./ground-sweep.js";
import type { GreyPhoto } from "./photo-texture.js";

export interface GroundRegionOptions {
  /** Tiles per side of the ground's extent, at most (square tiles over its longer side). */
  tilesPerSide: number;
  /** Fewest patches a tile needs to be swept. */
  minPatches: number;
  /** Most patches scored per tile (drawn evenly). */
  maxPatches: number;
  /** Heights tried: ± this many voxels in steps of `stepVoxels`. */
  offsetVoxels: number;
  stepVoxels: number;
  /** A tile moves only when its best height takes away this share of the disagreement (1 − mean NCC) its patches leave on the plane. */
  minGain: number;
  /**
   * And only when its patches' mean gain is this many standard errors above nought (the gains'
   * spread over the tile's patches, over the square root of their count): on a plain floor each
   * patch's NCC is mostly noise, and the best of 24 heights gains 5 % by chance on a few tiles
   * (docs/decisions.md, "A height per tile of the ground: an option, off by default").
   */
  minSignificance: number;
  /**
   * An added point this many voxels or more from the cloud takes its tile's height in full, a
   * nearer one in proportion: the cloud's own ground stays where it is, and the added ground
   * meets it without a step (0: every added point in full).
   */
  fadeVoxels: number;
}

export const GROUND_REGION_DEFAULTS: GroundRegionOptions = {
  tilesPerSide: 4,
  minPatches: 60,
  maxPatches: 600,
  offsetVoxels: 6,
  stepVoxels: 0.5,
  minGain: 0.05,
  minSignificance: 4,
  fadeVoxels: 8,
};

/** A patch of the ground: its place in the ground's (u, v) axes, its centre in the world and the views that see it. */
export interface GroundPatch {
  u: number;
  v: number;
  at: number[];
  seenBy: number[];
}

export interface GroundRegions {
  /** The height (along the plane's normal) to add at (u, v). */
  heightAt: (u: number, v: number) => number;
  /** `tilesNoise`: tiles whose best height passed the gain but not the significance. */
  report: { tilesSwept: number; tilesMoved: number; tilesNoise: number; largestMoveVoxels: number };
}

/**
 * Each tile's height over `plane` by the photos, from the patches inside it. `extent` is the
 * ground's box in its (u, v) axes.
 */
export function sweepRegions(plane: GroundPlane, patches: GroundPatch[], extent: { minU: number; maxU: number; minV: number; maxV: number }, photos: Array<GreyPhoto | null>, voxel: number, patchStep: number, patchSide: number, options: GroundRegionOptions = GROUND_REGION_DEFAULTS): GroundRegions {
  const side = Math.max(extent.maxU - extent.minU, extent.maxV - extent.minV) / options.tilesPerSide;
  if (!(side > 0)) return { heightAt: () => 0, report: { tilesSwept: 0, tilesMoved: 0, tilesNoise: 0, largestMoveVoxels: 0 } };
  const cols = Math.max(1, Math.ceil((extent.maxU - extent.minU) / side));
  const rows = Math.max(1, Math.ceil((extent.maxV - extent.minV) / side));
  const inTile: GroundPatch[][] = Array.from({ length: cols * rows }, () => []);
  for (const patch of patches) {
    const col = Math.min(cols - 1, Math.max(0, Math.floor((patch.u - extent.minU) / side)));
    const row = Math.min(rows - 1, Math.max(0, Math.floor((patch.v - extent.minV) / side)));
    inTile[row * cols + col]!.push(patch);
  }
  const heights = new Float64Array(cols * rows);
  const report = { tilesSwept: 0, tilesMoved: 0, tilesNoise: 0, largestMoveVoxels: 0 };
  const reach = { height: options.offsetVoxels * voxel, tiltTan: 0 };
  const steps = Math.round(options.offsetVoxels / options.stepVoxels);
  inTile.forEach((tile, t) => {
    const seen = tile.map((patch) => patch.seenBy.filter((view) => photos[view]));
    const usable = tile.filter((_, k) => seen[k]!.length >= 2);
    if (usable.length < options.minPatches) return;
    const every = Math.max(1, Math.ceil(usable.length / options.maxPatches));
    const chosen = usable.filter((_, k) => k % every === 0);
    const anchors = new Float32Array(3 * chosen.length);
    chosen.forEach((patch, k) => anchors.set(patch.at, 3 * k));
    const score = patchScorer(plane, reach, anchors, flatSeenBy(chosen.map((patch) => patch.seenBy.filter((view) => photos[view]))), photos, patchStep, patchSide);
    report.tilesSwept++;
    const start = score(plane);
    let best = { offset: 0, score: start };
    for (let s = -steps; s <= steps; s++) {
      if (s === 0) continue;
      const offset = s * options.stepVoxels * voxel;
      const candidate = score({ normal: plane.normal, d: plane.d + offset });
      if (candidate > best.score) best = { offset, score: candidate };
    }
    const onEdge = Math.abs(best.offset) >= options.offsetVoxels * voxel - 1e-9;
    const gain = 1 - best.score <= (1 - options.minGain) * (1 - start);
    if (best.offset === 0 || onEdge || !gain) return;
    const significance = gainSignificance(score, plane, best.offset, chosen.length);
    if (significance < options.minSignificance) {
      report.tilesNoise++;
      return;
    }
    heights[t] = best.offset;
    report.tilesMoved++;
    report.largestMoveVoxels = Math.max(report.largestMoveVoxels, Math.abs(best.offset) / voxel);
  });
  const heightAt = (u: number, v: number): number => {
    if (report.tilesMoved === 0) return 0;
    // Bilinear between the tiles' centres; beyond the outer centres the edge tiles' heights hold.
    const fu = Math.min(cols - 1, Math.max(0, (u - extent.minU) / side - 0.5));
    const fv = Math.min(rows - 1, Math.max(0, (v - extent.minV) / side - 0.5));
    const c0 = Math.floor(fu), r0 = Math.floor(fv);
    const c1 = Math.min(cols - 1, c0 + 1), r1 = Math.min(rows - 1, r0 + 1);
    const a = fu - c0, b = fv - r0;
    const h = (r: number, c: number) => heights[r * cols + c]!;
    return (1 - b) * ((1 - a) * h(r0, c0) + a * h(r0, c1)) + b * ((1 - a) * h(r1, c0) + a * h(r1, c1));
  };
  return { heightAt, report };
}

/**
 * How many standard errors the patches' mean gain from `plane` to `plane` moved by `offset` lies
 * above nought (a one-sample t statistic over the patches both score); 0 with fewer than two.
 */
function gainSignificance(score: (plane: GroundPlane, perPatch?: Float64Array) => number, plane: GroundPlane, offset: number, patches: number): number {
  const before = new Float64Array(patches);
  const after = new Float64Array(patches);
  score(plane, before);
  score({ normal: plane.normal, d: plane.d + offset }, after);
  let n = 0, sum = 0, sumSquares = 0;
  for (let k = 0; k < patches; k++) {
    const gain = after[k]! - before[k]!;
    if (Number.isNaN(gain)) continue;
    n++;
    sum += gain;
    sumSquares += gain * gain;
  }
  if (n < 2) return 0;
  const mean = sum / n;
  const variance = Math.max(0, (sumSquares - n * mean * mean) / (n - 1));
  return variance > 0 ? mean / Math.sqrt(variance / n) : mean > 0 ? Infinity : 0;
}
