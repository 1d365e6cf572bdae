import { describe, expect, it } from "vitest";
import { DEFAULTS, NAME, reprojectionErrors, run } from "../../../../compute/solvers/bundle-adjustment/index.js";
import { cameraErrors } from "./alignment.js";
import { cloneProblem, injectOutliers, makeScene, perturbedCopy, projectPoint, rmsePx, Rng } from "./synthetic-scene.js";

/** Residuals minus free parameters, over residuals: the fraction of noise a least-squares fit cannot absorb. */
function noiseFloorFactor(observations: number, freeParameters: number): number {
  return Math.sqrt(1 - freeParameters / (2 * observations));
}

describe("ba/run on a synthetic ring scene (12 cameras, 400 points, σ = 0.5 px)", () => {
  const scene = makeScene();
  const truth = scene.truth;
  const trueRmse = rmsePx(truth);
  const focal = truth.intrinsics[0];

  it("converges from 1°, 2 %, 5 % focal and k1 = 0 to the noise floor and the true cameras", () => {
    const problem = perturbedCopy(scene);
    const before = cameraErrors(problem, truth);
    const report = run(problem, { loss: "cauchy", lossScalePx: 1 });
    expect(report.stage).toBe(NAME);
    expect(["function", "gradient", "parameter"]).toContain(report.termination);
    expect(report.linearSolver).toBe("dense-cholesky");
    expect(report.initialRmsePx).toBeGreaterThan(10);
    // 11 free poses, 400 points, focal + k1 + k2.
    const expected = trueRmse * noiseFloorFactor(truth.observationCount, 11 * 6 + 400 * 3 + 3);
    expect(report.finalRmsePx).toBeGreaterThan(0.9 * expected);
    expect(report.finalRmsePx).toBeLessThan(1.1 * expected);
    expect(report.finalRmsePx).toBeLessThan(trueRmse);
    expect(report.finalRmsePx).toBeCloseTo(rmsePx(problem), 9);
    const after = cameraErrors(problem, truth);
    expect(before.maxRotationDeg).toBeGreaterThan(0.5);
    expect(after.maxRotationDeg).toBeLessThan(0.06);
    expect(after.maxCenterError).toBeLessThan(0.005); // scene size 2
    expect(Math.abs(problem.intrinsics[0] / focal - 1)).toBeLessThan(0.005);
    expect(report.counts).toMatchObject({ freePoses: 11, intrinsicGroups: 1, freePoints: 400, observations: truth.observationCount });
  });

  it("squared and Huber losses converge too, squared to the lowest RMSE", () => {
    const results = (["squared", "huber", "cauchy"] as const).map((loss) => {
      const problem = perturbedCopy(scene);
      const report = run(problem, { loss });
      return { report, errors: cameraErrors(problem, truth) };
    });
    for (const { errors } of results) expect(errors.maxRotationDeg).toBeLessThan(0.06);
    expect(results[0].report.finalRmsePx).toBeLessThanOrEqual(results[1].report.finalRmsePx + 1e-9);
    expect(results[0].report.finalRmsePx).toBeLessThanOrEqual(results[2].report.finalRmsePx + 1e-9);
  });

  it("with 5 % gross outliers, Cauchy still recovers the scene and squared does not", () => {
    const corrupted = cloneProblem(truth);
    const outliers = injectOutliers(corrupted, 0.05, 5);
    expect(outliers.length).toBeGreaterThan(0.03 * truth.observationCount);
    const dirty = { truth: corrupted, spec: scene.spec };
    const robust = perturbedCopy(dirty);
    run(robust, { loss: "cauchy" });
    const plain = perturbedCopy(dirty);
    run(plain, { loss: "squared" });
    const robustErrors = cameraErrors(robust, truth);
    const plainErrors = cameraErrors(plain, truth);
    expect(robustErrors.maxRotationDeg).toBeLessThan(0.08);
    expect(robustErrors.maxCenterError).toBeLessThan(0.006);
    expect(Math.abs(robust.intrinsics[0] / focal - 1)).toBeLessThan(0.005);
    expect(plainErrors.maxRotationDeg).toBeGreaterThan(5 * robustErrors.maxRotationDeg);
    expect(Math.abs(plain.intrinsics[0] / focal - 1)).toBeGreaterThan(2 * Math.abs(robust.intrinsics[0] / focal - 1));

    // The caller's outlier filter: errors above 10 px are nearly all injected ones (a point
    // with most of its few views corrupted can drag a good observation along).
    const errors = reprojectionErrors(robust);
    const injected = new Set(outliers);
    let flagged = 0, correct = 0;
    errors.forEach((e, o) => {
      if (e <= 10) return;
      flagged++;
      if (injected.has(o)) correct++;
    });
    expect(correct).toBeGreaterThanOrEqual(0.97 * flagged);
    expect(flagged).toBeGreaterThan(0.95 * outliers.length);
  });

  it("honours fixedPose and fixedPoint bit for bit (local BA)", () => {
    const problem = perturbedCopy(scene);
    problem.fixedPose = new Uint8Array(truth.cameraCount);
    for (const c of [0, 1, 2, 7]) problem.fixedPose[c] = 1;
    problem.fixedPoint = new Uint8Array(truth.pointCount);
    for (let p = 0; p < 100; p++) problem.fixedPoint[p] = 1;
    const posesBefore = problem.poses.slice();
    const pointsBefore = problem.points.slice();
    const report = run(problem, { maxIterations: 10 });
    expect(report.finalCost).toBeLessThan(report.initialCost);
    expect(report.counts.freePoses).toBe(truth.cameraCount - 4);
    expect(report.counts.freePoints).toBe(truth.pointCount - 100);
    const bits = (a: Float64Array, from: number, to: number): Uint8Array => new Uint8Array(a.buffer, a.byteOffset + 8 * from, 8 * (to - from));
    for (const c of [0, 1, 2, 7]) expect(bits(problem.poses, 6 * c, 6 * c + 6)).toEqual(bits(posesBefore, 6 * c, 6 * c + 6));
    expect(bits(problem.points, 0, 300)).toEqual(bits(pointsBefore, 0, 300));
    expect(problem.poses.subarray(18, 24)).not.toEqual(posesBefore.subarray(18, 24));
    expect(problem.points.subarray(300, 303)).not.toEqual(pointsBefore.subarray(300, 303));
  });

  it("leaves intrinsics alone unless asked, and refines the principal point when asked", () => {
    const problem = perturbedCopy(scene, { focalFraction: 0, k1: truth.intrinsics[3] });
    problem.intrinsics[4] = truth.intrinsics[4];
    const intrinsicsBefore = problem.intrinsics.slice();
    run(problem, { refineFocal: false, refineDistortion: false });
    expect(problem.intrinsics).toEqual(intrinsicsBefore);

    const shifted = perturbedCopy(scene, { focalFraction: 0.02 });
    shifted.intrinsics[1] += 15;
    shifted.intrinsics[2] -= 10;
    const report = run(shifted, { refinePrincipalPoint: true });
    expect(report.counts.reducedSize).toBe(11 * 6 + 5);
    // The principal point trades off against rotation over this narrow field of view, so it
    // is only expected to move most of the way back (the initial offset is 18 px).
    const ppError = Math.hypot(shifted.intrinsics[1] - truth.intrinsics[1], shifted.intrinsics[2] - truth.intrinsics[2]);
    expect(ppError).toBeLessThan(9);
    expect(report.finalRmsePx).toBeLessThan(trueRmse);
  });

  it("reaches the same solution with implicit-Schur PCG as with dense Cholesky", () => {
    const dense = perturbedCopy(scene);
    const denseReport = run(dense, { loss: "squared" });
    const iterative = perturbedCopy(scene);
    const pcgReport = run(iterative, { loss: "squared", denseSchurMaxCameras: 0 });
    expect(pcgReport.linearSolver).toBe("pcg");
    expect(pcgReport.counts.pcgIterations).toBeGreaterThan(0);
    expect(Math.abs(pcgReport.finalCost / denseReport.finalCost - 1)).toBeLessThan(1e-5);
    // The two may stop at different points along the free scale gauge, so compare after alignment.
    const between = cameraErrors(iterative, dense);
    expect(between.maxRotationDeg).toBeLessThan(1e-3);
    expect(between.maxCenterError).toBeLessThan(1e-4);
    expect(Math.abs(dense.intrinsics[0] - iterative.intrinsics[0])).toBeLessThan(0.05);
  });

  it("with two intrinsics groups, recovers each group's own focal", () => {
    const twoGroups = cloneProblem(truth);
    twoGroups.intrinsics = Float64Array.from([...truth.intrinsics, 1500, 800, 600, -0.02, 0]);
    twoGroups.intrinsicsGroup = Uint32Array.from({ length: truth.cameraCount }, (_, c) => c % 2);
    for (let o = 0; o < twoGroups.observationCount; o++) {
      if (twoGroups.intrinsicsGroup[twoGroups.obsCamera[o]] !== 1) continue;
      // Re-observe through the second camera with the same noise as the first had.
      const p = twoGroups.obsPoint[o];
      const c = twoGroups.obsCamera[o];
      const before = projectPoint(truth, c, truth.points.subarray(3 * p, 3 * p + 3));
      const after = projectPoint(twoGroups, c, truth.points.subarray(3 * p, 3 * p + 3));
      twoGroups.obsXY[2 * o] += after[0] - before[0];
      twoGroups.obsXY[2 * o + 1] += after[1] - before[1];
    }
    const start = perturbedCopy({ truth: twoGroups, spec: scene.spec });
    const report = run(start);
    expect(report.counts.intrinsicGroups).toBe(2);
    expect(Math.abs(start.intrinsics[0] / 1200 - 1)).toBeLessThan(0.005);
    expect(Math.abs(start.intrinsics[5] / 1500 - 1)).toBeLessThan(0.005);
  });
});

