import { describe, expect, it } from "vitest";
import { angleAxisToMatrix, rotationAngleDeg } from "../../../compute/geometry/rotation.js";
import { robustSimilarity, umeyama } from "../../../compute/geometry/similarity.js";
import { createRng, gaussian } from "../../../compute/math/random.js";

function applySimilarity(R: Float64Array, t: number[], s: number, src: Float64Array): Float64Array {
  const dst = new Float64Array(src.length);
  for (let i = 0; i < src.length / 3; i++) {
    for (let a = 0; a < 3; a++) dst[3 * i + a] = s * (R[3 * a] * src[3 * i] + R[3 * a + 1] * src[3 * i + 1] + R[3 * a + 2] * src[3 * i + 2]) + t[a];
  }
  return dst;
}

describe("geometry/similarity", () => {
  const R = angleAxisToMatrix([0.4, -1.1, 2.0]);
  const t = [3, -2, 10];
  const s = 2.5;

  it("umeyama recovers a known similarity exactly, and a rigid one without scale", () => {
    const rng = createRng(50);
    const src = Float64Array.from({ length: 30 }, () => gaussian(rng));
    const sim = umeyama(src, applySimilarity(R, t, s, src), 10);
    expect(rotationAngleDeg(sim.R, R)).toBeLessThan(1e-9);
    expect(sim.s).toBeCloseTo(s, 12);
    for (let a = 0; a < 3; a++) expect(sim.t[a]).toBeCloseTo(t[a], 11);
    const rigid = umeyama(src, applySimilarity(R, t, 1, src), 10, false);
    expect(rigid.s).toBe(1);
    expect(rotationAngleDeg(rigid.R, R)).toBeLessThan(1e-9);
  });

  it("robustSimilarity ignores 35% gross outliers and derives its threshold", () => {
    const rng = createRng(51);
    const count = 60;
    const src = Float64Array.from({ length: 3 * count }, () => 5 * gaussian(rng));
    const dst = applySimilarity(R, t, s, src);
    const isOutlier = new Uint8Array(count);
    for (let i = 0; i < count; i++) {
      for (let a = 0; a < 3; a++) dst[3 * i + a] += 0.01 * gaussian(rng);
      if (i % 20 < 7) {
        isOutlier[i] = 1;
        for (let a = 0; a < 3; a++) dst[3 * i + a] += 20 * gaussian(rng);
      }
    }
    const robust = robustSimilarity(src, dst, count)!;
    expect(rotationAngleDeg(robust.R, R)).toBeLessThan(0.05);
    expect(Math.abs(robust.s - s)).toBeLessThan(1e-3);
    for (let i = 0; i < count; i++) expect(robust.inliers[i]).toBe(isOutlier[i] ? 0 : 1);
    expect(robust.threshold).toBeGreaterThan(0.01);
    expect(robust.threshold).toBeLessThan(0.2);
    const plain = umeyama(src, dst, count);
    expect(rotationAngleDeg(plain.R, R)).toBeGreaterThan(0.1); // why the robust version exists
    expect(robustSimilarity(src, dst, 2)).toBeNull();
  });
});
