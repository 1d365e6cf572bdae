/**
 * Sparse overlap on rendered photos (issue 19), the second scene: a closed courtyard seen from
 * its middle, 16 photos 22.5° apart looking outward from a circle of radius 1, a phone's wide
 * lens (focal 0.7 × the width) and no EXIF, through ingest → features → matching → sfm. Every
 * camera must stay within 0.35° of the truth after a similarity alignment, and the final bundle
 * adjustment must not end above its start.
 *
 * Why 0.35° at 400 × 300: the cameras stand on a circle of radius 1 in a scene 7 across, so a
 * camera's rotation trades against a sideways shift of it, and the photos fix that trade only to
 * their keypoint noise. Bundle adjustment of the model's own observations started from the true
 * cameras (`npm run bench -- stress courtyard --width=W --optimum`) is what the photos determine:
 * at 400 × 300 that optimum is 0.295° off at most, and our model within 0.005° of it (0.292°); at
 * 640 × 480 the optimum is 0.092° and our model 0.091° (that bench keeps the larger size's check).
 * The test ran at 640 × 480 with a 0.2° bound until 2026-12-01: 52 s alone against 29 s here
 * (docs/decisions.md, "Long scenes in the bench").
 */
import { describe, expect, it } from "vitest";
import { renderStressScene } from "../../support/stress-scenes.js";
import { runSfmOnViews, type SfmRun } from "../../support/sfm-run.js";

describe("sfm on a courtyard seen from its middle", () => {
  it("registers all 16 photos within 0.35° of the truth (the photos fix 0.295°), and the final BA does not end above its start", async () => {
    const scene = renderStressScene("courtyard", { width: 400, height: 300, seed: 5 });
    const run: SfmRun = await runSfmOnViews(scene.views, scene.truthNames, scene.sceneRadius);
    // Measured at 400 × 300 (2026-12-01): 16/16, rotation max 0.292° (the photos' optimum 0.295°).
    expect(run.accuracy.matched).toBe(16);
    expect(run.accuracy.maxRotationErrorDeg).toBeLessThan(0.35);
    expect(run.accuracy.maxCenterErrorPercent).toBeLessThan(1);
    const last = run.result.report.finalBundleAdjustment!;
    expect(last.kept).toBe(true);
    expect(last.finalCost).toBeLessThanOrEqual(last.initialCost);
  }, 300_000);
});
