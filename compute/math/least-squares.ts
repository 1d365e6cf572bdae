/**
 * @module Levenberg–Marquardt (Marquardt 1963, with Nielsen's damping update) for small dense
 * problems: a handful of parameters, up to thousands of residuals. The Jacobian is by central
 * differences unless given; the normal equations are solved by Cholesky.
 */
import { choleskySolve } from "./linalg.js";

export type ResidualFn = (params: Float64Array, out: Float64Array) => void;

export interface LeastSquaresOptions {
  maxIterations?: number;
  /** Stop when the relative cost decrease falls below this. */
  costTolerance?: number;
  /** Analytic Jacobian, residualCount × paramCount row-major; central differences when absent. */
  jacobian?: (params: Float64Array, out: Float64Array) => void;
  /** Finite-difference step. */
  step?: number;
}

export interface LeastSquaresResult {
  params: Float64Array;
  /** ½·Σ r² at `params`. */
  cost: number;
  iterations: number;
}

function halfSquaredNorm(r: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < r.length; i++) sum += r[i] * r[i];
  return 0.5 * sum;
}

function numericJacobian(fn: ResidualFn, params: Float64Array, m: number, step: number, out: Float64Array): void {
  const n = params.length;
  const plus = new Float64Array(m);
  const minus = new Float64Array(m);
  for (let j = 0; j < n; j++) {
    const saved = params[j];
    params[j] = saved + step;
    fn(params, plus);
    params[j] = saved - step;
    fn(params, minus);
    params[j] = saved;
    for (let i = 0; i < m; i++) out[i * n + j] = (plus[i] - minus[i]) / (2 * step);
  }
}

/** Minimises ½·Σ rᵢ(p)² from `initial` (not modified). */
export function levenbergMarquardt(initial: Float64Array, residuals: ResidualFn, residualCount: number, options: LeastSquaresOptions = {}): LeastSquaresResult {
  const n = initial.length;
  const m = residualCount;
  const maxIterations = options.maxIterations ?? 20;
  const costTolerance = options.costTolerance ?? 1e-10;
  const step = options.step ?? 1e-7;
  let params = Float64Array.from(initial);
  const r = new Float64Array(m); // residuals at `params`
  const trialR = new Float64Array(m); // residuals at the trial step
  const J = new Float64Array(m * n);
  const JtJ = new Float64Array(n * n);
  const g = new Float64Array(n); // −Jᵀr
  residuals(params, r);
  let cost = halfSquaredNorm(r);
  let lambda = 1e-3;
  let nu = 2;
  let iteration = 0;
  for (; iteration < maxIterations && cost > 0; iteration++) {
    if (options.jacobian) options.jacobian(params, J);
    else numericJacobian(residuals, params, m, step, J);
    normalEquations(J, r, m, n, JtJ, g);
    let improved = false;
    // Retry with more damping until the step lowers the cost (bounded).
    for (let attempt = 0; attempt < 10 && !improved; attempt++) {
      const A = Float64Array.from(JtJ);
      for (let k = 0; k < n; k++) A[k * n + k] += lambda * Math.max(JtJ[k * n + k], 1e-12);
      const delta = Float64Array.from(g);
      if (!choleskySolve(A, delta, n)) {
        lambda *= nu;
        nu *= 2;
        continue;
      }
      const trial = Float64Array.from(params, (p, k) => p + delta[k]);
      residuals(trial, trialR);
      const trialCost = halfSquaredNorm(trialR);
      if (trialCost < cost) {
        const relative = (cost - trialCost) / cost;
        params = trial;
        r.set(trialR);
        cost = trialCost;
        lambda = Math.max(lambda / 3, 1e-12);
        nu = 2;
        improved = true;
        if (relative < costTolerance) return { params, cost, iterations: iteration + 1 };
      } else {
        lambda *= nu;
        nu *= 2;
      }
    }
    if (!improved) break;
  }
  return { params, cost, iterations: iteration };
}

function normalEquations(J: Float64Array, r: Float64Array, m: number, n: number, JtJ: Float64Array, g: Float64Array): void {
  JtJ.fill(0);
  g.fill(0);
  for (let i = 0; i < m; i++) {
    const row = i * n;
    for (let a = 0; a < n; a++) {
      const ja = J[row + a];
      if (ja === 0) continue;
      g[a] -= ja * r[i];
      for (let b = a; b < n; b++) JtJ[a * n + b] += ja * J[row + b];
    }
  }
  for (let a = 0; a < n; a++) for (let b = 0; b < a; b++) JtJ[a * n + b] = JtJ[b * n + a];
}
