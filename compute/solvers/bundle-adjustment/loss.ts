/**
 * @module Robust losses ρ(s) of a squared residual norm s = ‖r‖², in Ceres' convention
 * (cost of one observation = ½·ρ(s), ρ(s) ≈ s for small s, `scale` = a in pixels).
 *
 * The solver applies them by reweighting residual and Jacobian with √ρ′(s) and, for
 * inliers, the second-order correction of Triggs et al. 2000, "Bundle Adjustment — A Modern
 * Synthesis", §4.3, which needs ρ″ (see linearize.ts, storeWeighted).
 */

export type LossName = "cauchy" | "huber" | "squared";

/** ρ(s) for squared norm `s` and scale `a` (pixels). */
export function lossValue(loss: LossName, s: number, a: number): number {
  const a2 = a * a;
  switch (loss) {
    case "squared":
      return s;
    case "huber":
      return s <= a2 ? s : 2 * a * Math.sqrt(s) - a2;
    case "cauchy":
      return a2 * Math.log1p(s / a2);
  }
}

/** ρ″(s) (≤ 0 for all three losses). */
export function lossCurvature(loss: LossName, s: number, a: number): number {
  switch (loss) {
    case "squared":
      return 0;
    case "huber":
      return s <= a * a ? 0 : -0.5 * a / (s * Math.sqrt(s));
    case "cauchy": {
      const w = 1 / (1 + s / (a * a));
      return (-w * w) / (a * a);
    }
  }
}

/** ρ′(s), the IRLS weight of an observation with squared norm `s`. */
export function lossWeight(loss: LossName, s: number, a: number): number {
  const a2 = a * a;
  switch (loss) {
    case "squared":
      return 1;
    case "huber":
      return s <= a2 ? 1 : a / Math.sqrt(s);
    case "cauchy":
      return 1 / (1 + s / a2);
  }
}
