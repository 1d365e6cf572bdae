/**
 * The plane search addon (compute/stages/mesh/native/planes.c) against planes.ts' TypeScript: the
 * same best hypothesis (the first of the most inliers, with ties, hypotheses not made and an early
 * stop), the same inliers of a whole cloud with points taken, NaN positions and NaN normals, and the
 * same free indices. findPlanes on two planes runs through the addon where it loads.
 */
import { describe, expect, it } from "vitest";
import { bestHypothesisIndexTypeScript, findPlanes, inliersOfTypeScript, type PlaneEq, type PlaneFitOptions } from "../../../compute/stages/mesh/planes.js";
import { nativePlanes } from "../../../compute/stages/mesh/native-planes.js";
import { createRng } from "../../../compute/math/random.js";
import { canBuildNative } from "../../support/native-build.js";

const OPTIONS: PlaneFitOptions = { maxPlanes: 4, minInlierShare: 0.05, inlierDistance: 0.02, minNormalCosine: 0.8, iterations: 200, sampleSize: 3000 };

/** A floor (y = 0, 3/5 of the points), a wall (z = 2, 1/5) and scattered points; with `withNaN`, one NaN coordinate and one NaN normal. */
function cloud(count: number, seed: number, withNaN = true): { positions: Float32Array; normals: Float32Array } {
  const rng = createRng(seed);
  const positions = new Float32Array(3 * count), normals = new Float32Array(3 * count);
  for (let i = 0; i < count; i++) {
    const kind = i % 5;
    const noise = () => (rng() - 0.5) * 0.03;
    const p = kind < 3 ? [rng() * 4 - 2, noise(), rng() * 4] : kind < 4 ? [rng() * 4 - 2, rng() * 3, 2 + noise()] : [rng() * 4 - 2, rng() * 3, rng() * 4];
    const n = kind < 3 ? [noise(), 1, noise()] : kind < 4 ? [noise(), noise(), -1] : [rng() - 0.5, rng() - 0.5, rng() - 0.5];
    positions.set(p, 3 * i);
    normals.set(n.map((x) => x / Math.hypot(...n)), 3 * i);
  }
  if (withNaN) {
    positions[3 * 7] = NaN;
    normals[3 * 11 + 1] = NaN;
  }
  return { positions, normals };
}

describe("mesh/native-planes", () => {
  const addon = nativePlanes();

  it("is built wherever the addons can be", () => {
    if (!canBuildNative()) return;
    expect(addon).not.toBeNull();
  });

  it("picks the TypeScript's hypothesis: the first of the most inliers", () => {
    if (!addon) return;
    const { positions, normals } = cloud(5000, 3);
    const rng = createRng(9);
    const random = (): PlaneEq => {
      const n = [rng() - 0.5, rng() - 0.5, rng() - 0.5];
      const length = Math.hypot(...n);
      return { normal: n.map((x) => x / length) as [number, number, number], d: rng() - 0.5 };
    };
    const floor: PlaneEq = { normal: [0, 1, 0], d: 0 };
    const wall: PlaneEq = { normal: [0, 0, -1], d: -2 };
    // Random planes (mostly stopped early), nulls, and the floor twice: the first of the two must win.
    const hypotheses: (PlaneEq | null)[] = [random(), null, random(), wall, random(), floor, null, random(), floor, wall];
    for (let k = 0; k < 60; k++) hypotheses.push(k % 7 === 0 ? null : random());
    const packed = new Float64Array(4 * hypotheses.length).fill(NaN);
    hypotheses.forEach((plane, h) => plane && packed.set([...plane.normal, plane.d], 4 * h));
    const expected = bestHypothesisIndexTypeScript(positions, normals, hypotheses, OPTIONS);
    expect(expected).toBe(5);
    expect(addon.bestHypothesis(positions, normals, packed, OPTIONS.inlierDistance, OPTIONS.minNormalCosine)).toBe(expected);
    // No hypothesis with an inlier: none (but a NaN point passes the distance test, in both).
    const far = Float64Array.of(0, 1, 0, 100);
    const clean = cloud(5000, 3, false);
    expect(addon.bestHypothesis(clean.positions, clean.normals, far, OPTIONS.inlierDistance, OPTIONS.minNormalCosine)).toBe(-1);
    expect(bestHypothesisIndexTypeScript(clean.positions, clean.normals, [{ normal: [0, 1, 0], d: 100 }], OPTIONS)).toBe(-1);
    expect(addon.bestHypothesis(positions, normals, far, OPTIONS.inlierDistance, OPTIONS.minNormalCosine)).toBe(0);
    expect(bestHypothesisIndexTypeScript(positions, normals, [{ normal: [0, 1, 0], d: 100 }], OPTIONS)).toBe(0);
  });

  it("finds the TypeScript's inliers and free points, taken points left out", () => {
    if (!addon) return;
    const count = 20_000;
    const { positions, normals } = cloud(count, 5);
    const taken = new Uint8Array(count);
    for (let i = 0; i < count; i += 3) taken[i] = 1;
    const out = new Uint32Array(count);
    for (const plane of [{ normal: [0, 1, 0], d: 0 }, { normal: [0, 0, -1], d: -2 }, { normal: [0.6, 0, 0.8], d: 1 }] as PlaneEq[]) {
      const expected = inliersOfTypeScript(positions, normals, taken, count - 5, plane, OPTIONS);
      const found = addon.inliersOf(positions, normals, taken, count - 5, Float64Array.of(...plane.normal, plane.d), OPTIONS.inlierDistance, OPTIONS.minNormalCosine, out);
      expect(found).toBeGreaterThan(0);
      expect(out.slice(0, found)).toEqual(expected);
    }
    const free = addon.freeIndices(taken, count, out);
    expect(free).toBe(count - Math.ceil(count / 3));
    expect(out.slice(0, free).every((i) => !taken[i])).toBe(true);
    expect(out[1]).toBe(2);
    expect(() => addon.inliersOf(positions, normals, taken, count + 1, Float64Array.of(0, 1, 0, 0), 0.1, 0.8, out)).toThrow(TypeError);
  });

  it("finds the floor and the wall through the addon", () => {
    const { positions, normals } = cloud(30_000, 7, false);
    const planes = findPlanes(positions, normals, 30_000, OPTIONS);
    expect(planes.length).toBeGreaterThanOrEqual(2);
    const normalsFound = planes.slice(0, 2).map((p) => p.normal.map((x) => Math.round(Math.abs(x))).join(","));
    expect(normalsFound.sort()).toEqual(["0,0,1", "0,1,0"]);
    expect(planes[0].normal.map((x) => Math.round(Math.abs(x)))).toEqual([0, 1, 0]);
    expect(planes[0].inliers.length).toBeGreaterThan(0.55 * 30_000);
  });
});
