/** @module Plain (unweighted) per-observation reprojection error norms, for callers filtering outliers. */
import { computeRotations } from "./linearize.js";
import { projectResidual } from "./projection.js";
import type { BAProblem } from "./types.js";

export function evaluateResiduals(problem: BAProblem, out?: Float64Array): Float64Array {
  const errors = out ?? new Float64Array(problem.observationCount);
  if (errors.length < problem.observationCount) throw new Error("ba: reprojectionErrors output is shorter than observationCount");
  const rotations = new Float64Array(problem.cameraCount * 9);
  computeRotations(problem.cameraCount, problem.poses, rotations);
  const residual = new Float64Array(2);
  const { obsCamera, obsPoint, intrinsicsGroup } = problem;
  for (let o = 0; o < problem.observationCount; o++) {
    const c = obsCamera[o];
    const squared = projectResidual(rotations, 9 * c, problem.poses, 6 * c, problem.points, 3 * obsPoint[o],
      problem.intrinsics, 5 * intrinsicsGroup[c], problem.obsXY, 2 * o, residual, 0);
    errors[o] = Math.sqrt(squared);
  }
  return errors;
}
