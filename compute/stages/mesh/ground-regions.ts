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
  report: { tilesSwept: number; tilesMoved: number; largestMoveVoxels: number };
}

/**
 * Each tile's height over `plane` by the photos, from the patches inside it. `extent` is the
 * ground's box in its (u, v) axes.
 */
export function sweepRegions(plane: GroundPlane, patches: GroundPatch[], extent: { minU: number; maxU: number; minV: number; maxV: number }, photos: Array<GreyPhoto | null>, voxel: number, patchStep: number, patchSide: number, options: GroundRegionOptions = GROUND_REGION_DEFAULTS): GroundRegions {
  const side = Math.max(extent.maxU - extent.minU, extent.maxV - extent.minV) / options.tilesPerSide;
  if (!(side > 0)) return { heightAt: () => 0, report: { tilesSwept: 0, tilesMoved: 0, largestMoveVoxels: 0 } };
  const cols = Math.max(1, Math.ceil((extent.maxU - extent.minU) / side));
  const rows = Math.max(1, Math.ceil((extent.maxV - extent.minV) / side));
  const inTile: GroundPatch[][] = Array.from({ length: cols * rows }, () => []);
  for (const patch of patches) {
    const col = Math.min(cols - 1, Math.max(0, Math.floor((patch.u - extent.minU) / side)));
    const row = Math.min(rows - 1, Math.max(0, Math.floor((patch.v - extent.minV) / side)));
    inTile[row * cols + col]!.push(patch);
  }
  const heights = new Float64Array(cols * rows);
  const report = { tilesSwept: 0, tilesMoved: 0, largestMoveVoxels: 0 };
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
