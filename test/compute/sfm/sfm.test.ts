import { describe, expect, it } from "vitest";
import { run } from "../../../compute/stages/sfm/index.js";
import { cameraAccuracy } from "../../../compute/stages/sfm/accuracy.js";
import { PipelineError } from "../../../compute/scene/index.js";
import { concatScenes, makeSyntheticScene, SYNTHETIC_FOCAL } from "./synthetic.js";

describe("sfm.run on synthetic tracks", () => {
  const scene = makeSyntheticScene({ cameras: 10, points: 600, noisePx: 0.5, outlierShare: 0.1, outlierImage: true, seed: 7 });
  const { model, report } = run({ images: scene.images, features: scene.features, pairs: scene.pairs, tracks: scene.tracks });

  it("registers every ring camera and leaves the outlier image unregistered with a reason", () => {
    const registered = model.views.map((v) => v.imageIndex).sort((a, b) => a - b);
    expect(registered).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(model.unregistered.map((u) => u.imageIndex)).toEqual([10]);
    expect(model.unregistered[0].reason.length).toBeGreaterThan(0);
    expect(report.counts.registered).toBe(10);
  });

  it("recovers rotations within 0.1° and centres within 0.5% of the scene radius", () => {
    const truth = scene.truth.flatMap((pose, i) => (pose ? [{ name: scene.images[i].name, camFromWorld: pose }] : []));
    const accuracy = cameraAccuracy(
      model.views.map((v) => ({ name: v.name, camFromWorld: v.camFromWorld })),
      truth,
      scene.sceneRadius,
    );
    expect(accuracy.matched).toBe(10);
    expect(accuracy.maxRotationErrorDeg).toBeLessThan(0.1);
    expect(accuracy.maxCenterErrorPercent).toBeLessThan(0.5);
  });

  it("keeps most points, with a sub-pixel mean reprojection error", () => {
    expect(model.points.count).toBeGreaterThan(400);
    expect(report.counts.meanReprojectionErrorPx).toBeLessThan(1);
  });

  it("reports per registered image its intrinsics group, observations and reprojection RMS, and the final BA", () => {
    const registered = (report.perImage ?? []).filter((p) => p.registered);
    expect(registered).toHaveLength(10);
    for (const image of registered) {
      expect(typeof image.intrinsicsGroup).toBe("number");
      expect(image.observations as number).toBeGreaterThan(50);
      // 0.5 px noise per coordinate: an RMS of the 2-D error near 0.7 px.
      expect(image.reprojectionRmsPx as number).toBeGreaterThan(0.3);
      expect(image.reprojectionRmsPx as number).toBeLessThan(1.5);
    }
    const last = report.finalBundleAdjustment!;
    expect(last.kept).toBe(true);
    expect(last.finalCost).toBeLessThanOrEqual(last.initialCost);
    expect(last.finalRmsPx).toBeGreaterThan(0);
    expect(last.refined).toContain("poses");
  });

  it("expresses the model with +Y up and the points centred at the origin", () => {
    // The true up is world +Z; after alignment every camera's −y axis must point along +Y.
    for (const v of model.views) expect(-v.camFromWorld.R[4]).toBeGreaterThan(0.9);
    const { xyz, count } = model.points;
    const median = (a: number) => Array.from({ length: count }, (_, p) => xyz[3 * p + a]).sort((x, y) => x - y)[count >> 1];
    for (const a of [0, 1, 2]) expect(Math.abs(median(a))).toBeLessThan(1e-9);
  });
});

