/**
 * End to end on rendered images: ingest → features → matching → sfm on 8 ray-cast views of
 * a textured object (15° apart on a ring, 640×480, EXIF 35 mm focal), against the renderer's
 * true cameras. The rendered texture is smooth at this size, so AKAZE runs with a low
 * threshold to find a few hundred keypoints per view.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as features from "../../../compute/stages/features/index.js";
import * as ingest from "../../../compute/stages/ingest/index.js";
import * as keypoints from "../../../compute/stages/keypoints/index.js";
import * as matching from "../../../compute/stages/matching/index.js";
import { cameraAccuracy } from "../../../compute/stages/sfm/accuracy.js";
import * as sfm from "../../../compute/stages/sfm/index.js";
import { encodeJpeg } from "../../support/fixtures.js";
import { renderScene, type RenderedScene } from "../../support/render.js";

const WIDTH = 640;
const HEIGHT = 480;

describe("sfm end to end on rendered views", () => {
  let dir = "";
  let scene: RenderedScene;
  let result: sfm.Output;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "sfm-e2e-"));
    scene = renderScene({ scene: "object", views: 8, width: WIDTH, height: HEIGHT, seed: 5 });
    const files = [];
    for (const view of scene.views) {
      // 35 mm equivalent focal over the diagonal (43.27 mm on film), as ingest reads it.
      const focal35 = Math.round((view.K[0] * 43.27) / Math.hypot(WIDTH, HEIGHT));
      const file = path.join(dir, `${view.name}.jpg`);
      await writeFile(file, await encodeJpeg(Buffer.from(view.rgb), WIDTH, HEIGHT, { make: "Test", model: "Render", focalLength35mm: focal35 }));
      files.push({ path: file, name: `${view.name}.jpg` });
    }
    const { images } = await ingest.run({ files, workDir: path.join(dir, "work") });
    const detected = await features.run({ images }, { workers: 1, threshold: 0.0001 });
    const matched = await matching.run({ images, features: detected.features });
    const refined = await keypoints.run({ images, features: detected.features, tracks: matched.tracks });
    result = sfm.run({ images, features: refined.features, pairs: matched.pairs, tracks: matched.tracks });
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("registers all 8 views with sub-pixel reprojection error", () => {
    expect(result.model.views.length).toBe(8);
    expect(result.report.counts.meanReprojectionErrorPx).toBeLessThan(1);
    expect(result.model.points.count).toBeGreaterThan(800);
  });

  it("recovers the true cameras within 1° and 2% of the scene radius, and the focal within 2%", () => {
    const truth = scene.views.map((v) => ({ name: `${v.name}.jpg`, camFromWorld: { R: v.R, t: v.t } }));
    const accuracy = cameraAccuracy(result.model.views.map((v) => ({ name: v.name, camFromWorld: v.camFromWorld })), truth, scene.sceneRadius);
    expect(accuracy.matched).toBe(8);
    expect(accuracy.maxRotationErrorDeg).toBeLessThan(1);
    expect(accuracy.maxCenterErrorPercent).toBeLessThan(2);
    for (const v of result.model.views) expect(Math.abs(v.intrinsics.focal / scene.views[0].K[0] - 1)).toBeLessThan(0.02);
  });
});
