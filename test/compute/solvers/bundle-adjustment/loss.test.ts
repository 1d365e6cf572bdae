import { describe, expect, it } from "vitest";
import { lossCurvature, lossValue, lossWeight, type LossName } from "../../../../compute/solvers/bundle-adjustment/loss.js";

describe("ba/loss", () => {
  const losses: LossName[] = ["squared", "huber", "cauchy"];

  it("ρ′ and ρ″ are the derivatives of ρ (central differences), on both sides of the scale", () => {
    for (const loss of losses) {
      for (const a of [0.5, 1, 3]) {
        for (const s of [0.01, 0.3, 0.9 * a * a, 1.5 * a * a, 10, 400]) {
          const h = 1e-5 * s;
          const d1 = (lossValue(loss, s + h, a) - lossValue(loss, s - h, a)) / (2 * h);
          const d2 = (lossWeight(loss, s + h, a) - lossWeight(loss, s - h, a)) / (2 * h);
          expect(Math.abs(lossWeight(loss, s, a) - d1)).toBeLessThan(1e-6 * Math.max(1, Math.abs(d1)));
          expect(Math.abs(lossCurvature(loss, s, a) - d2)).toBeLessThan(1e-5 * Math.max(1e-3, Math.abs(d2)));
        }
      }
    }
  });

  it("behaves like the squared norm for small residuals and grows slower for large ones", () => {
    for (const loss of losses) {
      expect(lossValue(loss, 1e-6, 1)).toBeCloseTo(1e-6, 10);
      expect(lossWeight(loss, 0, 1)).toBe(1);
    }
    expect(lossValue("huber", 100, 1)).toBeCloseTo(2 * 10 - 1, 12);
    expect(lossValue("cauchy", 100, 1)).toBeCloseTo(Math.log(101), 12);
    expect(lossValue("cauchy", 100, 1)).toBeLessThan(lossValue("huber", 100, 1));
  });
});
