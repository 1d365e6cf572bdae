/**
 * @module `npm run bench -- keypoints [set-name-filter...]`: how well the observations of each
 * track agree, before and after the keypoints stage, measured against the published cameras of
 * every set that has them: each track is triangulated through the published cameras and its
 * observations' reprojection errors are collected (errors above 3 px, wrong matches, are left
 * out of both sides). A lower error is what the bundle adjustment gains; it does not depend on
 * our own SfM.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { FRESH_FRONT } from "../compute/pipeline/front-pool.js";
import { QUALITY_PRESETS } from "../compute/pipeline/presets.js";
import * as keypoints from "../compute/stages/keypoints/index.js";
import { datasetInputs, datasetsRoot, listDatasets } from "./datasets.js";
import { runFront } from "./pipeline-front.js";
import { loadPublished, publishedCamera } from "./published.js";
import { trackAgreement } from "../test/support/track-agreement.js";

export async function run(args: string[]): Promise<void> {
  const filters = args.filter((a) => !a.startsWith("--"));
  const preset = { ...QUALITY_PRESETS.standard, keypoints: { enabled: false } };
  console.log("set | images | observations ≤ 3 px (detector → refined) | median px | RMS px | aligned / refused | stage s");
  for (const set of await listDatasets(filters)) {
    const setDir = path.join(datasetsRoot, set);
    const published = await loadPublished(setDir);
    if (!published) continue;
    const files = (await datasetInputs(setDir)).filter((f) => !/\.(mp4|mov)$/i.test(f.name) && published.byName.has(f.name));
    const work = await mkdtemp(path.join(tmpdir(), "bench-keypoints-"));
    try {
      const { images, detected, matched } = await runFront(files, work, preset, {}, FRESH_FRONT);
      const cameras = images.map((im) => publishedCamera(published.byName.get(im.name)!, im.width));
      const refined = await keypoints.run({ images, features: detected.features, tracks: matched.tracks });
      const before = trackAgreement(cameras, detected.features, matched.tracks);
      const after = trackAgreement(cameras, refined.features, matched.tracks);
      const c = refined.report.counts;
      console.log(`${set} | ${images.length} | ${before.observations} → ${after.observations} | ${before.medianPx.toFixed(3)} → ${after.medianPx.toFixed(3)} | ${before.rmsPx.toFixed(3)} → ${after.rmsPx.toFixed(3)} | ${c.aligned} / ${c.outside + c.diverged + c.dissimilar} | ${(refined.report.wallMs / 1000).toFixed(1)}`);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
}
