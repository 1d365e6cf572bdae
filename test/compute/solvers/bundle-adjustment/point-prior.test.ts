/**
 * Position priors on points in bundle adjustment (ba/point-prior.ts): their gradient and V
 * blocks against finite differences of the cost, and a block with no pose held that a few
 * surveyed points alone place in their frame and scale, with the camera priors beside them.
 */
import { describe, expect, it } from "vitest";
import { DEFAULTS, run, type BAProblem } from "../../../../compute/solvers/bundle-adjustment/index.js";
import { buildLayout } from "../../../../compute/solvers/bundle-adjustment/layout.js";
import { accumulatePointPriors, allocatePointPriorLinearization, pointPriorSquares } from "../../../../compute/solvers/bundle-adjustment/point-prior.js";
import { centerOf, cameraErrors } from "./alignment.js";
import { makeScene, perturbedCopy, Rng, similarityOf } from "./synthetic-scene.js";

/** Priors on `indices`: their true positions plus Gaussian noise of σ (horizontal on x, z; vertical on y). */
function pointPriorsFrom(truth: BAProblem, indices: number[], horizontal: number, vertical: number, seed: number): NonNullable<BAProblem["pointPrior"]> {
  const rng = new Rng(seed);
  const positions = new Float64Array(3 * indices.length);
  const sigmas = new Float64Array(3 * indices.length);
  indices.forEach((p, k) => {
    for (let a = 0; a < 3; a++) {
      const sigma = a === 1 ? vertical : horizontal;
      positions[3 * k + a] = truth.points[3 * p + a] + sigma * rng.normal();
      sigmas[3 * k + a] = sigma;
    }
  });
  return { points: Uint32Array.from(indices), positions, sigmas };
}

