import { describe, expect, it } from "vitest";
import { JAC, projectResidual, projectWithJacobian } from "../../../../compute/solvers/bundle-adjustment/projection.js";
import { angleAxisToMatrix, matrixToAngleAxis, perturbRotationLeft } from "../../../../compute/solvers/bundle-adjustment/rotation.js";
import { Rng } from "./synthetic-scene.js";

interface Config {
  pose: Float64Array;
  point: Float64Array;
  intrinsics: Float64Array;
  obs: Float64Array;
}

function randomConfig(rng: Rng): Config {
  const pose = new Float64Array(6);
  for (let i = 0; i < 3; i++) pose[i] = 2 * (rng.uniform() - 0.5) * 1.5;
  for (let i = 3; i < 6; i++) pose[i] = rng.normal();
  // Place the point in front of the camera: X = Rᵀ(x_cam − t) with x_cam at depth 2–6.
  const R = new Float64Array(9);
  angleAxisToMatrix(pose, 0, R, 0);
  const xc = [0.4 * rng.normal(), 0.4 * rng.normal(), 2 + 4 * rng.uniform()];
  const d = [xc[0] - pose[3], xc[1] - pose[4], xc[2] - pose[5]];
  const point = Float64Array.from([0, 1, 2].map((j) => R[j] * d[0] + R[3 + j] * d[1] + R[6 + j] * d[2]));
  const intrinsics = Float64Array.from([900 + 400 * rng.uniform(), 640 + 10 * rng.normal(), 480 + 10 * rng.normal(), 0.1 * rng.normal(), 0.05 * rng.normal()]);
  const obs = Float64Array.from([640 + 100 * rng.normal(), 480 + 100 * rng.normal()]);
  return { pose, point, intrinsics, obs };
}

function residualOf(cfg: Config): [number, number] {
  const R = new Float64Array(9);
  angleAxisToMatrix(cfg.pose, 0, R, 0);
  const out = new Float64Array(2);
  projectResidual(R, 0, cfg.pose, 0, cfg.point, 0, cfg.intrinsics, 0, cfg.obs, 0, out, 0);
  return [out[0], out[1]];
}

function clone(cfg: Config): Config {
  return { pose: cfg.pose.slice(), point: cfg.point.slice(), intrinsics: cfg.intrinsics.slice(), obs: cfg.obs };
}

/** Central difference of the residual along one parameter, given a function that moves it by h. */
function centralDifference(cfg: Config, h: number, move: (c: Config, step: number) => void): [number, number] {
  const plus = clone(cfg);
  move(plus, h);
  const minus = clone(cfg);
  move(minus, -h);
  const rp = residualOf(plus), rm = residualOf(minus);
  return [(rp[0] - rm[0]) / (2 * h), (rp[1] - rm[1]) / (2 * h)];
}

/** ‖analytic − numeric‖ / ‖analytic‖ over a 2×cols block. */
function relativeError(analytic: Float64Array, offset: number, cols: number, numeric: Array<[number, number]>): number {
  let diff = 0, norm = 0;
  for (let k = 0; k < cols; k++) {
    for (let row = 0; row < 2; row++) {
      const a = analytic[offset + row * cols + k];
      diff += (a - numeric[k][row]) ** 2;
      norm += a * a;
    }
  }
  return Math.sqrt(diff / norm);
}

describe("ba/projection", () => {
  it("matches the RADIAL model's residual in both entry points", () => {
    const cfg = randomConfig(new Rng(3));
    const R = new Float64Array(9);
    angleAxisToMatrix(cfg.pose, 0, R, 0);
    const out = new Float64Array(JAC.size);
    const squared = projectWithJacobian(R, 0, cfg.pose, 0, cfg.point, 0, cfg.intrinsics, 0, cfg.obs, 0, out);
    const [ex, ey] = residualOf(cfg);
    expect(out[0]).toBeCloseTo(ex, 9);
    expect(out[1]).toBeCloseTo(ey, 9);
    expect(squared).toBeCloseTo(ex * ex + ey * ey, 6);
  });

  it("has analytic Jacobians equal to central differences to 1e-6 relative", () => {
    const rng = new Rng(11);
    for (let trial = 0; trial < 25; trial++) {
      const cfg = randomConfig(rng);
      const R = new Float64Array(9);
      angleAxisToMatrix(cfg.pose, 0, R, 0);
      const out = new Float64Array(JAC.size);
      projectWithJacobian(R, 0, cfg.pose, 0, cfg.point, 0, cfg.intrinsics, 0, cfg.obs, 0, out);

      const delta = new Float64Array(3);
      const pose: Array<[number, number]> = [];
      for (let k = 0; k < 3; k++) {
        pose.push(centralDifference(cfg, 1e-6, (c, h) => {
          delta.fill(0);
          delta[k] = h;
          perturbRotationLeft(c.pose, 0, delta, 0);
        }));
      }
      for (let k = 0; k < 3; k++) pose.push(centralDifference(cfg, 1e-6, (c, h) => (c.pose[3 + k] += h)));
      const point = [0, 1, 2].map((k) => centralDifference(cfg, 1e-6, (c, h) => (c.point[k] += h)));
      const steps = [1e-4, 1e-4, 1e-4, 1e-7, 1e-7];
      const intrinsics = [0, 1, 2, 3, 4].map((k) => centralDifference(cfg, steps[k], (c, h) => (c.intrinsics[k] += h)));

      expect(relativeError(out, JAC.pose, 6, pose)).toBeLessThan(1e-6);
      expect(relativeError(out, JAC.point, 3, point)).toBeLessThan(1e-6);
      expect(relativeError(out, JAC.intrinsics, 5, intrinsics)).toBeLessThan(1e-6);
    }
  });
});

describe("ba/rotation", () => {
  it("round-trips angle-axis through the matrix, near 0, generic and near π", () => {
    const R = new Float64Array(9);
    const back = new Float64Array(3);
    const cases = [[1e-12, -2e-12, 3e-12], [0.3, -0.2, 0.1], [1.2, 0.4, -2.0], [0, 0, Math.PI - 1e-9], [Math.PI / Math.SQRT2 - 1e-7, -Math.PI / Math.SQRT2, 0]];
    for (const w of cases) {
      angleAxisToMatrix(w, 0, R, 0);
      matrixToAngleAxis(R, 0, back, 0);
      for (let i = 0; i < 3; i++) expect(Math.abs(back[i] - w[i])).toBeLessThan(1e-7);
    }
  });

  it("perturbs on the left: exp(δ)·R", () => {
    const w = new Float64Array([0.5, -1.1, 0.7]);
    const d = new Float64Array([0.02, 0.03, -0.01]);
    const Rw = new Float64Array(9), Rd = new Float64Array(9), got = new Float64Array(9);
    angleAxisToMatrix(w, 0, Rw, 0);
    angleAxisToMatrix(d, 0, Rd, 0);
    perturbRotationLeft(w, 0, d, 0);
    angleAxisToMatrix(w, 0, got, 0);
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) {
        const expected = Rd[3 * i] * Rw[j] + Rd[3 * i + 1] * Rw[3 + j] + Rd[3 * i + 2] * Rw[6 + j];
        expect(Math.abs(got[3 * i + j] - expected)).toBeLessThan(1e-12);
      }
    }
  });
});
