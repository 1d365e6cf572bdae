/** @module Checks a BA problem's shape once at the entry point, so the hot loops never have to. */
import type { BAProblem, Options } from "./types.js";

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(`ba: ${message}`);
}

function checkIndices(values: Uint32Array, bound: number, name: string): void {
  for (let i = 0; i < values.length; i++) check(values[i] < bound, `${name}[${i}] = ${values[i]} is out of range (< ${bound})`);
}

export function validateProblem(problem: BAProblem): void {
  const { cameraCount: cams, pointCount: pts, observationCount: obs } = problem;
  check(problem.poses.length === 6 * cams, `poses has ${problem.poses.length} values, expected 6 × ${cams}`);
  check(problem.intrinsicsGroup.length === cams, "intrinsicsGroup needs one entry per camera");
  check(problem.intrinsics.length % 5 === 0, "intrinsics needs 5 values per group");
  check(problem.points.length === 3 * pts, `points has ${problem.points.length} values, expected 3 × ${pts}`);
  check(problem.obsCamera.length === obs && problem.obsPoint.length === obs, "obsCamera and obsPoint need one entry per observation");
  check(problem.obsXY.length === 2 * obs, "obsXY needs 2 values per observation");
  check(!problem.obsSigma || (problem.obsSigma.length === obs && problem.obsSigma.every((s) => s > 0 && Number.isFinite(s))), "obsSigma needs one positive value per observation");
  check(!problem.fixedPose || problem.fixedPose.length === cams, "fixedPose needs one entry per camera");
  check(!problem.fixedPoint || problem.fixedPoint.length === pts, "fixedPoint needs one entry per point");
  const prior = problem.centrePrior;
  check(!prior || (prior.positions.length === 3 * cams && prior.sigmas.length === 3 * cams), "centrePrior needs 3 positions and 3 sigmas per camera");
  check(!prior || (prior.positions.every(Number.isFinite) && prior.sigmas.every((s) => s >= 0 || Number.isNaN(s))), "centrePrior positions must be finite and sigmas non-negative");
  const points = problem.pointPrior;
  check(!points || (points.positions.length === 3 * points.points.length && points.sigmas.length === 3 * points.points.length), "pointPrior needs 3 positions and 3 sigmas per entry");
  check(!points || (points.positions.every(Number.isFinite) && points.sigmas.every((s) => s >= 0 || Number.isNaN(s))), "pointPrior positions must be finite and sigmas non-negative");
  check(!points || new Set(points.points).size === points.points.length, "pointPrior lists a point twice");
  if (points) checkIndices(points.points, pts, "pointPrior.points");
  checkIndices(problem.intrinsicsGroup, problem.intrinsics.length / 5, "intrinsicsGroup");
  checkIndices(problem.obsCamera, cams, "obsCamera");
  checkIndices(problem.obsPoint, pts, "obsPoint");
}

export function validateOptions(options: Options): void {
  check(Number.isInteger(options.maxIterations) && options.maxIterations >= 0, "maxIterations must be a non-negative integer");
  check(options.lossScalePx > 0, "lossScalePx must be positive");
  check(options.initialLambda > 0, "initialLambda must be positive");
  check(["cauchy", "huber", "squared"].includes(options.loss), `unknown loss "${options.loss}"`);
  check(Number.isInteger(options.threads) && options.threads >= 0, "threads must be a non-negative integer (0 = every available core)");
  check(options.parallelMinObservations >= 0, "parallelMinObservations must be non-negative");
}
