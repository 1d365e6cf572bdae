/**
 * The dense bench's mesh scoring (bench/mesh-truth.ts): exact point-to-triangle distances, the
 * face grid's bounded nearest-face query, and samples spread over faces by area.
 */
import { describe, expect, it } from "vitest";
import { FaceGrid, pointTriangleDistance, samplesByArea } from "../../bench/mesh-truth.js";

/** Brute force: the closest of a fine barycentric grid of points on the triangle (never closer than the truth). */
function sampledDistance(p: number[], tri: Float64Array, steps = 200): number {
  let best = Infinity;
  for (let i = 0; i <= steps; i++) for (let j = 0; j <= steps - i; j++) {
    const u = i / steps, v = j / steps;
    const q = [0, 1, 2].map((k) => tri[k] + u * (tri[3 + k] - tri[k]) + v * (tri[6 + k] - tri[k]));
    best = Math.min(best, Math.hypot(q[0] - p[0], q[1] - p[1], q[2] - p[2]));
  }
  return best;
}

describe("bench/mesh-truth", () => {
  it("gives the exact distance to a triangle from every Voronoi region (faces, edges, corners)", () => {
    let state = 7;
    const random = () => ((state = (state * 1103515245 + 12345) >>> 0) / 4294967296) * 2 - 1;
    for (let trial = 0; trial < 300; trial++) {
      const tri = Float64Array.from({ length: 9 }, random);
      const p = [1.5 * random(), 1.5 * random(), 1.5 * random()];
      const exact = pointTriangleDistance(p, tri, 0, 1, 2);
      const sampled = sampledDistance(p, tri);
      // The sampled points are on the triangle: never closer than the exact closest point, and
      // within the grid's spacing of it.
      expect(exact).toBeLessThanOrEqual(sampled + 1e-12);
      expect(sampled - exact).toBeLessThan(0.02);
    }
    // Known cases on the unit right triangle in z = 0.
    const unit = Float64Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0);
    expect(pointTriangleDistance([0.2, 0.2, 0.5], unit, 0, 1, 2)).toBeCloseTo(0.5, 12);
    expect(pointTriangleDistance([-1, -1, 0], unit, 0, 1, 2)).toBeCloseTo(Math.SQRT2, 12);
    expect(pointTriangleDistance([1, 1, 0], unit, 0, 1, 2)).toBeCloseTo(Math.SQRT1_2, 12);
    expect(pointTriangleDistance([0.5, -2, 0], unit, 0, 1, 2)).toBeCloseTo(2, 12);
  });

  it("finds the nearest face within a bound, and none beyond it", () => {
    // A unit square of two triangles in z = 0, in a grid of cells smaller than the square.
    const positions = Float64Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0);
    const indices = Uint32Array.of(0, 1, 2, 1, 3, 2);
    const grid = new FaceGrid(positions, indices, 0.1);
    expect(grid.nearest([0.5, 0.5, 0.05], 0.1)).toBeCloseTo(0.05, 12);
    expect(grid.nearest([0.9, 0.9, -0.08], 0.1)).toBeCloseTo(0.08, 12);
    expect(grid.nearest([1.06, 0.5, 0], 0.1)).toBeCloseTo(0.06, 12);
    expect(grid.nearest([0.5, 0.5, 0.2], 0.1)).toBe(Infinity);
    expect(grid.nearest([3, 3, 0], 0.1)).toBe(Infinity);
  });

  it("spreads samples over the faces in proportion to their area, on the faces", () => {
    // Two triangles of areas 0.5 and 4.5 (the second three times the first's sides).
    const positions = Float64Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0, 10, 0, 0, 13, 0, 0, 10, 3, 0);
    const indices = Uint32Array.of(0, 1, 2, 3, 4, 5);
    const samples = samplesByArea(positions, indices, 10_000);
    expect(samples.length / 3).toBeGreaterThanOrEqual(9_999);
    let onSmall = 0;
    for (let s = 0; s < samples.length / 3; s++) {
      const [x, y, z] = [samples[3 * s], samples[3 * s + 1], samples[3 * s + 2]];
      expect(z).toBe(0);
      if (x < 5) {
        onSmall++;
        expect(x + y).toBeLessThanOrEqual(1 + 1e-9);
      } else expect(x - 10 + y).toBeLessThanOrEqual(3 + 1e-9);
    }
    expect(onSmall / (samples.length / 3)).toBeCloseTo(0.1, 2);
    // Seeded: the same points every time.
    expect(samplesByArea(positions, indices, 10_000)).toEqual(samples);
  });
});
