/**
 * The dominant planes of a cloud (compute/stages/mesh/planes.ts) must not depend on the seed: a
 * facade holding most of the points, a floor of 4 % in front of it, a side wall and clutter.
 * Hypotheses through three random points found such a floor in some seeds and not in others.
 */
import { describe, expect, it } from "vitest";
import { findPlanes, type PlaneFitOptions } from "../../../compute/stages/mesh/planes.js";
import { createRng } from "../../../compute/math/random.js";

const OPTIONS: PlaneFitOptions = { maxPlanes: 6, minInlierShare: 0.03, minNormalCosine: 0.8, inlierDistance: 0.01, iterations: 400, sampleSize: 20_000 };

/** Noisy points on three planes (facade z = 0, floor y = -1, side wall x = 2) and clutter with random normals. */
function scene(seed: number) {
  const rng = createRng(seed);
  const noise = () => (rng() - 0.5) * 0.008;
  const positions: number[] = [];
  const normals: number[] = [];
  const add = (p: number[], n: number[]) => {
    positions.push(...p);
    const tilt = [n[0]! + (rng() - 0.5) * 0.1, n[1]! + (rng() - 0.5) * 0.1, n[2]! + (rng() - 0.5) * 0.1];
    const len = Math.hypot(tilt[0]!, tilt[1]!, tilt[2]!);
    normals.push(...tilt.map((x) => x / len));
  };
  for (let k = 0; k < 60_000; k++) add([4 * rng() - 2, 2 * rng() - 1, noise()], [0, 0, 1]);
  for (let k = 0; k < 3_600; k++) add([4 * rng() - 2, -1 + noise(), 3 * rng()], [0, 1, 0]);
  for (let k = 0; k < 12_000; k++) add([2 + noise(), 2 * rng() - 1, 3 * rng()], [1, 0, 0]);
  for (let k = 0; k < 14_400; k++) add([4 * rng() - 2, 2 * rng() - 1, 3 * rng()], [rng() - 0.5, rng() - 0.5, rng() - 0.5]);
  return { positions: new Float32Array(positions), normals: new Float32Array(normals), count: positions.length / 3 };
}

describe("findPlanes", () => {
  const cloud = scene(3);
  const floorShare = 3_600 / cloud.count;

  it("finds the facade, the side wall and a 4 % floor whatever the seed", () => {
    expect(floorShare).toBeGreaterThan(OPTIONS.minInlierShare);
    for (let seed = 1; seed <= 8; seed++) {
      const planes = findPlanes(cloud.positions, cloud.normals, cloud.count, OPTIONS, seed);
      const along = (axis: number) => planes.find((p) => Math.abs(p.normal[axis]!) > 0.99);
      expect(along(2)?.inliers.length, `facade, seed ${seed}`).toBeGreaterThan(55_000);
      expect(Math.abs(along(0)!.d - 2 * Math.sign(along(0)!.normal[0])), `side wall, seed ${seed}`).toBeLessThan(0.005);
      const floor = along(1);
      expect(floor, `floor, seed ${seed}`).toBeDefined();
      expect(floor!.inliers.length).toBeGreaterThan(3_000);
      expect(Math.abs(floor!.d + Math.sign(floor!.normal[1]))).toBeLessThan(0.005);
    }
  });
});
