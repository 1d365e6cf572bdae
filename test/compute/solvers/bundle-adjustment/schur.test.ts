import { describe, expect, it } from "vitest";
import { DEFAULTS, type Options } from "../../../../compute/solvers/bundle-adjustment/index.js";
import { relinearize, solveDamped } from "../../../../compute/solvers/bundle-adjustment/solver.js";
import { allocateWorkspace } from "../../../../compute/solvers/bundle-adjustment/workspace.js";
import { evaluateCost } from "../../../../compute/solvers/bundle-adjustment/linearize.js";
import { applyStep } from "../../../../compute/solvers/bundle-adjustment/step.js";
import { Rng, makeScene, perturbedCopy } from "./synthetic-scene.js";

/** Solves the dense symmetric system a·x = b (n×n, row-major) by Gaussian elimination with partial pivoting. */
function gaussSolve(a: Float64Array, b: Float64Array, n: number): Float64Array {
  const m = a.slice();
  const x = b.slice();
  for (let k = 0; k < n; k++) {
    let pivot = k;
    for (let i = k + 1; i < n; i++) if (Math.abs(m[i * n + k]) > Math.abs(m[pivot * n + k])) pivot = i;
    for (let j = 0; j < n; j++) [m[k * n + j], m[pivot * n + j]] = [m[pivot * n + j], m[k * n + j]];
    [x[k], x[pivot]] = [x[pivot], x[k]];
    for (let i = k + 1; i < n; i++) {
      const f = m[i * n + k] / m[k * n + k];
      for (let j = k; j < n; j++) m[i * n + j] -= f * m[k * n + j];
      x[i] -= f * x[k];
    }
  }
  for (let i = n - 1; i >= 0; i--) {
    let sum = x[i];
    for (let j = i + 1; j < n; j++) sum -= m[i * n + j] * x[j];
    x[i] = sum / m[i * n + i];
  }
  return x;
}

describe("ba/schur", () => {
  it("gives the same damped step as the full normal equations built from the stored Jacobians", () => {
    const scene = makeScene({ cameras: 5, points: 25, seed: 4 });
    const problem = perturbedCopy(scene);
    problem.fixedPoint = new Uint8Array(problem.pointCount);
    problem.fixedPoint[3] = 1;
    // A camera that observes a point twice (a duplicate feature) must merge into one block.
    problem.obsCamera = Uint32Array.from([...problem.obsCamera, problem.obsCamera[0]]);
    problem.obsPoint = Uint32Array.from([...problem.obsPoint, problem.obsPoint[0]]);
    problem.obsXY = Float64Array.from([...problem.obsXY, problem.obsXY[0] + 1.5, problem.obsXY[1] - 0.5]);
    problem.observationCount++;
    const options: Options = { ...DEFAULTS, loss: "cauchy", refinePrincipalPoint: true };
    const ws = allocateWorkspace(problem, options);
    relinearize(problem, ws, options);
    const mu = 1e-3;
    expect(solveDamped(problem, ws, mu)).toBe(0);

    // Full Jacobian over [reduced camera variables, then 3 per free point].
    const { layout, normal } = ws;
    const nR = layout.reducedSize;
    const pointColumn = new Int32Array(problem.pointCount).fill(-1);
    let n = nR;
    for (let p = 0; p < problem.pointCount; p++) if (layout.pointFree[p]) { pointColumn[p] = n; n += 3; }
    const rows = 2 * problem.observationCount;
    const J = new Float64Array(rows * n);
    const cw = layout.cw;
    for (let o = 0; o < problem.observationCount; o++) {
      const c = problem.obsCamera[o];
      const pb = layout.poseBase[c];
      const ib = layout.intrBase[problem.intrinsicsGroup[c]];
      const pc = pointColumn[problem.obsPoint[o]];
      for (let row = 0; row < 2; row++) {
        const r = (2 * o + row) * n;
        if (pb >= 0) for (let k = 0; k < 6; k++) J[r + pb + k] = normal.jc[o * 2 * cw + row * cw + k];
        if (ib >= 0) for (let k = 0; k < layout.ni; k++) J[r + ib + k] = normal.jc[o * 2 * cw + row * cw + 6 + k];
        if (pc >= 0) for (let k = 0; k < 3; k++) J[r + pc + k] = normal.jp[6 * o + 3 * row + k];
      }
    }
    const H = new Float64Array(n * n);
    const rhs = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      for (let r = 0; r < rows; r++) rhs[i] -= J[r * n + i] * normal.res[r];
      for (let j = 0; j < n; j++) {
        let sum = 0;
        for (let r = 0; r < rows; r++) sum += J[r * n + i] * J[r * n + j];
        H[i * n + j] = sum;
      }
    }
    for (let i = 0; i < n; i++) H[i * n + i] += mu * Math.min(1e32, Math.max(1e-6, H[i * n + i]));
    const full = gaussSolve(H, rhs, n);

    let maxDiff = 0, maxValue = 0;
    for (let i = 0; i < nR; i++) {
      maxDiff = Math.max(maxDiff, Math.abs(full[i] - ws.dR[i]));
      maxValue = Math.max(maxValue, Math.abs(full[i]));
    }
    for (let p = 0; p < problem.pointCount; p++) {
      if (pointColumn[p] < 0) continue;
      for (let k = 0; k < 3; k++) {
        maxDiff = Math.max(maxDiff, Math.abs(full[pointColumn[p] + k] - ws.dP[3 * p + k]));
        maxValue = Math.max(maxValue, Math.abs(full[pointColumn[p] + k]));
      }
    }
    expect(maxValue).toBeGreaterThan(1e-3);
    expect(maxDiff / maxValue).toBeLessThan(1e-8);
  });
});

