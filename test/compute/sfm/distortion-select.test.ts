/**
 * Radial distortion is kept only where the observations show it (distortion-select.ts): on a
 * lens without distortion k1 and k2 stay at exactly 0 (free, they bent sparse models: Herz-Jesus
 * without every third photo, 0.48° → 0.065°); on a lens with k1 = −0.08 they are kept and the model
 * fits to the noise.
 */
import { describe, expect, it } from "vitest";
import { distortionPlausible } from "../../../compute/stages/sfm/distortion-select.js";
import { clearUnobservableDistortion } from "../../../compute/stages/sfm/bundle.js";
import { run } from "../../../compute/stages/sfm/index.js";
import { createState, registerImage } from "../../../compute/stages/sfm/state.js";
import { makeSyntheticScene } from "./synthetic.js";

function reconstruct(k1: number) {
  const scene = makeSyntheticScene({ cameras: 12, points: 600, noisePx: 0.5, outlierShare: 0, outlierImage: false, seed: 5, k1 });
  return run({ images: scene.images, features: scene.features, pairs: scene.pairs, tracks: scene.tracks });
}

describe("sfm keeps radial distortion only when the photos show it", () => {
  it("holds k1 = k2 = 0 on a lens without distortion", () => {
    const { model, report } = reconstruct(0);
    expect(report.counts.distortionTested).toBe(1);
    expect(report.counts.distortionKept).toBe(0);
    for (const view of model.views) {
      expect(view.intrinsics.k1).toBe(0);
      expect(view.intrinsics.k2).toBe(0);
    }
  });

  it("keeps it on a lens with k1 = −0.08, and fits to the noise", () => {
    const { model, report } = reconstruct(-0.08);
    expect(report.counts.distortionKept).toBe(1);
    expect(report.counts.distortionRmsWithoutPx).toBeGreaterThan(1.01 * report.counts.distortionRmsWithPx);
    // k1, k2 and the focal share the work (a focal 1 % off trades against k1 at the edge), so
    // check the sign and size of the distortion and that the model fits to the noise (0.5 px per axis: a 2-D RMS of about 0.7 px).
    expect(report.counts.distortionRmsWithPx).toBeLessThan(0.75);
    for (const view of model.views) expect(view.intrinsics.k1).toBeLessThan(-0.04);
  });
});

describe("distortion bounds", () => {
  // A 4:3 photo with focal 1.2 × its width: the corner sits at normalised radius 0.52.
  const corner = Math.hypot(4, 3) / 2 / (1.2 * 4);

  it("accepts real lenses' distortion, barrel and pincushion", () => {
    expect(distortionPlausible(0, 0, corner)).toBe(true);
    expect(distortionPlausible(-0.08, 0, corner)).toBe(true);
    expect(distortionPlausible(-0.25, 0.1, corner)).toBe(true);
    expect(distortionPlausible(0.15, -0.05, corner)).toBe(true);
  });

  it("rejects a mapping that folds back before the corner, or moves it by over 30 %", () => {
    // 1 + 3·k1·r² < 0 at the corner: two rays would land on one pixel.
    expect(distortionPlausible(-1.5, 0, corner)).toBe(false);
    // Monotonic but the corner moved by 1.2 · 0.27 = 33 % of its radius.
    expect(distortionPlausible(1.2, 0, corner)).toBe(false);
    // A wide lens's corner (focal 0.5 × width, radius 1.25) with a k1 that is mild at 0.5.
    expect(distortionPlausible(-0.3, 0, 1.25)).toBe(false);
  });
});

describe("clearUnobservableDistortion", () => {
  // 640×480 photos: the half diagonal is 400 px, so the field is wide enough for k1, k2 up to a
  // focal of 400 / MIN_DISTORTION_FIELD ≈ 1,143 px.
  function stateWith(groups: Array<{ focal: number; k1: number; k2: number }>, groupOfImage: number[]) {
    const scene = makeSyntheticScene({ cameras: groupOfImage.length, points: 30, noisePx: 0.5, outlierShare: 0, outlierImage: false, seed: 3 });
    const intrinsics = Float64Array.from(groups.flatMap((g) => [g.focal, 320, 240, g.k1, g.k2]));
    const state = createState(scene.images, scene.features, scene.tracks, Uint32Array.from(groupOfImage), intrinsics);
    groupOfImage.forEach((_, i) => registerImage(state, i));
    return state;
  }

  it("zeroes the distortion a group refined at a guessed focal once its focal makes the field too narrow", () => {
    // Group 0 started at the 768-px guess (wide enough), refined k1, k2, then its focal grew to
    // the temple ring's ~1,520 px; group 1 is a wide lens whose distortion is observable.
    const state = stateWith([{ focal: 1520, k1: -0.83, k2: -1.88 }, { focal: 600, k1: -0.08, k2: 0.01 }], [0, 0, 0, 1, 1, 1]);
    expect(clearUnobservableDistortion(state)).toBe(1);
    expect(Array.from(state.intrinsics.slice(3, 5))).toEqual([0, 0]);
    expect(Array.from(state.intrinsics.slice(8, 10))).toEqual([-0.08, 0.01]);
    expect(clearUnobservableDistortion(state)).toBe(0);
  });

  it("leaves a narrow group whose distortion is already zero, and the focal and principal point, alone", () => {
    const state = stateWith([{ focal: 2000, k1: 0, k2: 0 }], [0, 0, 0, 0]);
    expect(clearUnobservableDistortion(state)).toBe(0);
    expect(Array.from(state.intrinsics)).toEqual([2000, 320, 240, 0, 0]);
  });
});
