import { describe, expect, it } from "vitest";
import { run } from "../../../compute/stages/sfm/index.js";
import { cameraAccuracy } from "../../../compute/stages/sfm/accuracy.js";
import { scaleFromPoint } from "../../../compute/stages/sfm/register-pair.js";
import { makeSyntheticScene, type SyntheticScene } from "./synthetic.js";

const TRUE_FOCAL = 1000;

/**
 * A closed ring of 16 cameras 22.5° apart with a lens twice as long as the default prior
 * assumes, and sparse tracks: neighbours share ~270 matches but only 8% of the points reach a
 * third view (~20 per triple of neighbours, PnP's minimum), as on the temple ring. Heights
 * vary along the ring so the focal is observable at all (see heightWave).
 */
function sparseRing(): SyntheticScene {
  return makeSyntheticScene({ cameras: 16, points: 4000, noisePx: 0.5, outlierShare: 0.03, outlierImage: false, seed: 11, focal: TRUE_FOCAL, defaultFocalPrior: TRUE_FOCAL / 2, threeViewShare: 0.08, heightWave: 0.6 });
}

function accuracyOf(scene: SyntheticScene, views: Array<{ name: string; camFromWorld: { R: Float64Array; t: Float64Array } }>) {
  const truth = scene.truth.flatMap((pose, i) => (pose ? [{ name: scene.images[i].name, camFromWorld: pose }] : []));
  return cameraAccuracy(views, truth, scene.sceneRadius);
}

describe("sfm registration from a verified pair", () => {
  const scene = sparseRing();
  const input = { images: scene.images, features: scene.features, pairs: scene.pairs, tracks: scene.tracks };

  it("registers every camera of a sparse ring with a 2× wrong focal prior and recovers the focal within 1%", () => {
    const { model, report } = run(input);
    expect(model.views).toHaveLength(16);
    expect(report.counts.pairRegistrations).toBeGreaterThan(0);
    expect(report.perImage?.filter((p) => p.registeredBy === "seed")).toHaveLength(2);
    for (const v of model.views) expect(Math.abs(v.intrinsics.focal / TRUE_FOCAL - 1)).toBeLessThan(0.01);
    const accuracy = accuracyOf(scene, model.views);
    // Mostly two-view tracks at 0.5 px noise: looser than the dense ring's 0.1°.
    expect(accuracy.medianRotationErrorDeg).toBeLessThan(0.3);
    expect(accuracy.maxRotationErrorDeg).toBeLessThan(0.6);
    expect(accuracy.maxCenterErrorPercent).toBeLessThan(3);
  });

  it("is what gets past the seed: with it turned off, PnP at the 2× wrong focal cannot add a third view", () => {
    // Without it only the seed pair registers, and two cameras of sixteen photos are refused.
    expect(() => run(input, { pairRegistrationMinMatches: 0 })).toThrow(/only 2 of 16 photos/);
  });
});

describe("scaleFromPoint", () => {
  it("finds the baseline length at which a point projects onto its observed ray", () => {
    // New camera at the origin; the point is u + s·v in its frame for the true s = 2.5.
    const v = [0.6, 0, 0.8];
    const point = [0.3, -0.2, 4];
    const u = point.map((c, a) => c - 2.5 * v[a]);
    expect(scaleFromPoint(point[0] / point[2], point[1] / point[2], u, v)).toBeCloseTo(2.5, 9);
  });

  it("returns NaN for a ray along the baseline, which says nothing about the scale", () => {
    expect(scaleFromPoint(0, 0, [0, 0, 1], [0, 0, 1])).toBeNaN();
  });
});
