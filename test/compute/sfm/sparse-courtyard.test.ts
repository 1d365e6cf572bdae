/**
 * Sparse overlap on rendered photos (issue 19), the second scene: a closed courtyard seen from
 * its middle, 16 photos 22.5° apart looking outward from a circle of radius 1, a phone's wide
 * lens (focal 0.7 × the width) and no EXIF, through ingest → features → matching → sfm. Every
 * camera must stay within 0.2° of the truth after a similarity alignment, and the final bundle
 * adjustment must not end above its start.
 *
 * Why 640 × 480: the cameras stand on a circle of radius 1 in a scene 7 across, so a camera's
 * rotation trades against a sideways shift of it, and the photos fix that trade only to their
 * keypoint noise. Bundle adjustment of the model's own observations started from the true
 * cameras (`npm run bench -- stress courtyard --width=W --optimum`) is what the photos determine:
 * at 640 × 480 that optimum is 0.092° off at most, and our model within 0.002° of it (0.091°).
 * At 400 × 300 our model is 0.292° off, beyond 0.2° because the photos are. The test ran at
 * 800 × 600 when the optimum at 640 × 480 was 0.330° (docs/decisions.md, "The courtyard's error
 * is the photos', not the pipeline's"); 640 × 480 has 1.56 × fewer pixels to render and detect.
 */
import { describe, expect, it } from "vitest";
import { renderStressScene } from "../../support/stress-scenes.js";
import { runSfmOnViews, type SfmRun } from "../../support/sfm-run.js";

describe("sfm on a courtyard seen from its middle", () => {
  it("registers all 16 photos within 0.2° of the truth, and the final BA does not end above its start", async () => {
    const scene = renderStressScene("courtyard", { width: 640, height: 480, seed: 5 });
    const run: SfmRun = await runSfmOnViews(scene.views, scene.truthNames, scene.sceneRadius);
    // Measured at 640 × 480: 16/16, rotation median 0.027° max 0.091°, centre max 0.176 % of the radius.
    expect(run.accuracy.matched).toBe(16);
    expect(run.accuracy.maxRotationErrorDeg).toBeLessThan(0.2);
    expect(run.accuracy.maxCenterErrorPercent).toBeLessThan(1);
    const last = run.result.report.finalBundleAdjustment!;
    expect(last.kept).toBe(true);
    expect(last.finalCost).toBeLessThanOrEqual(last.initialCost);
  }, 300_000);
});
