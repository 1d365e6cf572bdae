/**
 * Homography decomposition: for views of a plane with a known motion, one of the returned
 * candidates is the true (R, t/d, n), and every candidate puts the plane in front of camera 1.
 */
import { describe, expect, it } from "vitest";
import { decomposeHomography } from "../../../compute/geometry/decompose-homography.js";
import { angleAxisToMatrix, rotationAngleDeg } from "../../../compute/geometry/rotation.js";

function planeViews(R: Float64Array, t: number[], n: number[], d: number) {
  // Points on nᵀX = d in camera 1's frame, projected into both cameras.
  const x1: number[] = [];
  const x2: number[] = [];
  const nn = Math.hypot(...n);
  const normal = n.map((v) => v / nn);
  for (let i = 0; i < 60; i++) {
    const ray = [Math.sin(i * 1.7) * 0.4, Math.cos(i * 2.3) * 0.3, 1];
    const depth = d / (normal[0] * ray[0] + normal[1] * ray[1] + normal[2] * ray[2]);
    const X = ray.map((v) => v * depth);
    const X2 = [0, 1, 2].map((r) => R[3 * r] * X[0] + R[3 * r + 1] * X[1] + R[3 * r + 2] * X[2] + t[r]);
    x1.push(X[0] / X[2], X[1] / X[2]);
    x2.push(X2[0] / X2[2], X2[1] / X2[2]);
  }
  const H = new Float64Array(9);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) H[3 * r + c] = R[3 * r + c] + (t[r] * normal[c]) / d;
  return { H, x1: Float64Array.from(x1), x2: Float64Array.from(x2), normal };
}

describe("decomposeHomography", () => {
  for (const [label, aa, t, n] of [
    ["a wall seen from two places", [0.05, -0.3, 0.02], [0.8, 0.05, 0.1], [0.1, -0.2, 1]],
    ["a floor seen obliquely", [0.2, 0.1, -0.05], [-0.3, 0.2, 0.4], [0, -0.8, 0.6]],
  ] as const) {
    it(`recovers the true motion and normal among the candidates: ${label}`, () => {
      const R = angleAxisToMatrix(new Float64Array(aa));
      const d = 2.5;
      const { H, x1, x2, normal } = planeViews(R, [...t], [...n], d);
      const scaled = H.map((v) => v * -3.7); // any scale and sign
      const candidates = decomposeHomography(scaled, x1, x2, x1.length / 2);
      expect(candidates.length).toBe(2);
      const best = candidates.reduce((a, b) => (rotationAngleDeg(a.R, R) < rotationAngleDeg(b.R, R) ? a : b));
      expect(rotationAngleDeg(best.R, R)).toBeLessThan(1e-6);
      for (let k = 0; k < 3; k++) {
        expect(best.t[k]).toBeCloseTo(t[k] / d, 8);
        expect(best.n[k]).toBeCloseTo(normal[k], 8);
      }
      // The other candidate is a different motion that fits the same matches.
      const other = candidates.find((c) => c !== best)!;
      expect(rotationAngleDeg(other.R, R)).toBeGreaterThan(1);
    });
  }

  it("returns nothing for a pure rotation", () => {
    const R = angleAxisToMatrix(new Float64Array([0.1, 0.2, 0]));
    const { H, x1, x2 } = planeViews(R, [0, 0, 0], [0, 0, 1], 2);
    expect(decomposeHomography(H, x1, x2, x1.length / 2)).toEqual([]);
  });
});