describe("ba/run edge cases", () => {
  it("rejects out-of-range indices at the entry point", () => {
    const { truth } = makeScene({ cameras: 4, points: 20 });
    const bad = cloneProblem(truth);
    bad.obsCamera = bad.obsCamera.slice();
    bad.obsCamera[3] = 9;
    expect(() => run(bad)).toThrow(/^ba: obsCamera\[3\]/);
    expect(() => run(cloneProblem(truth), { lossScalePx: 0 })).toThrow(/^ba: lossScalePx/);
  });

  it("stops at once when nothing is variable, and warns when no pose is fixed", () => {
    const { truth } = makeScene({ cameras: 4, points: 20 });
    const frozen = cloneProblem(truth);
    frozen.fixedPose = new Uint8Array(4).fill(1);
    frozen.fixedPoint = new Uint8Array(20).fill(1);
    const report = run(frozen, { refineFocal: false, refineDistortion: false });
    expect(report.termination).toBe("no-variables");
    expect(report.iterations).toBe(0);
    expect(report.finalCost).toBe(report.initialCost);
    expect(run(cloneProblem(truth), { maxIterations: 2 }).warnings.join()).toMatch(/no pose is fixed/);
  });

  it("reprojectionErrors agrees with an independent projection", () => {
    const { truth } = makeScene({ cameras: 5, points: 30 });
    const errors = reprojectionErrors(truth, new Float64Array(truth.observationCount));
    for (let o = 0; o < truth.observationCount; o++) {
      const p = truth.obsPoint[o];
      const [x, y] = projectPoint(truth, truth.obsCamera[o], truth.points.subarray(3 * p, 3 * p + 3));
      expect(errors[o]).toBeCloseTo(Math.hypot(x - truth.obsXY[2 * o], y - truth.obsXY[2 * o + 1]), 9);
    }
  });

  it("has documented defaults, which options passed as undefined do not erase", () => {
    expect(DEFAULTS).toMatchObject({ loss: "cauchy", lossScalePx: 1, refinePrincipalPoint: false, maxIterations: 50 });
    const { truth } = makeScene({ cameras: 4, points: 20 });
    const report = run(cloneProblem(truth), { lossScalePx: undefined, maxIterations: 3 });
    expect(report.iterations).toBeLessThanOrEqual(3);
  });
});

