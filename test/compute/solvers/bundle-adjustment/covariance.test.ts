/**
 * Camera centre covariances from bundle adjustment (ba/covariance.ts) against Monte Carlo: the
 * same synthetic scene solved 30 times with fresh pixel noise (and fresh GPS noise where the
 * priors hold the block), the spread of the solved centres compared with the predicted σ.
 * Without priors the solved centres are brought onto the true ones by a least-squares
 * similarity, which is the inner-constraints datum the prediction is given in.
 */
import { describe, expect, it } from "vitest";
import { run, type BAProblem } from "../../../../compute/solvers/bundle-adjustment/index.js";
import { centreCovariances } from "../../../../compute/solvers/bundle-adjustment/covariance.js";
import { alignSimilarity, centerOf } from "./alignment.js";
import { cloneProblem, injectOutliers, makeScene, Rng } from "./synthetic-scene.js";

const RUNS = 30;
const scene = makeScene({ cameras: 8, points: 300, noisePx: 0, seed: 5, minViews: 3, maxViews: 6 });
const trueCentres = Array.from({ length: scene.truth.cameraCount }, (_, c) => centerOf(scene.truth, c));

/** The truth with fresh pixel noise of `noisePx` (and GPS priors of σ `priorSigma` with fresh noise), solved with the squared loss. */
function solvedWithNoise(seed: number, noisePx: number, priorSigma?: number): BAProblem {
  const rng = new Rng(seed);
  const problem = cloneProblem(scene.truth);
  for (let i = 0; i < problem.obsXY.length; i++) problem.obsXY[i] += noisePx * rng.normal();
  if (priorSigma !== undefined) {
    const positions = new Float64Array(3 * problem.cameraCount);
    trueCentres.forEach((c, k) => c.forEach((x, a) => (positions[3 * k + a] = x + priorSigma * rng.normal())));
    problem.centrePrior = { positions, sigmas: new Float64Array(3 * problem.cameraCount).fill(priorSigma) };
  } else {
    problem.fixedPose = new Uint8Array(problem.cameraCount);
    problem.fixedPose[0] = 1;
  }
  const report = run(problem, { loss: "squared", maxIterations: 100 });
  expect(["function", "gradient", "parameter"]).toContain(report.termination);
  return problem;
}

/** Per camera and axis, the Monte Carlo variance of the solved centres about the truth (after a similarity when `align`). */
function monteCarloVariances(noisePx: number, priorSigma: number | undefined, align: boolean): Float64Array {
  const variances = new Float64Array(3 * scene.truth.cameraCount);
  for (let r = 0; r < RUNS; r++) {
    const solved = solvedWithNoise(1000 + r, noisePx, priorSigma);
    let centres = trueCentres.map((_, c) => centerOf(solved, c));
    if (align) {
      const sim = alignSimilarity(centres, trueCentres);
      centres = centres.map((p) => [0, 1, 2].map((i) => sim.scale * (sim.R[3 * i] * p[0] + sim.R[3 * i + 1] * p[1] + sim.R[3 * i + 2] * p[2]) + sim.t[i]));
    }
    centres.forEach((p, c) => p.forEach((x, a) => (variances[3 * c + a] += (x - trueCentres[c][a]) ** 2 / RUNS)));
  }
  return variances;
}

function compare(predicted: Float64Array, measured: Float64Array): void {
  const cameras = scene.truth.cameraCount;
  for (let c = 0; c < cameras; c++) {
    const predicted3d = Math.sqrt(predicted[9 * c] + predicted[9 * c + 4] + predicted[9 * c + 8]);
    const measured3d = Math.sqrt(measured[3 * c] + measured[3 * c + 1] + measured[3 * c + 2]);
    expect(predicted3d / measured3d, `camera ${c}`).toBeGreaterThan(0.7);
    expect(predicted3d / measured3d, `camera ${c}`).toBeLessThan(1.3);
  }
  for (let a = 0; a < 3; a++) {
    let p = 0;
    let m = 0;
    for (let c = 0; c < cameras; c++) {
      p += predicted[9 * c + 4 * a];
      m += measured[3 * c + a];
    }
    expect(Math.sqrt(p / m), `axis ${a}`).toBeGreaterThan(0.7);
    expect(Math.sqrt(p / m), `axis ${a}`).toBeLessThan(1.3);
  }
}

