/**
 * The accuracy measure the SfM tests and benchmarks read: errors survive any similarity of the
 * estimate, a wrong camera shows its own error without tilting the others, and noise in the
 * centres of cameras that span little (a short arc) does not turn into rotation error of
 * cameras whose orientations are exact.
 */
import { describe, expect, it } from "vitest";
import { angleAxisToMatrix } from "../../../compute/geometry/rotation.js";
import { cameraAccuracy, type NamedPose } from "../../../compute/stages/sfm/accuracy.js";

type Vec3 = [number, number, number];

function mul(A: ArrayLike<number>, B: ArrayLike<number>): Float64Array {
  const out = new Float64Array(9);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) for (let k = 0; k < 3; k++) out[3 * r + c] += A[3 * r + k] * B[3 * k + c];
  return out;
}

/** camFromWorld of a camera at `eye` looking at `target`, world +Z up. */
function lookAt(eye: Vec3, target: Vec3): { R: Float64Array; t: Float64Array } {
  const z = target.map((v, a) => v - eye[a]);
  const zn = Math.hypot(...z);
  const f = z.map((v) => v / zn);
  const up = [0, 0, 1];
  const x = [f[1] * up[2] - f[2] * up[1], f[2] * up[0] - f[0] * up[2], f[0] * up[1] - f[1] * up[0]];
  const xn = Math.hypot(...x);
  const xr = x.map((v) => v / xn);
  const y = [f[1] * xr[2] - f[2] * xr[1], f[2] * xr[0] - f[0] * xr[2], f[0] * xr[1] - f[1] * xr[0]];
  const R = new Float64Array([...xr, ...y, ...f]);
  const t = new Float64Array([0, 1, 2].map((r) => -(R[3 * r] * eye[0] + R[3 * r + 1] * eye[1] + R[3 * r + 2] * eye[2])));
  return { R, t };
}

/** The same cameras in another frame: X' = s·Q·X + d, so camFromWorld' = (R·Qᵀ, s·t − R·Qᵀ·d). */
function transformed(poses: NamedPose[], Q: Float64Array, s: number, d: Vec3): NamedPose[] {
  const Qt = new Float64Array([Q[0], Q[3], Q[6], Q[1], Q[4], Q[7], Q[2], Q[5], Q[8]]);
  return poses.map(({ name, camFromWorld }) => {
    const R = mul(camFromWorld.R, Qt);
    const t = new Float64Array([0, 1, 2].map((r) => s * camFromWorld.t[r] - (R[3 * r] * d[0] + R[3 * r + 1] * d[1] + R[3 * r + 2] * d[2])));
    return { name, camFromWorld: { R, t } };
  });
}

/** Cameras on an arc of `spanDeg` at radius 4 round the origin, looking at it. */
function arc(count: number, spanDeg: number): NamedPose[] {
  return Array.from({ length: count }, (_, i) => {
    const a = ((-spanDeg / 2 + (spanDeg * i) / (count - 1)) * Math.PI) / 180;
    return { name: `c${i}`, camFromWorld: lookAt([4 * Math.sin(a), -4 * Math.cos(a), 1.5], [0, 0, 0.5]) };
  });
}

describe("cameraAccuracy", () => {
  const frame = angleAxisToMatrix(new Float64Array([0.4, -1.1, 2.0]));

  it("measures exact cameras in another frame as exact", () => {
    const truth = arc(8, 120);
    const a = cameraAccuracy(transformed(truth, frame, 0.37, [3, -2, 5]), truth, 4);
    expect(a.matched).toBe(8);
    expect(a.maxRotationErrorDeg).toBeLessThan(1e-6);
    expect(a.maxCenterErrorPercent).toBeLessThan(1e-6);
  });

  it("shows a wrong camera's own error without tilting the others", () => {
    const truth = arc(8, 120);
    const estimate = transformed(truth, frame, 0.37, [3, -2, 5]);
    const turn = angleAxisToMatrix(new Float64Array([0, (10 * Math.PI) / 180, 0]));
    estimate[3] = { name: "c3", camFromWorld: { R: mul(turn, estimate[3].camFromWorld.R), t: estimate[3].camFromWorld.t } };
    const a = cameraAccuracy(estimate, truth, 4);
    const errors = new Map(a.perCamera.map((c) => [c.name, c.rotationErrorDeg]));
    expect(errors.get("c3")).toBeCloseTo(10, 3);
    for (const [name, error] of errors) if (name !== "c3") expect(error).toBeLessThan(1e-6);
  });

  it("does not turn centre noise of cameras on a short arc into rotation error", () => {
    // Four photos over 60° with their centres off by up to 0.5 % of the radius and their
    // orientations exact: the centres' own rotation is off by 0.41° about the arc's
    // chord, which the centre similarity used to charge to every camera.
    const truth = arc(4, 60);
    const offsets: Vec3[] = [[0.02, 0, -0.015], [-0.01, 0.02, 0.02], [0, -0.02, -0.02], [0.015, 0.01, 0.02]];
    const noisy = truth.map(({ name, camFromWorld: { R, t } }, i) => ({
      name,
      // Moving the centre by δ leaves R and changes t by −R·δ.
      camFromWorld: { R, t: new Float64Array([0, 1, 2].map((r) => t[r] - (R[3 * r] * offsets[i][0] + R[3 * r + 1] * offsets[i][1] + R[3 * r + 2] * offsets[i][2]))) },
    }));
    const a = cameraAccuracy(transformed(noisy, frame, 2.5, [1, 1, -4]), truth, 4);
    expect(a.maxRotationErrorDeg).toBeLessThan(1e-6);
    expect(a.maxCenterErrorPercent).toBeGreaterThan(0.1);
    expect(a.maxCenterErrorPercent).toBeLessThan(1);
  });
});
