/**
 * @module Runs rendered views through the real front of the pipeline (ingest → features →
 * matching → sfm) as the service would for an upload of JPEG photos without EXIF, and measures
 * the registered cameras against the renderer's.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { placeCameras } from "../../compute/pipeline/place-cameras.js";
import * as features from "../../compute/stages/features/index.js";
import * as ingest from "../../compute/stages/ingest/index.js";
import * as keypoints from "../../compute/stages/keypoints/index.js";
import * as matching from "../../compute/stages/matching/index.js";
import { cameraAccuracy, type CameraAccuracy } from "../../compute/stages/sfm/accuracy.js";
import * as sfm from "../../compute/stages/sfm/index.js";
import type { ImageFeatures, StageReport } from "../../compute/scene/index.js";
import { encodeJpeg, type ExifFields } from "./fixtures.js";
import type { RenderedView } from "./render.js";

export interface SfmRun {
  result: sfm.Output;
  /** The wide-baseline matching's reports, when it ran (compute/pipeline/place-cameras.ts). */
  wideBaseline: StageReport[];
  accuracy: CameraAccuracy;
  /** Registered photos that have no ground truth (photos of another scene). */
  registeredWithoutTruth: string[];
  /** The features the model's observations index (for benchmarks that re-adjust them). */
  features: ImageFeatures[];
}

/** `exifOf` gives a view's EXIF (default none: a photo without metadata). */
export async function runSfmOnViews(views: RenderedView[], truthNames: Set<string>, sceneRadius: number, sfmOptions: Partial<sfm.Options> = {}, exifOf: (view: RenderedView, index: number) => ExifFields = () => ({})): Promise<SfmRun> {
  const dir = await mkdtemp(path.join(tmpdir(), "sfm-run-"));
  try {
    const files = [];
    for (const [index, view] of views.entries()) {
      const file = path.join(dir, `${view.name}.jpg`);
      await writeFile(file, await encodeJpeg(Buffer.from(view.rgb), view.width, view.height, exifOf(view, index)));
      files.push({ path: file, name: `${view.name}.jpg` });
    }
    const { images } = await ingest.run({ files, workDir: path.join(dir, "work") });
    const detected = await features.run({ images }, { workers: 1 });
    const matched = await matching.run({ images, features: detected.features });
    const refined = await keypoints.run({ images, features: detected.features, tracks: matched.tracks });
    // As the pipeline does: a small upload that leaves photos out is matched again against simulated oblique views.
    const placed = await placeCameras({ images, refined: refined.features, unrefined: detected.features, pairs: matched.pairs, tracks: matched.tracks }, { features: { workers: 1 }, matching: {}, keypoints: {}, sfm: sfmOptions });
    const result = placed.sfm;
    const truth = views.filter((v) => truthNames.has(v.name)).map((v) => ({ name: `${v.name}.jpg`, camFromWorld: { R: v.R, t: v.t } }));
    const estimated = result.model.views.map((v) => ({ name: v.name, camFromWorld: v.camFromWorld }));
    const known = new Set(truth.map((t) => t.name));
    return {
      result,
      wideBaseline: placed.reports,
      accuracy: cameraAccuracy(estimated, truth, sceneRadius),
      registeredWithoutTruth: estimated.filter((e) => !known.has(e.name)).map((e) => e.name),
      features: placed.features,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
