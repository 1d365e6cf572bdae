import { describe, expect, it } from "vitest";
import { eightPoint, estimateFundamental, isRank2, sampsonError, sevenPoint } from "../../../compute/geometry/fundamental.js";
import { depthInCamera, triangulateMultiView, triangulateTwoView, triangulationAngleDeg } from "../../../compute/geometry/triangulation.js";
import { identityTransform, poseCenter, transformPoint } from "../../../compute/geometry/types.js";
import { angleAxisToMatrix } from "../../../compute/geometry/rotation.js";
import { createRng, gaussian } from "../../../compute/math/random.js";
import { bestMatchUpToSign, twoViewScene } from "./synthetic.js";

/** F = K⁻ᵀ·E·K⁻¹ for K = [[f, 0, cx], [0, f, cy], [0, 0, 1]]; and pixel coordinates. */
function toPixels(xy: Float64Array, focal: number, cx: number, cy: number): Float64Array {
  return xy.map((v, i) => (i % 2 === 0 ? focal * v + cx : focal * v + cy));
}

describe("geometry/triangulation", () => {
  it("is exact without noise, two-view and multi-view, and reports depth and angle", () => {
    const rng = createRng(8);
    const poses = [identityTransform()];
    for (let k = 1; k < 4; k++) {
      poses.push({ R: angleAxisToMatrix([0.1 * gaussian(rng), 0.2 * gaussian(rng), 0.05]), t: new Float64Array([-k * 0.5, 0.1 * k, 0.05]) });
    }
    for (let trial = 0; trial < 20; trial++) {
      const X = [gaussian(rng), gaussian(rng), 5 + gaussian(rng)];
      const obs = new Float64Array(8);
      poses.forEach((pose, k) => {
        const Xc = transformPoint(pose, X);
        obs[2 * k] = Xc[0] / Xc[2];
        obs[2 * k + 1] = Xc[1] / Xc[2];
      });
      const two = triangulateTwoView(poses[0], poses[1], obs.subarray(0, 2), obs.subarray(2, 4))!;
      const multi = triangulateMultiView(poses, obs, 4)!;
      for (let c = 0; c < 3; c++) {
        expect(Math.abs(two[c] - X[c])).toBeLessThan(1e-9);
        expect(Math.abs(multi[c] - X[c])).toBeLessThan(1e-9);
      }
      expect(depthInCamera(poses[0], X)).toBeCloseTo(X[2], 12);
    }
    const angle = triangulationAngleDeg([0, 0, 0], [2, 0, 0], [1, 0, 1]);
    expect(angle).toBeCloseTo(90, 10);
    expect(poseCenter({ R: identityTransform().R, t: new Float64Array([1, 2, 3]) })).toEqual(new Float64Array([-1, -2, -3]));
  });

  it("multi-view Gauss–Newton lowers the error of noisy DLT", () => {
    const rng = createRng(9);
    const poses = [0, 1, 2, 3, 4].map((k) => ({ R: angleAxisToMatrix([0, -0.08 * k, 0]), t: new Float64Array([-0.4 * k, 0, 0]) }));
    const X = [0.3, -0.2, 6];
    const obs = new Float64Array(10);
    poses.forEach((pose, k) => {
      const Xc = transformPoint(pose, X);
      obs[2 * k] = Xc[0] / Xc[2] + 1e-3 * gaussian(rng);
      obs[2 * k + 1] = Xc[1] / Xc[2] + 1e-3 * gaussian(rng);
    });
    const result = triangulateMultiView(poses, obs, 5)!;
    expect(Math.hypot(result[0] - X[0], result[1] - X[1], result[2] - X[2])).toBeLessThan(0.05);
    expect(triangulateMultiView(poses, obs, 1)).toBeNull();
  });
});

describe("geometry/fundamental", () => {
  const focal = 800, cx = 640, cy = 480;
  it("8-point and 7-point are exact on noise-free pixel correspondences", () => {
    const rng = createRng(10);
    const scene = twoViewScene(rng, 30, { focal, noisePx: 0, outlierRatio: 0 });
    const p1 = toPixels(scene.x1, focal, cx, cy);
    const p2 = toPixels(scene.x2, focal, cx, cy);
    const F = eightPoint(p1, p2, 30)!;
    expect(isRank2(F)).toBe(true);
    for (let i = 0; i < 30; i++) expect(Math.sqrt(sampsonError(F, p1, p2, i))).toBeLessThan(1e-6);
    const seven = sevenPoint(p1, p2, [0, 3, 6, 9, 12, 15, 18]);
    expect(seven.length).toBeGreaterThan(0);
    expect(bestMatchUpToSign(F, seven)).toBeLessThan(1e-6);
  });

  it("estimateFundamental separates 30% outliers with 1 px noise", () => {
    const rng = createRng(11);
    const scene = twoViewScene(rng, 200, { focal, noisePx: 1, outlierRatio: 0.3 });
    const p1 = toPixels(scene.x1, focal, cx, cy);
    const p2 = toPixels(scene.x2, focal, cx, cy);
    const estimate = estimateFundamental(p1, p2, 200, { thresholdPx: 3, confidence: 0.999, maxIterations: 2000, rng: createRng(1) })!;
    let truePositives = 0, falsePositives = 0, inlierTotal = 0;
    for (let i = 0; i < 200; i++) {
      if (!scene.isOutlier[i]) inlierTotal++;
      if (estimate.inliers[i] && !scene.isOutlier[i]) truePositives++;
      if (estimate.inliers[i] && scene.isOutlier[i]) falsePositives++;
    }
    expect(truePositives).toBeGreaterThan(0.95 * inlierTotal);
    expect(falsePositives).toBeLessThan(8);
    // The noise-free correspondences fit the estimate to about the noise level.
    const clean = twoViewScene(createRng(11), 200, { focal, noisePx: 0, outlierRatio: 0.3 });
    const c1 = toPixels(clean.x1, focal, cx, cy);
    const c2 = toPixels(clean.x2, focal, cx, cy);
    let sum = 0, n = 0;
    for (let i = 0; i < 200; i++) if (!clean.isOutlier[i]) { sum += Math.sqrt(sampsonError(estimate.F, c1, c2, i)); n++; }
    expect(sum / n).toBeLessThan(0.6);
  });
});
