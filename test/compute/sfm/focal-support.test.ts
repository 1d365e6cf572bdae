import { describe, expect, it } from "vitest";
import { FOCAL_STEP, focalRise, MIN_CHI2_RISE } from "../../../compute/stages/sfm/focal-support.js";
import { run } from "../../../compute/stages/sfm/index.js";
import { makeSyntheticScene } from "./synthetic.js";

/** A probe answering from a table of rises per side, recording the factors it was asked for. */
function probeOf(longer: number, shorter: number) {
  const asked: number[] = [];
  const probe = (factor: number) => {
    asked.push(factor);
    return factor > 1 ? longer : shorter;
  };
  return { probe, asked };
}

describe("focalRise", () => {
  it("stops after the first side when it already fixes the focal", () => {
    const { probe, asked } = probeOf(MIN_CHI2_RISE + 1, 1e6);
    expect(focalRise(probe)).toBe(MIN_CHI2_RISE + 1);
    expect(asked).toEqual([1 + FOCAL_STEP]);
  });

  it("probes the second side while the first leaves the focal undetermined, and keeps the larger", () => {
    const fixedBySecond = probeOf(3, 400);
    expect(focalRise(fixedBySecond.probe)).toBe(400);
    expect(fixedBySecond.asked).toEqual([1 + FOCAL_STEP, 1 / (1 + FOCAL_STEP)]);
    // Neither side: the reported rise is the larger, below the threshold (the camera is taken out).
    const loose = probeOf(4, -2);
    expect(focalRise(loose.probe)).toBe(4);
    expect(loose.asked).toHaveLength(2);
  });
});

describe("sfm focal profile on an EXIF-less ring", () => {
  it("finds the guessed focal determined and keeps every camera", () => {
    const scene = makeSyntheticScene({ cameras: 10, points: 600, noisePx: 0.5, outlierShare: 0.02, outlierImage: false, seed: 5, focal: 800, defaultFocalPrior: 700, heightWave: 0.6 });
    const { model, report } = run({ images: scene.images, features: scene.features, pairs: scene.pairs, tracks: scene.tracks });
    expect(model.views).toHaveLength(10);
    expect(report.counts.guessedFocalGroups).toBeGreaterThanOrEqual(1);
    expect(report.counts.minFocalChi2Rise).toBeGreaterThanOrEqual(MIN_CHI2_RISE);
    expect(Math.abs(model.views[0].intrinsics.focal / 800 - 1)).toBeLessThan(0.01);
  });
});