describe("ba: camera centre covariances", () => {
  it("predicts the Monte Carlo spread of a block with no priors (inner constraints on the centres)", () => {
    const solved = solvedWithNoise(7, 0.5);
    solved.fixedPose = undefined;
    const result = centreCovariances(solved, { loss: "squared" });
    expect(result.failed).toBeUndefined();
    expect(result.gauge).toBe("inner-constraints");
    expect(result.freeGaugeDirections).toBe(7);
    expect(result.inverse).toBe("dense");
    expect(result.sigma0).toBeGreaterThan(0.45);
    expect(result.sigma0).toBeLessThan(0.55);
    compare(result.covariances, monteCarloVariances(0.5, undefined, true));
  });

  it("predicts the Monte Carlo spread of a block held by GPS priors, with no pose held", () => {
    const solved = solvedWithNoise(7, 1, 0.05);
    const result = centreCovariances(solved, { loss: "squared" });
    expect(result.failed).toBeUndefined();
    expect(result.gauge).toBe("priors");
    expect(result.freeGaugeDirections).toBe(0);
    expect(result.sigma0).toBeGreaterThan(0.85);
    expect(result.sigma0).toBeLessThan(1.15);
    compare(result.covariances, monteCarloVariances(1, 0.05, false));
  });

  it("leaves only the scale free with one pose held, and that camera without uncertainty", () => {
    const solved = solvedWithNoise(7, 0.5);
    const result = centreCovariances(solved, { loss: "squared" });
    expect(result.gauge).toBe("inner-constraints");
    expect(result.freeGaugeDirections).toBe(1);
    expect(Array.from(result.covariances.subarray(0, 9))).toEqual(new Array(9).fill(0));
    for (let c = 1; c < scene.truth.cameraCount; c++) expect(result.covariances[9 * c]).toBeGreaterThan(0);
  });

  it("inverts each camera's own block above denseMaxCameras, which is never larger than the full inverse", () => {
    const solved = solvedWithNoise(7, 1, 0.05);
    const full = centreCovariances(solved, { loss: "squared" });
    const blocks = centreCovariances(solved, { loss: "squared", denseMaxCameras: 2 });
    expect(blocks.inverse).toBe("camera-blocks");
    expect(blocks.warnings.join(" ")).toMatch(/optimistic/);
    for (let c = 0; c < scene.truth.cameraCount; c++) {
      const traceFull = full.covariances[9 * c] + full.covariances[9 * c + 4] + full.covariances[9 * c + 8];
      const traceBlock = blocks.covariances[9 * c] + blocks.covariances[9 * c + 4] + blocks.covariances[9 * c + 8];
      expect(traceBlock).toBeGreaterThan(0);
      expect(traceBlock).toBeLessThanOrEqual(traceFull * (1 + 1e-9));
    }
  });
});

describe("ba: camera centre covariances under a robust loss", () => {
  it("weighs gross outliers by the loss's final weights, so σ₀ stays at the inliers' noise", () => {
    const problem = cloneProblem(scene.truth);
    const rng = new Rng(21);
    for (let i = 0; i < problem.obsXY.length; i++) problem.obsXY[i] += 0.5 * rng.normal();
    const outliers = injectOutliers(problem, 0.02, 5);
    expect(outliers.length).toBeGreaterThan(10);
    problem.fixedPose = new Uint8Array(problem.cameraCount);
    problem.fixedPose[0] = 1;
    run(problem, { loss: "cauchy", lossScalePx: 1, maxIterations: 100 });
    const robust = centreCovariances(problem, { loss: "cauchy", lossScalePx: 1 });
    const plain = centreCovariances(problem, { loss: "squared" });
    expect(robust.sigma0).toBeGreaterThan(0.35);
    expect(robust.sigma0).toBeLessThan(0.6);
    // Read as squared, the 20–100 px outliers dominate σ₀ and every σ with it.
    expect(plain.sigma0).toBeGreaterThan(4 * robust.sigma0);
    expect(plain.covariances[9 * 3]).toBeGreaterThan(robust.covariances[9 * 3]);
  });
});