describe("ba/linearize", () => {
  it("has the gradient of ½Σρ (robust weighting and Triggs correction included) along random directions", () => {
    const scene = makeScene({ cameras: 6, points: 40, seed: 9 });
    for (const loss of ["cauchy", "huber", "squared"] as const) {
      // A small perturbation keeps residuals of a few pixels, on both sides of the 1 px scale.
      const problem = perturbedCopy(scene, { rotationDeg: 0.05, translationFraction: 0.001, pointFraction: 0.0005, focalFraction: 0.002, k1: -0.04 });
      const options: Options = { ...DEFAULTS, loss, refinePrincipalPoint: true };
      const ws = allocateWorkspace(problem, options);
      relinearize(problem, ws, options);
      const rng = new Rng(21);
      for (let trial = 0; trial < 3; trial++) {
        const dirR = Float64Array.from(ws.dR, () => rng.normal());
        for (let g = 0; g < ws.layout.intrBase.length; g++) {
          // Scale the intrinsics directions to their magnitudes (focal and principal point in pixels).
          const ib = ws.layout.intrBase[g];
          if (ib >= 0) for (let k = 0; k < 3; k++) dirR[ib + k] *= 100;
        }
        const dirP = Float64Array.from(ws.dP, () => rng.normal());
        let analytic = 0;
        for (let i = 0; i < dirR.length; i++) analytic += ws.normal.gR[i] * dirR[i];
        for (let i = 0; i < dirP.length; i++) if (ws.layout.pointFree[Math.floor(i / 3)]) analytic += ws.normal.gP[i] * dirP[i];
        const costAlong = (eps: number): number => {
          applyStep(problem, ws.layout, dirR.map((v) => eps * v), dirP.map((v) => eps * v), ws.trial);
          return evaluateCost(problem, ws.trial.poses, ws.trial.intrinsics, ws.trial.points, ws.trialRotations, loss, 1, ws.residualScratch).cost;
        };
        const eps = 1e-7;
        const numeric = (costAlong(eps) - costAlong(-eps)) / (2 * eps);
        expect(Math.abs(analytic - numeric)).toBeLessThan(1e-5 * Math.abs(analytic));
      }
    }
  });
});
