/**
 * The camera stress suite (issue "Cameras you can trust"): rendered captures that each break
 * one assumption of incremental SfM (test/support/stress-scenes.ts), through ingest → features
 * → matching → sfm, held to the bounds of test/support/stress-verdict.ts: no registered camera
 * off by more than 1° or 1 % of the scene radius after similarity alignment, photos of another
 * scene unregistered with a reason, no fewer registrations than the suite recorded.
 *
 * Five scenes run here, each taking a path of its own (a refusal of well-matched photos,
 * repeated structure, photos of another scene, every pair a homography, the second matching).
 * doorway, ring and twoFocal run in `npm run bench -- stress`, which checks the same bounds and
 * exits 1 when one breaks, to keep `npm test` near its 12 minutes (docs/decisions.md, "Long
 * scenes in the bench").
 *
 * Not in the suite, because the pipeline does not pass it (see bench stress): a wall whose own
 * texture repeats exactly (70 % of the verified matches land on the wrong period).
 */
import { describe, expect, it } from "vitest";
import { PipelineError } from "../../../compute/scene/index.js";
import { runSfmOnViews, type SfmRun } from "../../support/sfm-run.js";
import { renderStressScene } from "../../support/stress-scenes.js";
import { MAX_CENTER_ERROR_PERCENT, MAX_ROTATION_ERROR_DEG, STRESS_RECORDED, STRESS_WIDTH, stressVerdict } from "../../support/stress-verdict.js";

describe("camera stress suite", () => {
  for (const record of STRESS_RECORDED.filter((r) => r.inTests)) {
    const { scene: name, registered, photos } = record;
    it(`${name}: ≥ ${registered}/${photos} registered (or refused when 0), none off by more than ${MAX_ROTATION_ERROR_DEG}° or ${MAX_CENTER_ERROR_PERCENT} % of the radius`, async () => {
      const width = record.width ?? STRESS_WIDTH;
      const scene = renderStressScene(name, { width, height: (width * 3) / 4, seed: 5 });
      expect(scene.views.length).toBe(photos);
      const outcome = await runSfmOnViews(scene.views, scene.truthNames, scene.sceneRadius).catch((err: unknown) => err);
      expect(stressVerdict(record, outcome)).toEqual([]);
      if (name === "panning" && outcome instanceof PipelineError) {
        // Its photos match each other well (no pair below 500 matches on the chain joining them):
        // refused without the second matching, which placed none of them in 12 s.
        // The advice is to move the camera, not to take photos closer together.
        expect(outcome.message).not.toContain("simulated oblique views");
        expect(outcome.message).toContain("the photos overlap well");
        expect(outcome.message).not.toContain("closer together");
        expect(outcome.suggestion).toContain("Move the camera between photos");
      }
      if (name === "wideRing") {
        // Plain matching alone places none of them: the placement is the second matching's.
        expect((outcome as SfmRun).wideBaseline[0]?.counts).toMatchObject({ placedBefore: 0, kept: 1 });
      }
    // 18–38 s a scene alone beside another test file (2026-12-02): far above that for a busy machine.
    }, 600_000);
  }
});