describe("sfm.run without EXIF focal", () => {
  it("refines a 10% wrong default focal and merges the images' agreeing focals into one camera", () => {
    const scene = makeSyntheticScene({ cameras: 8, points: 400, noisePx: 0.5, outlierShare: 0.05, outlierImage: false, seed: 5, defaultFocalPrior: 1.1 * SYNTHETIC_FOCAL });
    const { model, report } = run({ images: scene.images, features: scene.features, pairs: scene.pairs, tracks: scene.tracks });
    expect(model.views).toHaveLength(8);
    expect(report.counts.mergedIntrinsicsGroups).toBe(7);
    for (const v of model.views) expect(Math.abs(v.intrinsics.focal / SYNTHETIC_FOCAL - 1)).toBeLessThan(0.01);
    const truth = scene.truth.flatMap((pose, i) => (pose ? [{ name: scene.images[i].name, camFromWorld: pose }] : []));
    const accuracy = cameraAccuracy(model.views.map((v) => ({ name: v.name, camFromWorld: v.camFromWorld })), truth, scene.sceneRadius);
    expect(accuracy.maxRotationErrorDeg).toBeLessThan(0.1);
    expect(accuracy.maxCenterErrorPercent).toBeLessThan(0.5);
  });
});

describe("sfm.run's focal starts without EXIF", () => {
  // Two starts that agree end the search only on a model of 8 photos or more: a few photos fix
  // the focal loosely, and the two shorter guesses can share a wrong basin (templeSparseRing's
  // second half, compute/stages/sfm/index.ts AGREEING_STARTS_MIN_PHOTOS).
  const startsFor = (cameras: number) => {
    const scene = makeSyntheticScene({ cameras, points: 300, noisePx: 0.5, outlierShare: 0.05, outlierImage: false, seed: 5, defaultFocalPrior: 1.1 * SYNTHETIC_FOCAL });
    const { model, report } = run({ images: scene.images, features: scene.features, pairs: scene.pairs, tracks: scene.tracks });
    return { placed: model.views.length, attempts: report.counts.focalGuessAttempts };
  };

  it("tries every focal guess on a model of a few photos, although the first two agree", () => {
    expect(startsFor(6)).toEqual({ placed: 6, attempts: 2 });
  });

  it("stops at the second start when it confirms the first on 8 photos", () => {
    expect(startsFor(8)).toEqual({ placed: 8, attempts: 1 });
  });

  it("runs the second start on a thread of its own with the models the calling thread makes", () => {
    for (const cameras of [6, 8]) {
      const scene = makeSyntheticScene({ cameras, points: 300, noisePx: 0.5, outlierShare: 0.05, outlierImage: false, seed: 5, defaultFocalPrior: 1.1 * SYNTHETIC_FOCAL });
      const input = { images: scene.images, features: scene.features, pairs: scene.pairs, tracks: scene.tracks };
      const aside = run(input, { parallelStarts: true });
      const inTurn = run(input, { parallelStarts: false });
      // The thread's start adjusts on one thread (index.ts startHelper): in turn, so does this run's.
      const inTurnOneThread = run(input, { parallelStarts: false, baThreads: 1 });
      expect(aside.report.counts.startsOnThread).toBe(1);
      expect(inTurn.report.counts.startsOnThread).toBe(0);
      // Every start's own model, not only the one kept (a second start that confirms the first is not kept).
      expect(aside.report.counts.start1ErrorPx).toBeGreaterThan(0);
      expect(aside.report.counts.start1ErrorPx).toBe(inTurnOneThread.report.counts.start1ErrorPx);
      for (const key of ["registered", "focalGuessAttempts", "crossCheckPeers", "oneCameraFallback", "globalBundleAdjustments", "localBundleAdjustments", "start0ErrorPx", "start2ErrorPx"]) {
        expect([key, aside.report.counts[key]]).toEqual([key, inTurn.report.counts[key]]);
      }
      expect(aside.model.views.map((v) => [v.imageIndex, Array.from(v.camFromWorld.R), Array.from(v.camFromWorld.t), v.intrinsics.focal])).toEqual(inTurn.model.views.map((v) => [v.imageIndex, Array.from(v.camFromWorld.R), Array.from(v.camFromWorld.t), v.intrinsics.focal]));
    }
  });
});

