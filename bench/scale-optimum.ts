/**
 * @module `npm run bench -- scale --optimum`: for each survey, is the camera error the pipeline's
 * or the photos'? In a process of its own: `tsx bench/scale-optimum.ts <survey dir> <width> <height>`.
 * Runs ingest, features, matching and SfM at the standard preset as the pipeline does, then
 * bundle adjustment of the model's own observations started from the true cameras
 * (bench/optimum.ts). Prints one JSON line: the model against the truth, that optimum against
 * the truth (the best any estimator does with these observations), and the model against the
 * optimum (what the pipeline left on the table).
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { QUALITY_PRESETS } from "../compute/pipeline/presets.js";
import { cameraAccuracy } from "../compute/stages/sfm/accuracy.js";
import * as sfm from "../compute/stages/sfm/index.js";
import { SURVEY_FOCAL_WIDTHS } from "../test/support/survey-scene.js";
import { observationsOptimum, type TrueCamera } from "./optimum.js";
import { runFront } from "./pipeline-front.js";

async function main(): Promise<void> {
  const [dir, width, height] = process.argv.slice(2);
  const truth = JSON.parse(await readFile(path.join(dir, "truth.json"), "utf8")) as { sceneRadius: number; cameras: Array<{ name: string; R: number[]; t: number[] }> };
  const [w, h] = [Number(width), Number(height)];
  // The survey renders a pinhole camera: focal SURVEY_FOCAL_WIDTHS image widths, principal point at the centre.
  const cameras: TrueCamera[] = truth.cameras.map((c) => ({ name: c.name, camFromWorld: { R: Float64Array.from(c.R), t: Float64Array.from(c.t) }, focal: SURVEY_FOCAL_WIDTHS * w, cx: w / 2, cy: h / 2 }));
  const names = (await readdir(path.join(dir, "photos"))).filter((n) => n.endsWith(".jpg")).sort();
  const workDir = await mkdtemp(path.join(tmpdir(), "scale-optimum-"));
  try {
    const preset = QUALITY_PRESETS.standard;
    const front = await runFront(names.map((name) => ({ path: path.join(dir, "photos", name), name })), workDir, preset, {});
    const out = await sfm.run({ images: front.images, features: front.detected.features, pairs: front.matched.pairs, tracks: front.matched.tracks }, preset.sfm);
    const model = cameraAccuracy(out.model.views.map((v) => ({ name: v.name, camFromWorld: v.camFromWorld })), cameras, truth.sceneRadius);
    const optimum = observationsOptimum(out.model, front.detected.features, cameras, truth.sceneRadius);
    console.log(JSON.stringify({ photos: names.length, registered: out.model.views.length, model, optimum }));
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
