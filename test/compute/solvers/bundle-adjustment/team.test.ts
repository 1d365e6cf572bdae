import { describe, expect, it } from "vitest";
import { run } from "../../../../compute/solvers/bundle-adjustment/index.js";
import { BaTeam } from "../../../../compute/solvers/bundle-adjustment/team.js";
import type { SharedSolve } from "../../../../compute/solvers/bundle-adjustment/team-kernels.js";
import { cameraErrors } from "./alignment.js";
import { injectOutliers, makeScene, perturbedCopy } from "./synthetic-scene.js";

// A team's threads add their partial sums in another order than one thread does, so the
// solutions agree to rounding, not bit for bit; both are compared with the truth too.
describe("ba with a thread team", () => {
  const scene = makeScene({ cameras: 24, points: 1500, seed: 7 });

  it("reaches the single thread's solution, iteration for iteration, on 2 and 3 threads", () => {
    const single = perturbedCopy(scene);
    const alone = run(single, { loss: "cauchy", threads: 1 });
    expect(alone.counts.threads).toBe(1);
    for (const threads of [2, 3]) {
      const shared = perturbedCopy(scene);
      const report = run(shared, { loss: "cauchy", threads, parallelMinObservations: 0 });
      expect(report.counts.threads).toBe(threads);
      expect(report.iterations).toBe(alone.iterations);
      expect(report.termination).toBe(alone.termination);
      expect(Math.abs(report.initialCost / alone.initialCost - 1)).toBeLessThan(1e-12);
      expect(Math.abs(report.finalCost / alone.finalCost - 1)).toBeLessThan(1e-9);
      // Measured: centres 3e-15 apart, points 5e-10, focal identical; the rotation measure's
      // own resolution (an arccos near 1) is about 1e-6°.
      const between = cameraErrors(shared, single);
      expect(between.maxRotationDeg).toBeLessThan(1e-5);
      expect(between.maxCenterError).toBeLessThan(1e-9);
      expect(Math.abs(shared.intrinsics[0] - single.intrinsics[0])).toBeLessThan(1e-6);
      for (let k = 0; k < shared.points.length; k++) expect(Math.abs(shared.points[k] - single.points[k])).toBeLessThan(1e-7);
      // The solution is the truth's, not only the single thread's.
      expect(cameraErrors(shared, scene.truth).maxRotationDeg).toBeLessThan(0.06);
    }
  });

  it("handles fixed poses and points, outliers and two intrinsics groups like one thread", () => {
    const make = () => {
      const problem = perturbedCopy(scene);
      problem.fixedPose = new Uint8Array(problem.cameraCount);
      problem.fixedPose[0] = problem.fixedPose[5] = 1;
      problem.fixedPoint = new Uint8Array(problem.pointCount);
      for (let p = 0; p < problem.pointCount; p += 17) problem.fixedPoint[p] = 1;
      problem.intrinsicsGroup = Uint32Array.from({ length: problem.cameraCount }, (_, c) => c % 2);
      problem.intrinsics = Float64Array.from([...problem.intrinsics, ...problem.intrinsics]);
      injectOutliers(problem, 0.03, 11);
      return problem;
    };
    const single = make();
    const alone = run(single, { loss: "cauchy", threads: 1, refinePrincipalPoint: true });
    const shared = make();
    const report = run(shared, { loss: "cauchy", threads: 2, parallelMinObservations: 0, refinePrincipalPoint: true });
    expect(report.counts.threads).toBe(2);
    expect(report.iterations).toBe(alone.iterations);
    expect(Math.abs(report.finalCost / alone.finalCost - 1)).toBeLessThan(1e-9);
    for (let k = 0; k < shared.poses.length; k++) expect(Math.abs(shared.poses[k] - single.poses[k])).toBeLessThan(1e-7);
    for (let k = 0; k < shared.intrinsics.length; k++) expect(Math.abs(shared.intrinsics[k] - single.intrinsics[k])).toBeLessThan(1e-5);
  });

  it("runs small problems on the calling thread alone", () => {
    const problem = perturbedCopy(scene);
    const report = run(problem, { threads: 2, parallelMinObservations: problem.observationCount + 1 });
    expect(report.counts.threads).toBe(1);
  });

  it("reuses its team from one solve to the next", () => {
    for (let k = 0; k < 3; k++) {
      const problem = perturbedCopy(scene);
      const report = run(problem, { threads: 2, parallelMinObservations: 0, maxIterations: 3 });
      expect(report.counts.threads).toBe(2);
      expect(report.finalCost).toBeLessThan(report.initialCost);
    }
  });

  it("frees its shared memory when it is closed, and the next solve starts a new team", () => {
    const problem = perturbedCopy(scene);
    expect(run(problem, { threads: 2, parallelMinObservations: 0, maxIterations: 2 }).counts.threads).toBe(2);
    const team = BaTeam.get(2);
    expect(team.arena.capacity).toBeGreaterThan(1 << 20);
    BaTeam.close();
    // Nothing of the closed team's memory is held, whoever still references the team.
    expect(team.arena.capacity).toBe(0);
    expect(BaTeam.get(2)).not.toBe(team);
    const again = perturbedCopy(scene);
    expect(run(again, { threads: 2, parallelMinObservations: 0 }).counts.threads).toBe(2);
    expect(cameraErrors(again, scene.truth).maxRotationDeg).toBeLessThan(0.06);
  });

  it("fails with the worker's own error, never a silent wait, and the next solve starts a new team", () => {
    const team = BaTeam.get(2);
    // A solve without the worker's partial arrays: the worker cannot build its share.
    const broken = { threads: 2, cameraPartials: [], densePartials: [], rhsPartials: [] } as unknown as SharedSolve;
    expect(() => team.bind(broken)).toThrow(/a worker thread of the bundle-adjustment team failed: thread 1: TypeError/);
    expect(BaTeam.get(2)).not.toBe(team);
    const problem = perturbedCopy(scene);
    const report = run(problem, { threads: 2, parallelMinObservations: 0 });
    expect(report.counts.threads).toBe(2);
    expect(cameraErrors(problem, scene.truth).maxRotationDeg).toBeLessThan(0.06);
  });
});