describe("ba/run with per-observation standard deviations (obsSigma)", () => {
  // Half the observations (say, keypoints found at a coarse scale) get 3 px more noise.
  const scene = makeScene({ seed: 31 });
  const noisy = cloneProblem(scene.truth);
  const rng = new Rng(32);
  const sigma = new Float64Array(noisy.observationCount).fill(1);
  for (let o = 0; o < noisy.observationCount; o++) {
    if (rng.uniform() < 0.5) continue;
    noisy.obsXY[2 * o] += 3 * rng.normal();
    noisy.obsXY[2 * o + 1] += 3 * rng.normal();
    sigma[o] = Math.hypot(3, scene.spec.noisePx) / scene.spec.noisePx;
  }
  const dirty = { truth: noisy, spec: scene.spec };

  it("weighs the noisier observations less, and lands nearer the true cameras", () => {
    const plain = perturbedCopy(dirty);
    run(plain, { loss: "squared" });
    const weighted = perturbedCopy(dirty);
    weighted.obsSigma = sigma;
    const report = run(weighted, { loss: "squared" });
    const plainErrors = cameraErrors(plain, scene.truth);
    const weightedErrors = cameraErrors(weighted, scene.truth);
    expect(weightedErrors.maxRotationDeg).toBeLessThan(0.7 * plainErrors.maxRotationDeg);
    expect(weightedErrors.maxCenterError).toBeLessThan(0.7 * plainErrors.maxCenterError);
    // The reported RMSE stays in plain pixels; the weighted fit leaves more of it than the plain one.
    expect(report.finalRmsePx).toBeCloseTo(rmsePx(weighted), 9);
    expect(report.finalRmsePx).toBeGreaterThan(rmsePx(plain));
  });

  it("gives the plain solution when every σ is 1, and rejects a σ that is not positive", () => {
    const plain = perturbedCopy(dirty);
    run(plain);
    const ones = perturbedCopy(dirty);
    ones.obsSigma = new Float64Array(ones.observationCount).fill(1);
    run(ones);
    expect(Array.from(ones.poses)).toEqual(Array.from(plain.poses));
    const bad = perturbedCopy(dirty);
    bad.obsSigma = new Float64Array(bad.observationCount).fill(1);
    bad.obsSigma[3] = 0;
    expect(() => run(bad)).toThrow(/obsSigma/);
  });
});
