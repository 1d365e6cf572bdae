/**
 * A height per tile of the ground (compute/stages/mesh/ground-regions.ts): three cameras at eye
 * height photograph a textured ground whose right half (x > 0) is a terrace 3 voxels higher than
 * its left half; the plane the whole ground was given is the left half's. The right tiles must be
 * raised by the terrace's height and the left ones left alone, and on a plain floor no tile moves,
 * even where chance lets a height pass the gain: its patches' gains are within their noise.
 */
import { describe, expect, it } from "vitest";
import { GROUND_REGION_DEFAULTS, sweepRegions, type GroundPatch } from "../../../compute/stages/mesh/ground-regions.js";
import { GROUND_SWEEP_DEFAULTS } from "../../../compute/stages/mesh/ground-sweep.js";
import type { GreyPhoto } from "../../../compute/stages/mesh/photo-texture.js";
import { eyeLevelPhoto } from "./fixtures.js";

const VOXEL = 0.02;
const EYE = 1.6;
const TERRACE = 3 * VOXEL;

function gravel(x: number, z: number): number {
  return 128 + 45 * Math.sin(9 * x) * Math.cos(7 * z) + 30 * Math.sin(31 * x + 17 * z) + 20 * Math.cos(53 * x - 41 * z);
}

/** A plain floor with a little sensor noise (a hash of the pixel, so the test repeats). */
function plain(row: number, col: number, seed: number): number {
  const h = Math.sin(row * 12.9898 + col * 78.233 + seed * 37.719) * 43758.5453;
  return 150 + 12 * (h - Math.floor(h) - 0.5);
}

/** The ground's height at x: the terrace on the right. */
function heightAt(x: number): number {
  return x > 0 ? TERRACE : 0;
}

/** A camera at (x, EYE, 0) looking along +z, pitched down 12°; its photo ray cast onto the two terraces. */
function photographed(x: number, textured: boolean): GreyPhoto {
  return eyeLevelPhoto(x, EYE, 12, (centre, ray, row, col) => {
    if (ray[1] >= -1e-6) return undefined; // sky
    // The terrace first (it is nearer along every ray that reaches it), then the lower half.
    let s = (TERRACE - EYE) / ray[1];
    if (heightAt(centre[0] + s * ray[0]) !== TERRACE) s = -EYE / ray[1];
    return textured ? gravel(centre[0] + s * ray[0], centre[2] + s * ray[2]) : plain(row, col, x);
  });
}

/** Patches every 0.1 over x ∈ [−1, 1], z ∈ [4, 6] on the plane y = 0, seen by all three photos; (u, v) = (x, z). */
function patches(): GroundPatch[] {
  const out: GroundPatch[] = [];
  for (let x = -0.95; x <= 0.95 + 1e-9; x += 0.1) for (let z = 4.05; z <= 5.95 + 1e-9; z += 0.1) out.push({ u: x, v: z, at: [x, 0, z], seenBy: [0, 1, 2] });
  return out;
}

const plane = { normal: [0, 1, 0] as [number, number, number], d: 0 };
const extent = { minU: -1, maxU: 1, minV: 4, maxV: 6 };
const step = GROUND_SWEEP_DEFAULTS.patchStepVoxels * VOXEL;
const side = GROUND_SWEEP_DEFAULTS.patchSide;
const options = { ...GROUND_REGION_DEFAULTS, tilesPerSide: 2, minPatches: 40 };

describe("mesh/ground-regions", () => {
  it("raises the tiles on a terrace 3 voxels up and leaves the others on the plane", () => {
    const photos = [-0.6, 0, 0.6].map((x) => photographed(x, true));
    const { heightAt: lift, report } = sweepRegions(plane, patches(), extent, photos, VOXEL, step, side, options);
    expect(report.tilesSwept).toBe(4);
    expect(report.tilesMoved).toBe(2);
    // At the right tiles' centres (x 0.5) the terrace's height, at the left ones' (x −0.5) none.
    for (const z of [4.5, 5.5]) {
      expect(Math.abs(lift(0.5, z) - TERRACE) / VOXEL).toBeLessThanOrEqual(0.5);
      expect(lift(-0.5, z)).toBe(0);
    }
    // Between the centres the height runs from one to the other.
    expect(lift(0, 5)).toBeCloseTo(lift(0.5, 5) / 2, 9);
  });

  it("moves no tile on a plain floor", () => {
    const photos = [-0.6, 0, 0.6].map((x) => photographed(x, false));
    const { heightAt: lift, report } = sweepRegions(plane, patches(), extent, photos, VOXEL, step, side, options);
    expect(report.tilesMoved).toBe(0);
    expect(lift(0.5, 5)).toBe(0);
  });

  it("holds as noise a plain floor's best heights that pass the gain by chance", () => {
    const photos = [-0.6, 0, 0.6].map((x) => photographed(x, false));
    // With no gain asked every tile's best height (of 24, on sensor noise) would pass, and does without the significance.
    const loose = sweepRegions(plane, patches(), extent, photos, VOXEL, step, side, { ...options, minGain: 0, minSignificance: 0 });
    expect(loose.report.tilesMoved).toBeGreaterThan(0);
    const { report } = sweepRegions(plane, patches(), extent, photos, VOXEL, step, side, { ...options, minGain: 0 });
    expect(report.tilesMoved).toBe(0);
    expect(report.tilesNoise).toBe(loose.report.tilesMoved);
  });
});
