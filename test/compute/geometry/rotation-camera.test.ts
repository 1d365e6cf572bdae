import { describe, expect, it } from "vitest";
import { distort, normalizePoints, project, undistortPoint } from "../../../compute/geometry/camera.js";
import {
  angleAxisToMatrix,
  matrixToAngleAxis,
  matrixToQuaternion,
  orthonormalize,
  quaternionToMatrix,
  rotationAngleDeg,
} from "../../../compute/geometry/rotation.js";
import { composeTransforms, invertTransform, transformPoint } from "../../../compute/geometry/types.js";
import { mat3Det, mat3Mul, mat3Transpose } from "../../../compute/math/linalg.js";
import { createRng, gaussian } from "../../../compute/math/random.js";

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
}

describe("geometry/rotation", () => {
  it("round-trips angle-axis and quaternions, including angles near 0 and π", () => {
    const rng = createRng(5);
    const angles = [1e-9, 1e-4, 0.5, 2, Math.PI - 1e-6];
    for (const angle of angles) {
      const axis = [gaussian(rng), gaussian(rng), gaussian(rng)];
      const n = Math.hypot(...axis);
      const aa = axis.map((v) => (v / n) * angle);
      const R = angleAxisToMatrix(aa);
      expect(maxAbsDiff(mat3Mul(R, mat3Transpose(R)), [1, 0, 0, 0, 1, 0, 0, 0, 1])).toBeLessThan(1e-14);
      expect(mat3Det(R)).toBeCloseTo(1, 14);
      expect(maxAbsDiff(matrixToAngleAxis(R), aa)).toBeLessThan(1e-8);
      expect(maxAbsDiff(quaternionToMatrix(matrixToQuaternion(R)), R)).toBeLessThan(1e-14);
      expect(rotationAngleDeg(R, [1, 0, 0, 0, 1, 0, 0, 0, 1])).toBeCloseTo((angle * 180) / Math.PI, 8);
    }
  });

  it("orthonormalize returns the nearest rotation of a perturbed one", () => {
    const R = angleAxisToMatrix([0.3, -0.2, 0.9]);
    const noisy = R.map((v, i) => v + (i % 2 ? 1e-3 : -1e-3));
    const fixed = orthonormalize(noisy);
    expect(maxAbsDiff(mat3Mul(fixed, mat3Transpose(fixed)), [1, 0, 0, 0, 1, 0, 0, 0, 1])).toBeLessThan(1e-14);
    expect(rotationAngleDeg(fixed, R)).toBeLessThan(0.2);
    expect(mat3Det(orthonormalize(R.map((v) => -v)))).toBeCloseTo(1, 12);
  });

  it("composes and inverts transforms", () => {
    const a = { R: angleAxisToMatrix([0.1, 0.2, 0.3]), t: new Float64Array([1, 2, 3]) };
    const b = { R: angleAxisToMatrix([-0.4, 0.1, 0.0]), t: new Float64Array([0, -1, 2]) };
    const X = [0.5, -0.7, 4];
    const viaCompose = transformPoint(composeTransforms(a, b), X);
    expect(maxAbsDiff(viaCompose, transformPoint(a, transformPoint(b, X)))).toBeLessThan(1e-14);
    expect(maxAbsDiff(transformPoint(invertTransform(a), transformPoint(a, X)), X)).toBeLessThan(1e-14);
  });
});

describe("geometry/camera", () => {
  const intr = { focal: 1200, cx: 960, cy: 540, k1: -0.12, k2: 0.03 };

  it("projects, and undistortion inverts distortion", () => {
    const pose = { R: angleAxisToMatrix([0.05, -0.1, 0.02]), t: new Float64Array([0.2, -0.1, 1]) };
    const X = new Float64Array([0.4, 0.3, 3]);
    const px = new Float64Array(2);
    expect(project(intr, pose, X, px)).toBe(true);
    const Xc = transformPoint(pose, X);
    const normalized = undistortPoint(intr, px[0], px[1], new Float64Array(2));
    expect(maxAbsDiff(normalized, [Xc[0] / Xc[2], Xc[1] / Xc[2]])).toBeLessThan(1e-12);
    const d = distort(intr, Xc[0] / Xc[2], Xc[1] / Xc[2], new Float64Array(2));
    expect(maxAbsDiff([intr.focal * d[0] + intr.cx, intr.focal * d[1] + intr.cy], px)).toBeLessThan(1e-9);
    expect(project(intr, pose, [0, 0, -5], px)).toBe(false);
  });

  it("normalizePoints undistorts a grid of pixels to within 1e-12", () => {
    const pixels = new Float32Array([0.5, 0.5, 1919.5, 1079.5, 960, 540, 100, 900]);
    const normalized = normalizePoints(intr, pixels, 4);
    for (let i = 0; i < 4; i++) {
      const d = distort(intr, normalized[2 * i], normalized[2 * i + 1], new Float64Array(2));
      expect(Math.abs(intr.focal * d[0] + intr.cx - pixels[2 * i])).toBeLessThan(1e-8);
      expect(Math.abs(intr.focal * d[1] + intr.cy - pixels[2 * i + 1])).toBeLessThan(1e-8);
    }
  });
});
