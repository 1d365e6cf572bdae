/**
 * SfM with its bundle adjustments on a thread team (solvers/bundle-adjustment/team.ts), as every
 * model runs those of enough observations: the same cameras as on one thread, to rounding.
 */
import { describe, expect, it } from "vitest";
import { run } from "../../../compute/stages/sfm/index.js";
import { cameraAccuracy } from "../../../compute/stages/sfm/accuracy.js";
import { makeSyntheticScene } from "./synthetic.js";

describe("sfm with threaded bundle adjustment", () => {
  const scene = makeSyntheticScene({ cameras: 16, points: 900, noisePx: 0.5, outlierShare: 0.1, outlierImage: false, seed: 11 });
  const input = { images: scene.images, features: scene.features, pairs: scene.pairs, tracks: scene.tracks };
  const poses = (model: ReturnType<typeof run>["model"]) => model.views.map((v) => ({ name: v.name, camFromWorld: v.camFromWorld }));

  it("places the cameras as one thread does, and says how many threads ran", () => {
    const alone = run(input, { baThreads: 1 });
    // Every adjustment on 2 threads, however few its observations.
    const team = run(input, { baThreads: 2, baParallelMinImages: 0, baParallelMinObservations: 0 });
    expect(alone.report.counts.bundleAdjustmentThreads).toBe(1);
    expect(team.report.counts.bundleAdjustmentThreads).toBe(2);
    expect(team.model.views.length).toBe(alone.model.views.length);
    const between = cameraAccuracy(poses(team.model), poses(alone.model), scene.sceneRadius);
    expect(between.maxRotationErrorDeg).toBeLessThan(1e-3);
    expect(between.maxCenterErrorPercent).toBeLessThan(1e-3);
    const truth = scene.truth.flatMap((pose, i) => (pose ? [{ name: scene.images[i].name, camFromWorld: pose }] : []));
    expect(cameraAccuracy(poses(team.model), truth, scene.sceneRadius).maxRotationErrorDeg).toBeLessThan(0.1);
  });

  it("keeps adjustments of few observations on one thread", () => {
    expect(run(input, { baThreads: 2 }).report.counts.bundleAdjustmentThreads).toBe(2);
    expect(run(input, { baThreads: 2, baParallelMinObservations: 1e9 }).report.counts.bundleAdjustmentThreads).toBe(1);
  });
});
