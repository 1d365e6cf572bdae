import { describe, expect, it } from "vitest";
import { adaptiveIterations, ransac } from "../../../compute/math/ransac.js";
import { createRng, gaussian } from "../../../compute/math/random.js";

/** A line a·x + b·y + c = 0 with a² + b² = 1. */
type Line = [number, number, number];

function lineThrough(points: Float64Array, i: number, j: number): Line | null {
  const dx = points[2 * j] - points[2 * i];
  const dy = points[2 * j + 1] - points[2 * i + 1];
  const len = Math.hypot(dx, dy);
  if (len === 0) return null;
  const a = -dy / len;
  const b = dx / len;
  return [a, b, -(a * points[2 * i] + b * points[2 * i + 1])];
}

function fitLineLeastSquares(points: Float64Array, indices: Uint32Array): Line {
  let mx = 0, my = 0;
  for (const i of indices) { mx += points[2 * i]; my += points[2 * i + 1]; }
  mx /= indices.length; my /= indices.length;
  let sxx = 0, sxy = 0, syy = 0;
  for (const i of indices) {
    const dx = points[2 * i] - mx, dy = points[2 * i + 1] - my;
    sxx += dx * dx; sxy += dx * dy; syy += dy * dy;
  }
  // Normal = eigenvector of the smaller eigenvalue of the 2×2 scatter matrix.
  const angle = 0.5 * Math.atan2(2 * sxy, sxx - syy) + Math.PI / 2;
  const a = Math.cos(angle), b = Math.sin(angle);
  return [a, b, -(a * mx + b * my)];
}

describe("math/ransac", () => {
  it("finds a line among 60% outliers, with LO refinement", () => {
    const rng = createRng(42);
    const count = 250;
    const points = new Float64Array(2 * count);
    const truth: Line = [Math.sin(0.3), -Math.cos(0.3), 2]; // y = tan(0.3)·x + 2/cos(0.3)
    const isInlier = new Uint8Array(count);
    for (let i = 0; i < count; i++) {
      if (i % 5 < 2) {
        const s = (rng() - 0.5) * 40;
        const noise = 0.05 * gaussian(rng);
        // Point on the line at arc length s, then moved along the normal by the noise.
        points[2 * i] = -truth[0] * truth[2] + s * -truth[1] + noise * truth[0];
        points[2 * i + 1] = -truth[1] * truth[2] + s * truth[0] + noise * truth[1];
        isInlier[i] = 1;
      } else {
        points[2 * i] = (rng() - 0.5) * 40;
        points[2 * i + 1] = (rng() - 0.5) * 40;
      }
    }
    const result = ransac<Line>({
      sampleSize: 2,
      dataCount: count,
      fit: (sample) => {
        const line = lineThrough(points, sample[0], sample[1]);
        return line ? [line] : [];
      },
      residuals: (line, out) => {
        for (let i = 0; i < count; i++) out[i] = Math.abs(line[0] * points[2 * i] + line[1] * points[2 * i + 1] + line[2]);
      },
      threshold: 0.2,
      confidence: 0.999,
      maxIterations: 1000,
      rng: createRng(1),
      refine: (indices) => fitLineLeastSquares(points, indices),
    });
    const line = result.model!;
    const sign = Math.sign(line[0] * truth[0] + line[1] * truth[1]);
    expect(Math.abs(sign * line[0] - truth[0])).toBeLessThan(0.01);
    expect(Math.abs(sign * line[2] - truth[2])).toBeLessThan(0.05);
    let agree = 0;
    for (let i = 0; i < count; i++) if (result.inliers[i] && isInlier[i]) agree++;
    expect(agree).toBeGreaterThanOrEqual(0.98 * 100);
    expect(result.inlierCount).toBeLessThan(110);
    expect(result.iterations).toBeLessThan(1000);
  });

  it("returns no model when there are fewer data than a sample", () => {
    const result = ransac<number>({
      sampleSize: 3, dataCount: 2, fit: () => [1], residuals: () => {}, threshold: 1,
      confidence: 0.99, maxIterations: 10, rng: createRng(1),
    });
    expect(result.model).toBeNull();
    expect(result.inlierCount).toBe(0);
  });

  it("computes the classic adaptive iteration counts", () => {
    // w = 0.5, s = 4, p = 0.99 → 72 (Hartley & Zisserman table 4.3).
    expect(adaptiveIterations(0.5, 4, 0.99, 10000)).toBe(72);
    expect(adaptiveIterations(0, 4, 0.99, 500)).toBe(500);
  });
});