describe("ba: point position priors (ground control)", () => {
  const scene = makeScene();

  it("adds the gradient and the curvature of its cost to the points' blocks", () => {
    const problem = perturbedCopy(scene);
    problem.pointPrior = pointPriorsFrom(scene.truth, [3, 17, 40], 0.01, 0.03, 2);
    problem.pointPrior.sigmas[4] = 0; // one axis without a prior
    const layout = buildLayout(problem, { ...DEFAULTS, refineFocal: false, refineDistortion: false });
    const v = new Float64Array(9 * problem.pointCount);
    const gP = new Float64Array(3 * problem.pointCount);
    const lin = allocatePointPriorLinearization(problem)!;
    const sum = accumulatePointPriors(problem, layout, v, gP, lin);
    expect(sum).toBeCloseTo(pointPriorSquares(problem, problem.points), 9);
    const cost = (points: Float64Array) => 0.5 * pointPriorSquares(problem, points);
    const h = 1e-6;
    for (const p of [3, 17, 40, 5]) {
      for (let a = 0; a < 3; a++) {
        const plus = problem.points.slice();
        const minus = problem.points.slice();
        plus[3 * p + a] += h;
        minus[3 * p + a] -= h;
        expect(gP[3 * p + a]).toBeCloseTo((cost(plus) - cost(minus)) / (2 * h), 3);
        // The cost is quadratic in the point: its second difference (any step) is V's diagonal.
        const [wide, narrow] = [problem.points.slice(), problem.points.slice()];
        wide[3 * p + a] += 1e-2;
        narrow[3 * p + a] -= 1e-2;
        const second = (cost(wide) - 2 * cost(problem.points) + cost(narrow)) / 1e-4;
        const expected = p === 5 || (p === 17 && a === 1) ? 0 : a === 1 ? 1 / 0.03 ** 2 : 1 / 0.01 ** 2;
        expect(v[9 * p + 4 * a]).toBeCloseTo(second, 4);
        expect(v[9 * p + 4 * a]).toBeCloseTo(expected, 6);
      }
    }
  });

  it("places a block with no pose held in the control's frame and scale, the photos keeping its shape", () => {
    const truth = scene.truth;
    // The whole block moved, turned and scaled: only the control points can bring it back.
    const moved = perturbedCopy({ ...scene, truth: similarityOf(truth, 1.3, 0.4, [0.7, -0.2, 0.5]) });
    moved.fixedPose = new Uint8Array(truth.cameraCount);
    const control = [2, 50, 101, 160, 230];
    moved.pointPrior = pointPriorsFrom(truth, control, 0.005, 0.01, 5);
    const report = run(moved, { loss: "cauchy", lossScalePx: 1 });
    expect(report.warnings.join()).not.toMatch(/gauge/);
    expect(["function", "gradient", "parameter"]).toContain(report.termination);
    let worstCentre = 0;
    for (let c = 0; c < truth.cameraCount; c++) {
      const a = centerOf(moved, c);
      const b = centerOf(truth, c);
      worstCentre = Math.max(worstCentre, Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]));
    }
    let worstPoint = 0;
    for (let p = 0; p < truth.pointCount; p++) {
      worstPoint = Math.max(worstPoint, Math.hypot(...[0, 1, 2].map((a) => moved.points[3 * p + a] - truth.points[3 * p + a])));
    }
    // Five points of σ 5–10 mm in a box of side 2, cameras at distance 8: the block within a few σ.
    expect(worstCentre).toBeLessThan(0.08);
    expect(worstPoint).toBeLessThan(0.04);
    expect(report.finalRmsePx).toBeLessThan(0.6);
    // Without the priors (and nothing held) the block stays where it was moved to.
    const free = perturbedCopy({ ...scene, truth: similarityOf(truth, 1.3, 0.4, [0.7, -0.2, 0.5]) });
    free.fixedPose = new Uint8Array(truth.cameraCount);
    const freeReport = run(free, { loss: "cauchy", lossScalePx: 1 });
    expect(freeReport.warnings.join()).toMatch(/gauge/);
    expect(Math.hypot(...[0, 1, 2].map((a) => free.points[3 * 2 + a] - truth.points[3 * 2 + a]))).toBeGreaterThan(0.3);
  });

  it("holds the block beside camera priors, and refuses priors of the wrong shape", () => {
    const moved = perturbedCopy(scene);
    moved.fixedPose = new Uint8Array(moved.cameraCount);
    moved.pointPrior = pointPriorsFrom(scene.truth, [7, 90, 200], 0.005, 0.01, 9);
    const positions = new Float64Array(3 * moved.cameraCount);
    for (let c = 0; c < moved.cameraCount; c++) positions.set(centerOf(scene.truth, c), 3 * c);
    moved.centrePrior = { positions, sigmas: new Float64Array(3 * moved.cameraCount).fill(0.5) };
    const report = run(moved, { loss: "cauchy", lossScalePx: 1 });
    expect(report.finalRmsePx).toBeLessThan(0.6);
    expect(Math.hypot(...[0, 1, 2].map((a) => moved.points[3 * 90 + a] - scene.truth.points[3 * 90 + a]))).toBeLessThan(0.04);
    const bad = perturbedCopy(scene);
    bad.pointPrior = { points: Uint32Array.of(1, 1), positions: new Float64Array(6), sigmas: new Float64Array(6).fill(1) };
    expect(() => run(bad)).toThrow(/pointPrior lists a point twice/);
    bad.pointPrior = { points: Uint32Array.of(1), positions: new Float64Array(6), sigmas: new Float64Array(3) };
    expect(() => run(bad)).toThrow(/pointPrior needs 3 positions/);
  });

  it("gives a thread team the single thread's solution, the priors added once on the calling thread", () => {
    const make = () => {
      const problem = perturbedCopy({ ...scene, truth: similarityOf(scene.truth, 1.3, 0.4, [0.7, -0.2, 0.5]) });
      problem.fixedPose = new Uint8Array(problem.cameraCount);
      problem.pointPrior = pointPriorsFrom(scene.truth, [2, 50, 101, 160, 230], 0.005, 0.01, 5);
      return problem;
    };
    const single = make();
    const alone = run(single, { loss: "cauchy", threads: 1 });
    const shared = make();
    const report = run(shared, { loss: "cauchy", threads: 2, parallelMinObservations: 0 });
    expect(report.counts.threads).toBe(2);
    expect(report.iterations).toBe(alone.iterations);
    expect(Math.abs(report.finalCost / alone.finalCost - 1)).toBeLessThan(1e-9);
    expect(cameraErrors(shared, single).maxCenterError).toBeLessThan(1e-7);
    for (let k = 0; k < shared.points.length; k++) expect(Math.abs(shared.points[k] - single.points[k])).toBeLessThan(1e-7);
  });
});
