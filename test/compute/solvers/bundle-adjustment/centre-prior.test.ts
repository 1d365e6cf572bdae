/**
 * Camera position priors in bundle adjustment (ba/centre-prior.ts): the Jacobian against finite
 * differences of the cost, and a problem with no pose held that the priors alone place, in
 * the priors' frame and scale.
 */
import { describe, expect, it } from "vitest";
import { run, type BAProblem } from "../../../../compute/solvers/bundle-adjustment/index.js";
import { buildLayout } from "../../../../compute/solvers/bundle-adjustment/layout.js";
import { accumulatePriors, allocatePriorLinearization, priorSquares } from "../../../../compute/solvers/bundle-adjustment/centre-prior.js";
import { computeRotations } from "../../../../compute/solvers/bundle-adjustment/linearize.js";
import { perturbRotationLeft } from "../../../../compute/solvers/bundle-adjustment/rotation.js";
import { DEFAULTS } from "../../../../compute/solvers/bundle-adjustment/index.js";
import { centerOf } from "./alignment.js";
import { makeScene, perturbedCopy, Rng, similarityOf } from "./synthetic-scene.js";

/** The true centres plus Gaussian noise of `sigma` per axis, as priors of that σ (axis 2 without one when `noAltitude`). */
function priorsFrom(truth: BAProblem, sigma: number, seed: number, noAltitude = false): NonNullable<BAProblem["centrePrior"]> {
  const rng = new Rng(seed);
  const positions = new Float64Array(3 * truth.cameraCount);
  const sigmas = new Float64Array(3 * truth.cameraCount);
  for (let c = 0; c < truth.cameraCount; c++) {
    const centre = centerOf(truth, c);
    for (let a = 0; a < 3; a++) {
      positions[3 * c + a] = centre[a] + sigma * rng.normal();
      sigmas[3 * c + a] = noAltitude && a === 2 ? 0 : sigma;
    }
  }
  return { positions, sigmas };
}

describe("ba: camera position priors", () => {
  const scene = makeScene();

  it("has the Jacobian of its cost (finite differences on rotation and translation), in a frame of its own with per-axis σ", () => {
    const problem = perturbedCopy(scene);
    const [c, s] = [Math.cos(0.7), Math.sin(0.7)];
    problem.centrePrior = { ...priorsFrom(scene.truth, 0.05, 3), frame: { R: Float64Array.of(c, 0, s, 0, 1, 0, -s, 0, c), scale: 2.5, t: Float64Array.of(10, -3, 4) } };
    problem.centrePrior.sigmas.forEach((_, i) => (problem.centrePrior!.sigmas[i] = i % 3 === 2 ? 0.2 : 0.05));
    problem.fixedPose = new Uint8Array(problem.cameraCount);
    const layout = buildLayout(problem, { ...DEFAULTS, refineFocal: false, refineDistortion: false });
    const rotations = new Float64Array(9 * problem.cameraCount);
    computeRotations(problem.cameraCount, problem.poses, rotations);
    const lin = allocatePriorLinearization(problem)!;
    const gR = new Float64Array(layout.reducedSize);
    const upp = new Float64Array(36 * problem.cameraCount);
    const sum = accumulatePriors(problem, layout, rotations, upp, gR, lin);
    expect(sum).toBeCloseTo(priorSquares(problem, problem.poses, rotations), 9);
    const cost = (poses: Float64Array) => {
      const r = new Float64Array(9 * problem.cameraCount);
      computeRotations(problem.cameraCount, poses, r);
      return 0.5 * priorSquares(problem, poses, r);
    };
    const h = 1e-6;
    for (const c of [1, 5, 11]) {
      const pb = layout.poseBase[c];
      for (let k = 0; k < 6; k++) {
        const plus = problem.poses.slice();
        const minus = problem.poses.slice();
        const delta = new Float64Array(3);
        if (k < 3) {
          delta[k] = h;
          perturbRotationLeft(plus, 6 * c, delta, 0);
          delta[k] = -h;
          perturbRotationLeft(minus, 6 * c, delta, 0);
        } else {
          plus[6 * c + k] += h;
          minus[6 * c + k] -= h;
        }
        const numeric = (cost(plus) - cost(minus)) / (2 * h);
        expect(gR[pb + k]).toBeCloseTo(numeric, 4);
      }
    }
  });

  it("places a block with no pose held in the priors' frame, within their noise, and the photos keep the shape", () => {
    const truth = scene.truth;
    const sigma = 0.02; // 1 % of the scene's size (box side 2)
    // The whole block moved, turned and scaled: only the priors can bring it back.
    const moved = perturbedCopy({ ...scene, truth: similarityOf(truth, 1.3, 0.4, [0.7, -0.2, 0.5]) });
    moved.fixedPose = new Uint8Array(truth.cameraCount);
    moved.centrePrior = priorsFrom(truth, sigma, 5);
    const report = run(moved, { loss: "cauchy", lossScalePx: 1 });
    expect(report.warnings.join()).not.toMatch(/gauge/);
    expect(["function", "gradient", "parameter"]).toContain(report.termination);
    let worst = 0;
    for (let c = 0; c < truth.cameraCount; c++) {
      const a = centerOf(moved, c);
      const b = centerOf(truth, c);
      worst = Math.max(worst, Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]));
    }
    // 12 priors of σ = 0.02 fix the 7 gauge parameters to about σ/√12 each; the shape comes from the photos.
    expect(worst).toBeLessThan(2 * sigma);
    expect(report.finalRmsePx).toBeLessThan(0.6);
  });

  it("uses the horizontal axes of a fix without altitude, and refuses priors of the wrong shape", () => {
    const moved = perturbedCopy(scene);
    moved.fixedPose = new Uint8Array(moved.cameraCount);
    moved.centrePrior = priorsFrom(scene.truth, 0.02, 7, true);
    const report = run(moved, { loss: "cauchy", lossScalePx: 1 });
    expect(report.finalRmsePx).toBeLessThan(0.6);
    const bad = perturbedCopy(scene);
    bad.centrePrior = { positions: new Float64Array(3), sigmas: new Float64Array(3) };
    expect(() => run(bad)).toThrow(/centrePrior needs 3 positions/);
  });
});