describe("sfm.run progress", () => {
  it("gives each focal start of an upload without EXIF its share, so the first start's registrations are not most of the stage", () => {
    const scene = makeSyntheticScene({ cameras: 8, points: 400, noisePx: 0.5, outlierShare: 0.05, outlierImage: false, seed: 5, defaultFocalPrior: 1.1 * SYNTHETIC_FOCAL });
    const reports: Array<[number, number]> = [];
    const { report } = run({ images: scene.images, features: scene.features, pairs: scene.pairs, tracks: scene.tracks }, {}, (fraction, done) => reports.push([fraction, done ?? 0]));
    const fractions = reports.map(([f]) => f);
    for (let i = 1; i < fractions.length; i++) expect(fractions[i]).toBeGreaterThanOrEqual(fractions[i - 1]);
    expect(fractions.at(-1)).toBe(1);
    // Three starts expected (the prior's and two focal guesses): the first, all 8 photos placed, is at most a third.
    const firstAllPlaced = reports.findIndex(([, done]) => done === 8);
    expect(fractions[firstAllPlaced]).toBeLessThanOrEqual(1 / 3);
    expect(report.counts.focalGuessAttempts).toBeGreaterThan(0);
    expect(fractions.some((f) => f > 1 / 3 && f < 1)).toBe(true);
  });
});

describe("sfm.run on a scene that falls apart", () => {
  it("keeps the largest model and reports the size of the other", () => {
    const large = makeSyntheticScene({ cameras: 6, points: 250, noisePx: 0.5, outlierShare: 0.05, outlierImage: false, seed: 21 });
    const small = makeSyntheticScene({ cameras: 4, points: 250, noisePx: 0.5, outlierShare: 0.05, outlierImage: false, seed: 22 });
    const scene = concatScenes(small, large);
    const { model, report } = run({ images: scene.images, features: scene.features, pairs: scene.pairs, tracks: scene.tracks });
    expect(model.views.map((v) => v.imageIndex).sort((a, b) => a - b)).toEqual([4, 5, 6, 7, 8, 9]);
    expect(model.otherModelSizes).toEqual([4]);
    expect(model.unregistered).toHaveLength(4);
    for (const u of model.unregistered) expect(u.reason).toMatch(/separate model of 4 images/);
    expect(report.warnings.join(" ")).toMatch(/2 models/);
  });
});

describe("sfm.run on an upload of several unrelated scenes", () => {
  it("finds the largest scene wherever the first seed lands, and says which photos form their own group", () => {
    const sizes = [3, 3, 4, 3, 7];
    const parts = sizes.map((cameras, k) => makeSyntheticScene({ cameras, points: 250, noisePx: 0.5, outlierShare: 0.05, outlierImage: false, seed: 40 + k }));
    const scene = parts.reduce((joined, part) => concatScenes(joined, part));
    const { model } = run({ images: scene.images, features: scene.features, pairs: scene.pairs, tracks: scene.tracks });
    expect(model.views.map((v) => v.imageIndex).sort((a, b) => a - b)).toEqual([13, 14, 15, 16, 17, 18, 19]);
    expect(model.unregistered).toHaveLength(13);
    // Each smaller scene's images are either reconstructed on their own or left out as a
    // group too small to beat the kept model; either way the reason says it is its own group.
    for (const u of model.unregistered) expect(u.reason).toMatch(/separate model of [34] images|separate group of [34] images/);
  });
});

describe("sfm.run failure", () => {
  it("throws not_enough_overlap when no pair can seed a model", () => {
    const scene = makeSyntheticScene({ cameras: 3, points: 200, noisePx: 0.5, outlierShare: 0, outlierImage: false, seed: 3 });
    const error = (() => {
      try {
        run({ images: scene.images, features: scene.features, pairs: [], tracks: scene.tracks });
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(PipelineError);
    expect((error as PipelineError).code).toBe("not_enough_overlap");
  });
});
