import { describe, expect, it } from "vitest";
import { distortionObservable } from "../../../compute/stages/sfm/bundle.js";
import { run } from "../../../compute/stages/sfm/index.js";
import { createState, registerImage } from "../../../compute/stages/sfm/state.js";
import { makeSyntheticScene } from "./synthetic.js";

function reconstruct(principalPointOffset: [number, number]) {
  const scene = makeSyntheticScene({ cameras: 10, points: 600, noisePx: 0.5, outlierShare: 0.05, outlierImage: false, seed: 7, principalPointOffset, heightWave: 0.6 });
  return run({ images: scene.images, features: scene.features, pairs: scene.pairs, tracks: scene.tracks });
}

describe("sfm principal-point refinement", () => {
  it("keeps the image centre when moving it explains nothing (the centre is exact)", () => {
    const { model, report } = reconstruct([0, 0]);
    expect(report.counts.principalPointRefined).toBe(0);
    for (const v of model.views) expect([v.intrinsics.cx, v.intrinsics.cy]).toEqual([320, 240]);
  });

  it("keeps a refined principal point that explains a real offset", () => {
    const { model, report } = reconstruct([8, -5]);
    expect(report.counts.principalPointRefined).toBe(1);
    const { cx, cy } = model.views[0].intrinsics;
    expect(Math.abs(cx - 328)).toBeLessThan(1);
    // y trades off with the cameras' tilt on a ring seen from nearly one height.
    expect(Math.abs(cy - 235)).toBeLessThan(4);
  });
});

describe("distortionObservable", () => {
  it("refines distortion only once every intrinsics group has three registered views", () => {
    const scene = makeSyntheticScene({ cameras: 6, points: 50, noisePx: 0.5, outlierShare: 0, outlierImage: false, seed: 3 });
    // Images 0–2 share group 0; 3–5 each have their own (as EXIF-less photos start).
    const state = createState(scene.images, scene.features, scene.tracks, Uint32Array.from([0, 0, 0, 1, 2, 3]), new Float64Array(20).fill(1));
    for (const i of [0, 1, 2]) registerImage(state, i);
    expect(distortionObservable(state)).toBe(true);
    registerImage(state, 3);
    expect(distortionObservable(state)).toBe(false);
  });
});
