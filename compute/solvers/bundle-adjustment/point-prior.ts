/**
 * @module Position priors on 3-D points (ground control points of a survey): a residual
 * (X − g)/σ per axis for each point with a prior, X the point and g its surveyed position in the
 * problem's frame. Such a point is otherwise an ordinary point of the problem: its image marks
 * are observations like a track's, it is eliminated in the Schur complement like any point, and
 * the prior only adds diag(1/σ²) to its 3×3 block V and (X − g)/σ² to its gradient (the
 * "ground control" of aerial triangulation: Förstner & Wrobel, "Photogrammetric Computer
 * Vision", 2016, §15.4; Triggs et al. 2000 §9 on the gauge: three or more control points not on
 * a line fix all seven degrees of freedom, so no pose need be held). Squared loss: a control
 * point that disagrees with the photos is left out by whoever builds the problem
 * (sfm/control.ts), not down-weighted here.
 *
 * The Jacobian of the whitened residual is I/σ per axis; the prior's frame is the problem's
 * (the caller moves the model into the control's frame first).
 */
import type { Layout } from "./layout.js";
import type { BAProblem, PointPrior } from "./types.js";

/** Whether axis `a` of prior entry `k` carries a weight. */
function weighted(prior: PointPrior, k: number, a: number): boolean {
  const s = prior.sigmas[3 * k + a];
  return s > 0 && Number.isFinite(s);
}

/** Σ of the squared whitened residuals at `points` (3 per problem point). */
export function pointPriorSquares(problem: BAProblem, points: Float64Array): number {
  const prior = problem.pointPrior;
  if (!prior) return 0;
  let sum = 0;
  for (let k = 0; k < prior.points.length; k++) {
    const p = prior.points[k];
    for (let a = 0; a < 3; a++) {
      if (!weighted(prior, k, a)) continue;
      const r = (points[3 * p + a] - prior.positions[3 * k + a]) / prior.sigmas[3 * k + a];
      sum += r * r;
    }
  }
  return sum;
}

/** Per prior entry, the whitened residual (3) at the linearisation point, kept for the predicted decrease. */
export interface PointPriorLinearization {
  res: Float64Array;
}

export function allocatePointPriorLinearization(problem: BAProblem): PointPriorLinearization | null {
  return problem.pointPrior ? { res: new Float64Array(3 * problem.pointPrior.points.length) } : null;
}

/**
 * Adds the priors of the free points to their V blocks (diagonal, so no mirroring is needed)
 * and gradients g_p; returns Σ of the squared whitened residuals (every entry's, free or held).
 * Runs after the observations have been accumulated (V and g_p of the point already hold them).
 */
export function accumulatePointPriors(problem: BAProblem, layout: Layout, v: Float64Array, gP: Float64Array, lin: PointPriorLinearization): number {
  const prior = problem.pointPrior!;
  const { points } = problem;
  let sum = 0;
  lin.res.fill(0);
  for (let k = 0; k < prior.points.length; k++) {
    const p = prior.points[k];
    for (let a = 0; a < 3; a++) {
      if (!weighted(prior, k, a)) continue;
      const inv = 1 / prior.sigmas[3 * k + a];
      const r = (points[3 * p + a] - prior.positions[3 * k + a]) * inv;
      lin.res[3 * k + a] = r;
      sum += r * r;
      if (!layout.pointFree[p]) continue;
      v[9 * p + 4 * a] += inv * inv;
      gP[3 * p + a] += inv * r;
    }
  }
  return sum;
}

/** −(r·l) − ½‖l‖² over the priors of free points, l = δp/σ: their share of the linear model's predicted decrease. */
export function pointPriorPredictedDecrease(problem: BAProblem, layout: Layout, lin: PointPriorLinearization, dP: Float64Array): number {
  const prior = problem.pointPrior!;
  let decrease = 0;
  for (let k = 0; k < prior.points.length; k++) {
    const p = prior.points[k];
    if (!layout.pointFree[p]) continue;
    for (let a = 0; a < 3; a++) {
      if (!weighted(prior, k, a)) continue;
      const l = dP[3 * p + a] / prior.sigmas[3 * k + a];
      decrease -= lin.res[3 * k + a] * l + 0.5 * l * l;
    }
  }
  return decrease;
}
