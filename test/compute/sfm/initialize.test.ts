import { describe, expect, it } from "vitest";
import { rotationAngleDeg } from "../../../compute/geometry/rotation.js";
import { createRng } from "../../../compute/math/random.js";
import { applyAlignment, computeAlignment } from "../../../compute/stages/sfm/frame.js";
import { assignIntrinsicsGroups } from "../../../compute/stages/sfm/groups.js";
import { initializeModel, rankInitialPairs } from "../../../compute/stages/sfm/initialize.js";
import { snapshotModel } from "../../../compute/stages/sfm/model.js";
import { DEFAULTS } from "../../../compute/stages/sfm/options.js";
import { createState, pointCount } from "../../../compute/stages/sfm/state.js";
import { makeSyntheticScene } from "./synthetic.js";

function relativeRotation(Rb: Float64Array, Ra: Float64Array): Float64Array {
  // cam_b from cam_a = R_b · R_aᵀ
  const out = new Float64Array(9);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) out[3 * r + c] = Rb[3 * r] * Ra[3 * c] + Rb[3 * r + 1] * Ra[3 * c + 1] + Rb[3 * r + 2] * Ra[3 * c + 2];
  return out;
}

describe("sfm two-view initialisation", () => {
  const scene = makeSyntheticScene({ cameras: 6, points: 400, noisePx: 0.5, outlierShare: 0.1, outlierImage: false, seed: 11 });
  const groups = assignIntrinsicsGroups(scene.images);
  const state = createState(scene.images, scene.features, scene.tracks, groups.groupOfImage, groups.intrinsics);
  const result = initializeModel(state, scene.pairs, new Uint8Array(scene.images.length).fill(1), DEFAULTS, createRng(1));

  it("accepts a pair and recovers its relative rotation within 0.5°", () => {
    expect(result.pair).not.toBeNull();
    const [a, b] = result.pair as [number, number];
    const estimated = relativeRotation(state.rotation.subarray(9 * b, 9 * b + 9), state.rotation.subarray(9 * a, 9 * a + 9));
    const truth = relativeRotation(scene.truth[b]!.R, scene.truth[a]!.R);
    expect(rotationAngleDeg(estimated, truth)).toBeLessThan(0.5);
  });

  it("triangulates most inlier tracks and rejects the random outliers", () => {
    // ~400 points, 10% of each view's observations replaced by random ones: ≥ 70% survive.
    expect(pointCount(state)).toBeGreaterThan(280);
    expect(result.bundle?.finalRmsPx).toBeLessThan(1);
  });

  it("skips pairs whose homography ratio says there is no parallax", () => {
    const flat = scene.pairs.map((p) => ({ ...p, homographyRatio: 0.95 }));
    expect(rankInitialPairs(flat, new Uint8Array(scene.images.length).fill(1), DEFAULTS)).toHaveLength(0);
  });

  it("expresses the model +Y up, centred, with a median point distance of 1", () => {
    const model = snapshotModel(state);
    applyAlignment(model, computeAlignment(model));
    // Both cameras are upright (true up is world +Z): −y_cam must map to +Y.
    for (const v of model.views) expect(-v.camFromWorld.R[4]).toBeGreaterThan(0.9);
    const { xyz, count } = model.points;
    const dist = Array.from({ length: count }, (_, p) => Math.hypot(xyz[3 * p], xyz[3 * p + 1], xyz[3 * p + 2])).sort((x, y) => x - y);
    expect(dist[count >> 1]).toBeCloseTo(1, 6);
    // Rotations stay proper (right-handed frame).
    for (const v of model.views) {
      const R = v.camFromWorld.R;
      const det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) + R[2] * (R[3] * R[7] - R[4] * R[6]);
      expect(det).toBeCloseTo(1, 9);
    }
  });
});

describe("sfm intrinsics groups", () => {
  it("shares a group within a video and among same-EXIF photos, and isolates default-focal images", () => {
    const base = { path: "", width: 640, height: 480, focalPrior: 600 };
    const groups = assignIntrinsicsGroups([
      { ...base, index: 0, name: "a.jpg", focalPriorSource: "exif35mm" },
      { ...base, index: 1, name: "b.jpg", focalPriorSource: "exif35mm" },
      { ...base, index: 2, name: "c.jpg", focalPriorSource: "default" },
      { ...base, index: 3, name: "d.jpg", focalPriorSource: "default" },
      { ...base, index: 4, name: "v.mp4#0", focalPriorSource: "default", video: { file: "v.mp4", frame: 0 } },
      { ...base, index: 5, name: "v.mp4#9", focalPriorSource: "default", video: { file: "v.mp4", frame: 9 } },
    ]);
    expect(Array.from(groups.groupOfImage)).toEqual([0, 0, 1, 2, 3, 3]);
    expect(Array.from(groups.intrinsics.subarray(0, 5))).toEqual([600, 320, 240, 0, 0]);
  });
});
