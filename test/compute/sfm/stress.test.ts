/**
 * The camera stress suite (issue "Cameras you can trust"): rendered captures that each break
 * one assumption of incremental SfM (test/support/stress-scenes.ts), through ingest → features
 * → matching → sfm. In every one, no registered camera may be off by more than 1° or 1 % of the
 * scene radius after similarity alignment, photos of another scene must stay unregistered with
 * a reason, and the registration count may not fall below what the suite recorded when it
 * landed. `npm run bench -- stress` prints every camera's error.
 *
 * The sparse ring of 16 views around a dull object on black is in the suite as refused: at
 * 400×300 only 15–48 verified matches link neighbours (a third of them wrong), the seed pair
 * finds no third view, and the run stops with the reason rather than deliver two unchecked
 * cameras. Not in this suite yet, because the pipeline does not pass it (see bench stress): a
 * wall whose own texture repeats exactly (70 % of the verified matches land on the wrong
 * period).
 */
import { describe, expect, it } from "vitest";
import { PipelineError } from "../../../compute/scene/index.js";
import { runSfmOnViews } from "../../support/sfm-run.js";
import { renderStressScene, type StressSceneName } from "../../support/stress-scenes.js";

/** Registrations measured when the suite landed (commit of this file), per scene. */
const RECORDED: Array<{ scene: StressSceneName; registered: number; photos: number }> = [
  { scene: "doorway", registered: 10, photos: 10 },
  // Refused (not_enough_overlap): the photos do not place more than the seed pair. At 640×480
  // or at higher contrast it registers 6–16 photos, some 2–24 % of the radius off
  // (docs/decisions.md, "The sparse ring stress scene stays refused").
  { scene: "ring", registered: 0, photos: 16 },
  // A camera turning in place gives no parallax: the three cameras placed from the 1 % baseline
  // carried no point, so the run is refused (not_enough_overlap, with the reason) — right, since
  // no 3D model can come from it.
  { scene: "panning", registered: 0, photos: 9 },
  { scene: "tiled", registered: 10, photos: 10 },
  { scene: "twoFocal", registered: 12, photos: 12 },
  { scene: "mixed", registered: 8, photos: 11 },
  // The courtyard seen from its middle with a phone's wide lens and no EXIF is not here: the
  // default focal guess registered 10/16 with rotations off by 150°+, and the second guess
  // (focal-guess.ts) places all 16. sparse-courtyard.test.ts checks the same scene at 800×600
  // against a tighter bound (0.2°), so running it here too at 400×300 only cost a minute.
  // One flat wall and nothing else, no EXIF: every pair is a homography. The essential-matrix
  // seed was 21.6° off and grew cameras 3–26° off; the homography seed (planar-seed.ts) placed
  // 9 within 0.09°, the tenth left out because its own focal was not fixed by the photos; on
  // refined keypoints (stage keypoints) with independent focal starts, 10 within 0.021°.
  { scene: "mural", registered: 10, photos: 10 },
  // Eight photos 45° apart around a textured object: plain matching places none (refused); the
  // second matching against simulated oblique views (compute/pipeline/place-cameras.ts) places
  // all eight, 0.08° median and 0.12° at most.
  { scene: "wideRing", registered: 8, photos: 8 },
];

describe("camera stress suite", () => {
  for (const { scene: name, registered, photos } of RECORDED) {
    it(`${name}: ≥ ${registered}/${photos} registered (or refused when 0), none off by more than 1° or 1 % of the radius`, async () => {
      const scene = renderStressScene(name, { width: 400, height: 300, seed: 5 });
      expect(scene.views.length).toBe(photos);
      const outcome = await runSfmOnViews(scene.views, scene.truthNames, scene.sceneRadius).catch((err: unknown) => err);
      if (outcome instanceof PipelineError && registered === 0) {
        expect(outcome.code).toBe("not_enough_overlap");
        // Its photos match each other well (no pair below 500 matches on the chain joining them):
        // refused without the second matching, which placed none of them in 12 s.
        // The advice is to move the camera, not to take photos closer together.
        if (name === "panning") {
          expect(outcome.message).not.toContain("simulated oblique views");
          expect(outcome.message).toContain("the photos overlap well");
          expect(outcome.suggestion).toContain("Move the camera between photos");
        }
        return;
      }
      if (outcome instanceof Error) throw outcome;
      const { result, accuracy, registeredWithoutTruth, wideBaseline } = outcome as Awaited<ReturnType<typeof runSfmOnViews>>;
      expect(registeredWithoutTruth).toEqual([]);
      if (name === "wideRing") {
        // Plain matching alone places none of them: the placement is the second matching's.
        expect(wideBaseline[0]?.counts).toMatchObject({ placedBefore: 0, kept: 1 });
      }
      expect(result.model.views.length).toBeGreaterThanOrEqual(registered);
      if (accuracy.matched >= 3) {
        expect(accuracy.maxRotationErrorDeg).toBeLessThan(1);
        expect(accuracy.maxCenterErrorPercent).toBeLessThan(1);
      }
      // The report describes the kept model, also when other focal guesses built others.
      expect(result.report.counts.mergedIntrinsicsGroups).toBeLessThan(result.model.views.length);
      for (const image of result.report.perImage ?? []) {
        const entry = image as unknown as { registered: boolean; reason?: string };
        if (!entry.registered) expect(entry.reason?.length ?? 0).toBeGreaterThan(10);
      }
    }, 180_000);
  }
});
