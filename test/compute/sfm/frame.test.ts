/**
 * The frame the model is delivered in (sfm/frame.ts): +Y is the photos' own up (by their
 * gimbal's pitch where a drone states it), except where GPS fixes held the model: then x is
 * east, and y the fixes' up unless the photos' up agrees with it within 3 σ of the fixes' tilt.
 */
import { describe, expect, it } from "vitest";
import { createRng } from "../../../compute/math/random.js";
import type { SparseModel } from "../../../compute/scene/index.js";
import { computeAlignment } from "../../../compute/stages/sfm/frame.js";
import type { GpsFrame } from "../../../compute/stages/sfm/georeference.js";

const DEG = Math.PI / 180;

const cross = (a: number[], b: number[]) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const unit = (v: number[]) => v.map((x) => x / Math.hypot(...v));
const angleDeg = (a: ArrayLike<number>, b: number[]) => Math.acos(Math.min(1, (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / Math.hypot(a[0], a[1], a[2]) / Math.hypot(...b))) / DEG;

/**
 * Cameras on a ring in a world whose up is +Z and east +X, each looking along `forward(k)` with
 * its image's "up" as close to `imageUp` as that allows; points scattered about the origin.
 */
function modelOf(count: number, forward: (k: number) => number[], imageUp: number[]): SparseModel {
  const views = Array.from({ length: count }, (_, k) => {
    const z = unit(forward(k));
    const y = unit(cross(z, cross(imageUp, z)).map((c) => -c)); // image down: −(up made ⊥ z)
    const x = cross(y, z);
    const R = Float64Array.from([...x, ...y, ...z]);
    const centre = [10 * Math.cos(k), 10 * Math.sin(k), 2];
    const t = Float64Array.from([0, 1, 2].map((r) => -(R[3 * r] * centre[0] + R[3 * r + 1] * centre[1] + R[3 * r + 2] * centre[2])));
    return { imageIndex: k, name: `p${k}.jpg`, intrinsics: { focal: 500, cx: 320, cy: 240, k1: 0, k2: 0 }, camFromWorld: { R, t } };
  });
  const rng = createRng(3);
  const xyz = Float64Array.from({ length: 300 }, () => 4 * (rng() - 0.5));
  return { views, points: { xyz, count: 100 } } as unknown as SparseModel;
}

/** Upright photos, each pitched and rolled by a degree or two: their mean up is within about a degree of the true one. */
function uprightCapture(): SparseModel {
  const rng = createRng(7);
  const jitter = () => 2 * DEG * (rng() - 0.5);
  return modelOf(24, (k) => [-Math.cos(k) + jitter(), -Math.sin(k) + jitter(), -0.1 + jitter()], [jitter(), jitter(), 1]);
}

/** The fixes' up tilted by `tiltDeg` towards +Y, east exact. */
function fixesFrame(tiltDeg: number, sigmaDeg: number): GpsFrame {
  return { east: Float64Array.from([1, 0, 0]), up: Float64Array.from([0, Math.sin(tiltDeg * DEG), Math.cos(tiltDeg * DEG)]), tiltSigmaRad: sigmaDeg * DEG };
}

describe("sfm/frame: which up the delivered model takes", () => {
  it("keeps the upright photos' up over a phone's fixes that tilt it within their noise, and takes east from them", () => {
    const alignment = computeAlignment(uprightCapture(), fixesFrame(4, 3));
    expect(alignment.upFrom).toBe("photos");
    expect(alignment.eastFromGps).toBe(true);
    expect(angleDeg(alignment.R.subarray(3, 6), [0, 0, 1])).toBeLessThan(1.5);
    // x is east, made perpendicular to the photos' up.
    expect(angleDeg(alignment.R.subarray(0, 3), [1, 0, 0])).toBeLessThan(1.5);
  });

  it("takes the fixes' up where they fix it better than the photos agree with it (RTK)", () => {
    const alignment = computeAlignment(uprightCapture(), fixesFrame(4, 0.2));
    expect(alignment.upFrom).toBe("gps");
    expect(angleDeg(alignment.R.subarray(3, 6), [0, Math.sin(4 * DEG), Math.cos(4 * DEG)])).toBeLessThan(1e-5);
  });

  it("takes even loose fixes' up over a drone's photos that look down (their up is the heading)", () => {
    const nadir = modelOf(24, () => [0.1, 0, -1], [0, 1, 0]);
    expect(angleDeg(computeAlignment(nadir).R.subarray(3, 6), [0, 0, 1])).toBeGreaterThan(80);
    const alignment = computeAlignment(nadir, fixesFrame(2, 5));
    expect(alignment.upFrom).toBe("gps");
    expect(angleDeg(alignment.R.subarray(3, 6), [0, Math.sin(2 * DEG), Math.cos(2 * DEG)])).toBeLessThan(1e-5);
    // Right-handed: x east, y up, z south.
    const [x, y, z] = [0, 3, 6].map((o) => Array.from(alignment.R.subarray(o, o + 3)));
    expect(angleDeg(cross(x, y), z)).toBeLessThan(1e-6);
  });

  it("takes each photo's up from its gimbal's pitch where the drone states it (no fixes)", () => {
    // Straight down: the photos' own "up" is the heading, 90° off; the pitch (−90°) rights it.
    const nadir = modelOf(24, () => [0, 0, -1], [0, 1, 0]);
    expect(angleDeg(computeAlignment(nadir).R.subarray(3, 6), [0, 0, 1])).toBeGreaterThan(89);
    expect(angleDeg(computeAlignment(nadir, null, () => -90).R.subarray(3, 6), [0, 0, 1])).toBeLessThan(1e-5);
    // A facade flown past at −30°: the photos' up leans back by 30°, the pitch takes it out.
    const oblique = modelOf(12, () => [0, 1, -Math.tan(30 * DEG)], [0, 0, 1]);
    expect(angleDeg(computeAlignment(oblique).R.subarray(3, 6), [0, 0, 1])).toBeCloseTo(30, 6);
    expect(angleDeg(computeAlignment(oblique, null, () => -30).R.subarray(3, 6), [0, 0, 1])).toBeLessThan(1e-5);
  });

  it("without fixes, keeps the photos' up and says so", () => {
    const alignment = computeAlignment(uprightCapture());
    expect(alignment.upFrom).toBe("photos");
    expect(alignment.eastFromGps).toBe(false);
    expect(angleDeg(alignment.R.subarray(3, 6), [0, 0, 1])).toBeLessThan(1.5);
  });
});
