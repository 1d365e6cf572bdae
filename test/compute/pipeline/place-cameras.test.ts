/**
 * Camera placement's second matching (compute/pipeline/place-cameras.ts) on the front's workers:
 * a small upload keeps them loaded through SfM, so a refusal does not wait for new threads to
 * load OpenCV.js (compute/pipeline/index.ts).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFrontWorkers, type FrontWorkers } from "../../../compute/pipeline/front-pool.js";
import { placeCameras } from "../../../compute/pipeline/place-cameras.js";
import { PipelineError } from "../../../compute/scene/index.js";
import * as features from "../../../compute/stages/features/index.js";
import * as ingest from "../../../compute/stages/ingest/index.js";
import * as keypoints from "../../../compute/stages/keypoints/index.js";
import * as matching from "../../../compute/stages/matching/index.js";
import { createRng } from "../../../compute/math/random.js";

/** Three photos of unrelated noise: nothing matches, so SfM refuses and the second matching runs. */
async function noisePhotos(dir: string): Promise<Array<{ path: string; name: string }>> {
  const files: Array<{ path: string; name: string }> = [];
  for (let i = 0; i < 3; i++) {
    const rng = createRng(1234 + i);
    const width = 240;
    const height = 160;
    // Random grey 4-px blocks, so AKAZE finds corners rather than pixel noise.
    const blocks = Array.from({ length: (width / 4) * (height / 4) }, () => Math.floor(256 * rng()));
    const rgb = new Uint8Array(width * height * 3);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) rgb.fill(blocks[(y >> 2) * (width / 4) + (x >> 2)], 3 * (y * width + x), 3 * (y * width + x) + 3);
    const file = path.join(dir, `noise-${i}.png`);
    await sharp(rgb, { raw: { width, height, channels: 3 } }).png().toFile(file);
    files.push({ path: file, name: `noise-${i}.png` });
  }
  return files;
}

/** The workers, counting the tasks each of the second matching's runners is given. */
function counted(front: FrontWorkers): { front: FrontWorkers; tasks: { views: number; viewPairs: number } } {
  const tasks = { views: 0, viewPairs: 0 };
  return {
    tasks,
    front: {
      ...front,
      views: { size: front.views.size, run: (task, transfer) => (tasks.views++, front.views.run(task, transfer)) },
      viewPairs: { size: front.viewPairs.size, run: (task, transfer) => (tasks.viewPairs++, front.viewPairs.run(task, transfer)) },
    },
  };
}

describe("placeCameras on the front's workers", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "place-cameras-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("runs the second matching on the workers it is given and leaves them loaded for the caller", async () => {
    const workers = startFrontWorkers(1);
    try {
      const { images } = await ingest.run({ files: await noisePhotos(dir), workDir: path.join(dir, "work") }, {});
      const detected = await features.run({ images }, { workers: 1 }, undefined, workers.features);
      const matched = await matching.run({ images, features: detected.features }, {}, undefined, workers.matching);
      const refined = await keypoints.run({ images, features: detected.features, tracks: matched.tracks }, {});
      const { front, tasks } = counted(workers);
      const placing = placeCameras({ images, refined: refined.features, unrefined: detected.features, pairs: matched.pairs, tracks: matched.tracks, front }, { features: { workers: 1 }, matching: {}, keypoints: {}, sfm: {} });
      await expect(placing).rejects.toBeInstanceOf(PipelineError);
      await expect(placing).rejects.toMatchObject({ code: "not_enough_overlap", message: expect.stringContaining("simulated oblique views") });
      // One views task per photo and one matching per pair, all on the given workers…
      expect(tasks).toEqual({ views: 3, viewPairs: 3 });
      // …which are still open: a closed pool would reject the ping.
      expect(await workers.heapBytes()).toHaveLength(1);
    } finally {
      await workers.close();
    }
  }, 120_000);
});
