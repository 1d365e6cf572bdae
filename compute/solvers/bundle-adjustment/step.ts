/**
 * @module What an LM step does to the parameters: apply it to trial copies, predict the
 * cost decrease of the linearised model, and the norms used by the stopping tests.
 */
import { priorPredictedDecrease } from "./centre-prior.js";
import type { Layout } from "./layout.js";
import { pointPriorPredictedDecrease } from "./point-prior.js";
import type { Normal } from "./linearize.js";
import { perturbRotationLeft } from "./rotation.js";
import type { BAProblem } from "./types.js";

/** Trial copies of the parameters a step is evaluated on. */
export interface Trial {
  poses: Float64Array;
  intrinsics: Float64Array;
  points: Float64Array;
}

/** Writes current parameters + step (δc in the reduced vector, δp per point) into `trial`. */
export function applyStep(problem: BAProblem, layout: Layout, dR: Float64Array, dP: Float64Array, trial: Trial): void {
  trial.poses.set(problem.poses);
  trial.intrinsics.set(problem.intrinsics);
  trial.points.set(problem.points);
  for (let c = 0; c < problem.cameraCount; c++) {
    const pb = layout.poseBase[c];
    if (pb < 0) continue;
    perturbRotationLeft(trial.poses, 6 * c, dR, pb);
    for (let k = 0; k < 3; k++) trial.poses[6 * c + 3 + k] += dR[pb + 3 + k];
  }
  for (let g = 0; g < layout.intrBase.length; g++) {
    const ib = layout.intrBase[g];
    if (ib < 0) continue;
    for (let k = 0; k < layout.ni; k++) trial.intrinsics[5 * g + layout.intrinsicColumns[k]] += dR[ib + k];
  }
  for (let p = 0; p < problem.pointCount; p++) {
    if (!layout.pointFree[p]) continue;
    for (let k = 0; k < 3; k++) trial.points[3 * p + k] += dP[3 * p + k];
  }
}

/**
 * Decrease of the (reweighted) linear model ½‖r + J·δ‖² predicted for the step, computed
 * from the stored Jacobians rather than from the normal equations so that it stays exact
 * when the linear solve was inexact (PCG).
 */
export function predictedDecrease(problem: BAProblem, layout: Layout, normal: Normal, dR: Float64Array, dP: Float64Array): number {
  const decrease = observationsPredictedDecrease(problem, layout, normal, dR, dP, 0, problem.observationCount);
  return priorsPredictedDecrease(problem, layout, normal, dR, dP) + decrease;
}

/** The centre and point priors' share of predictedDecrease. */
export function priorsPredictedDecrease(problem: BAProblem, layout: Layout, normal: Normal, dR: Float64Array, dP: Float64Array): number {
  const centres = normal.prior ? priorPredictedDecrease(problem, layout, normal.prior, dR) : 0;
  return centres + (normal.pointPrior ? pointPriorPredictedDecrease(problem, layout, normal.pointPrior, dP) : 0);
}

/** The observations [o0, o1)'s share of predictedDecrease (priors excluded). */
export function observationsPredictedDecrease(problem: BAProblem, layout: Layout, normal: Normal, dR: Float64Array, dP: Float64Array, o0: number, o1: number): number {
  const cw = layout.cw;
  const ni = layout.ni;
  const { jc, jp, res } = normal;
  let decrease = 0;
  for (let o = o0; o < o1; o++) {
    const c = problem.obsCamera[o];
    const p = problem.obsPoint[o];
    const pb = layout.poseBase[c];
    const ib = layout.intrBase[problem.intrinsicsGroup[c]];
    const jOff = o * 2 * cw;
    let l0 = 0, l1 = 0;
    if (pb >= 0) for (let k = 0; k < 6; k++) {
      l0 += jc[jOff + k] * dR[pb + k];
      l1 += jc[jOff + cw + k] * dR[pb + k];
    }
    if (ib >= 0) for (let k = 0; k < ni; k++) {
      l0 += jc[jOff + 6 + k] * dR[ib + k];
      l1 += jc[jOff + cw + 6 + k] * dR[ib + k];
    }
    if (layout.pointFree[p]) for (let k = 0; k < 3; k++) {
      l0 += jp[6 * o + k] * dP[3 * p + k];
      l1 += jp[6 * o + 3 + k] * dP[3 * p + k];
    }
    const r0 = res[2 * o], r1 = res[2 * o + 1];
    // ½(‖r‖² − ‖r + l‖²) = −(r·l) − ½‖l‖².
    decrease -= r0 * l0 + r1 * l1 + 0.5 * (l0 * l0 + l1 * l1);
  }
  return decrease;
}

/** Euclidean norm of the step over all variables. */
export function stepNorm(layout: Layout, dR: Float64Array, dP: Float64Array): number {
  let sum = 0;
  for (let k = 0; k < dR.length; k++) sum += dR[k] * dR[k];
  for (let p = 0; p < layout.pointFree.length; p++) {
    if (!layout.pointFree[p]) continue;
    sum += dP[3 * p] * dP[3 * p] + dP[3 * p + 1] * dP[3 * p + 1] + dP[3 * p + 2] * dP[3 * p + 2];
  }
  return Math.sqrt(sum);
}

/** Euclidean norm of the variables' current values (poses, refined intrinsics, free points). */
export function parameterNorm(problem: BAProblem, layout: Layout): number {
  let sum = 0;
  for (let c = 0; c < problem.cameraCount; c++) {
    if (layout.poseBase[c] < 0) continue;
    for (let k = 0; k < 6; k++) sum += problem.poses[6 * c + k] ** 2;
  }
  for (let g = 0; g < layout.intrBase.length; g++) {
    if (layout.intrBase[g] < 0) continue;
    for (let k = 0; k < layout.ni; k++) sum += problem.intrinsics[5 * g + layout.intrinsicColumns[k]] ** 2;
  }
  for (let p = 0; p < problem.pointCount; p++) {
    if (!layout.pointFree[p]) continue;
    for (let k = 0; k < 3; k++) sum += problem.points[3 * p + k] ** 2;
  }
  return Math.sqrt(sum);
}

/** Largest absolute gradient component over all variables. */
export function gradientMaxNorm(layout: Layout, normal: Normal): number {
  let max = 0;
  for (let k = 0; k < normal.gR.length; k++) max = Math.max(max, Math.abs(normal.gR[k]));
  for (let p = 0; p < layout.pointFree.length; p++) {
    if (!layout.pointFree[p]) continue;
    for (let k = 0; k < 3; k++) max = Math.max(max, Math.abs(normal.gP[3 * p + k]));
  }
  return max;
}
