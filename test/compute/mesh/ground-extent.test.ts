/**
 * The ground's extent (compute/stages/mesh/ground-extent.ts): the convex hull of a point set is
 * its true hull whatever the order and with collinear and repeated points; a stray point far out
 * does not stretch the ground's hull, and the cameras' feet do.
 */
import { describe, expect, it } from "vitest";
import { convexHull, groundHull, insideHull } from "../../../compute/stages/mesh/ground-extent.js";
import { createRng } from "../../../compute/math/random.js";

describe("mesh/ground-extent", () => {
  it("finds the hull of shuffled points with collinear and repeated ones, counter-clockwise", () => {
    const rng = createRng(3);
    const pts: number[] = [0, 0, 4, 0, 4, 3, 0, 3, 2, 0, 4, 1.5, 0, 0, 2, 3];
    for (let i = 0; i < 200; i++) pts.push(0.01 + 3.98 * rng(), 0.01 + 2.98 * rng());
    // Shuffle pairs.
    const pairs = Array.from({ length: pts.length / 2 }, (_, i) => [pts[2 * i]!, pts[2 * i + 1]!]).sort(() => rng() - 0.5);
    const hull = convexHull(Float64Array.from(pairs.flat()));
    const corners = Array.from({ length: hull.length / 2 }, (_, i) => `${hull[2 * i]},${hull[2 * i + 1]}`).sort();
    expect(corners).toEqual(["0,0", "0,3", "4,0", "4,3"]);
    let area = 0;
    for (let k = 0; k < hull.length / 2; k++) {
      const n = (k + 1) % (hull.length / 2);
      area += hull[2 * k]! * hull[2 * n + 1]! - hull[2 * n]! * hull[2 * k + 1]!;
    }
    expect(area / 2).toBeCloseTo(12, 9);
    expect(insideHull(hull, 2, 1.5)).toBe(true);
    expect(insideHull(hull, 4, 1)).toBe(true);
    expect(insideHull(hull, 4.01, 1)).toBe(false);
    expect(insideHull(hull, -0.01, 2)).toBe(false);
    expect(insideHull(convexHull(Float64Array.from([0, 0, 1, 1])), 0.5, 0.5)).toBe(false);
  });

  it("leaves out a stray point and takes in the cameras' feet", () => {
    const rng = createRng(5);
    const ground: number[] = [];
    for (let i = 0; i < 2000; i++) ground.push(10 * rng(), 10 * rng());
    ground.push(40, 40);
    const hull = groundHull(Float64Array.from(ground), Float64Array.from([5, -6]), 1, 3);
    expect(insideHull(hull, 9.5, 9.5)).toBe(true);
    expect(insideHull(hull, 20, 20)).toBe(false);
    expect(insideHull(hull, 5, -5)).toBe(true);
    expect(insideHull(hull, 11, 5)).toBe(false);
  });
});
