/**
 * @module Bundle adjustment, a solver library (sfm's, through stages/sfm/bundle.ts): sparse
 * Schur-complement Levenberg–Marquardt over camera poses, shared intrinsics (focal, principal
 * point, k1, k2 of the RADIAL model) and points, with a robust loss. References: Triggs,
 * McLauchlan, Hartley & Fitzgibbon 2000, "Bundle Adjustment — A Modern Synthesis"; Lourakis &
 * Argyros 2009, "SBA: A Software Package for Generic Sparse Bundle Adjustment"; Agarwal,
 * Snavely, Seitz & Szeliski 2010, "Bundle Adjustment in the Large".
 *
 * CONTRIBUTOR NOTES
 * - Points are always the eliminated block (they outnumber cameras ~100:1). The reduced
 *   system is dense Cholesky up to `denseSchurMaxCameras` free poses and implicit-Schur PCG
 *   above, where S would cost O(n²) memory. The dense factorisation skips zero entries, so
 *   a banded camera graph costs far less than n³/6: at 100 cameras / 150k observations one
 *   iteration measured ~44 ms linearising, ~75 ms forming S, ~2 ms factoring.
 * - PCG with block-Jacobi is slow on a weakly damped system (the free scale gauge is nearly
 *   singular): at 100 cameras it needed ~300 CG iterations per step at η = 1e-6, hence the
 *   inexact-Newton η = 0.1 in solver.ts. On a ring of 300 cameras (each point seen by 3–7
 *   neighbours) it still needed ~190 CG iterations per step (information crosses the ring
 *   one neighbour per iteration): 34 s CPU against 3.4 s for the dense path, hence the
 *   default threshold of 400 cameras (S is then 2,400² doubles, 46 MB).
 * - Cauchy converges linearly near the optimum (13 iterations on the bench vs 5 for squared)
 *   because √ρ′ reweighting overestimates the curvature of the outlier-zone residuals. The
 *   Triggs correction is applied to inliers (exact there); applying it (clamped) to the
 *   outlier zone too made the first, all-outlier iterations stall.
 * - Rotations use a left perturbation exp(δ)·R around the stored angle-axis rather than
 *   differentiating the angle-axis itself: the Jacobian is simpler and has no singularity.
 * - Gauge: see BAProblem in types.ts — the caller fixes at least one pose, or gives position
 *   priors (camera centres: centre-prior.ts; ground control points: point-prior.ts).
 */
import { evaluateResiduals } from "./residuals.js";
import { solve } from "./solver.js";
import { BaTeam } from "./team.js";
import type { BAProblem, BAReport, Options } from "./types.js";
import { validateOptions, validateProblem } from "./validate.js";

export type { BAProblem, BAReport, CentrePrior, LinearSolverKind, Options, PointPrior } from "./types.js";
export type { LossName } from "./loss.js";

export const NAME = "ba";

/** Stops the process's bundle-adjustment thread team and frees its shared memory; the next threaded solve starts a new one. */
export function closeTeam(): void {
  BaTeam.close();
}

export const DEFAULTS: Options = {
  maxIterations: 50,
  loss: "cauchy",
  lossScalePx: 1,
  refineFocal: true,
  refineDistortion: true,
  refinePrincipalPoint: false,
  functionTolerance: 1e-6,
  gradientTolerance: 1e-10,
  parameterTolerance: 1e-8,
  initialLambda: 1e-4,
  denseSchurMaxCameras: 400,
  // A 40 × 20 survey grid in banded order: ~0.2 × 10⁹; 400 cameras that all see one another
  // (where PCG took over before): 2.3 × 10⁹ (test/compute/solvers/bundle-adjustment/ordering.test.ts).
  bandedDenseMaxCost: 2e9,
  bandedDenseMaxSize: 7200,
  threads: 1,
  parallelMinObservations: 5_000,
};

/** Refines `problem`'s poses, intrinsics and points in place. */
export function run(problem: BAProblem, options: Partial<Options> = {}): BAReport {
  const started = performance.now();
  const settings: Options = { ...DEFAULTS };
  // Keys passed as undefined keep their defaults instead of erasing them.
  for (const [key, value] of Object.entries(options)) {
    if (value !== undefined) Object.assign(settings, { [key]: value });
  }
  validateOptions(settings);
  validateProblem(problem);
  const summary = solve(problem, settings);
  const rmse = (sumSquares: number): number =>
    problem.observationCount > 0 ? Math.sqrt(sumSquares / problem.observationCount) : 0;
  const { layout } = summary;
  const warnings: string[] = [];
  if (problem.observationCount > 0 && layout.freePoseCount > 0 && !problem.fixedPose?.some((f) => f === 1) && !problem.centrePrior && !problem.pointPrior) {
    warnings.push("ba: no pose is fixed, so the gauge is free and only damping holds the scene in place");
  }
  if (summary.termination === "max-iterations" || summary.termination === "damping") {
    warnings.push(`ba: stopped by ${summary.termination} before converging`);
  }
  return {
    stage: NAME,
    wallMs: performance.now() - started,
    iterations: summary.iterations,
    initialCost: summary.initial.cost,
    finalCost: summary.final.cost,
    initialRmsePx: rmse(summary.initial.sumSquares),
    finalRmsePx: rmse(summary.final.sumSquares),
    termination: summary.termination,
    linearSolver: summary.linearSolver,
    counts: {
      cameras: problem.cameraCount,
      freePoses: layout.freePoseCount,
      intrinsicGroups: layout.freeGroupCount,
      points: problem.pointCount,
      freePoints: layout.freePointCount,
      observations: problem.observationCount,
      reducedSize: layout.reducedSize,
      acceptedSteps: summary.acceptedSteps,
      rejectedSteps: summary.rejectedSteps,
      pcgIterations: summary.pcgIterations,
      threads: summary.threads,
    },
    warnings,
  };
}

/** Per-observation reprojection error in pixels after the solve (for outlier filtering by the caller). */
export function reprojectionErrors(problem: BAProblem, out?: Float64Array): Float64Array {
  validateProblem(problem);
  return evaluateResiduals(problem, out);
}
