/**
 * The edge's first time estimate (edge/scheduling/estimate.ts) against the caps compute's pipeline
 * applies (compute/pipeline/presets.ts, which the ingest stage receives): for each quality
 * preset, a photo far larger than the cap is costed at the side the pipeline stores it at, and a
 * very long video at the pipeline's keyframe cap. A cap changed on one side only fails here.
 * Both sides take the caps from shared/presets.ts; edge/ and compute/ never import each other.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inputSeconds, KEYFRAMES_PER_VIDEO_MIB, SECONDS_PER_IMAGE, SECONDS_PER_STORED_MEGAPIXEL } from "../../../edge/scheduling/estimate.js";
import { QUALITY_PRESETS } from "../../../compute/pipeline/presets.js";
import { run as ingest } from "../../../compute/stages/ingest/index.js";
import { Quality } from "../../../shared/jobs.js";
import { PRESET_CAPS } from "../../../shared/presets.js";
import { encodeJpeg, quadrantImage } from "../../support/fixtures.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const MIB = 1024 * 1024;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "preset-caps-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("preset caps: the edge's estimate and compute's pipeline", () => {
  for (const quality of Quality.options) {
    it(`${quality}: the estimate stores a large photo at the pipeline's side and caps a long video at its keyframes`, () => {
      const { maxImageSide, videoMaxKeyframes } = QUALITY_PRESETS[quality].ingest;
      expect(maxImageSide).toBeGreaterThan(0);
      expect(videoMaxKeyframes).toBeGreaterThan(0);
      // A 4:3 photo of 40000 × 30000 px is stored at maxImageSide × ¾ of it.
      const side = maxImageSide!;
      const stored = (side * side * 3) / 4;
      expect(inputSeconds({ kind: "jpeg", size: 1, pixels: 40_000 * 30_000 }, quality)).toBeCloseTo(SECONDS_PER_IMAGE + (SECONDS_PER_STORED_MEGAPIXEL * stored) / 1e6, 9);
      // One exactly at the cap is costed whole.
      expect(inputSeconds({ kind: "jpeg", size: 1, pixels: stored }, quality)).toBeCloseTo(SECONDS_PER_IMAGE + (SECONDS_PER_STORED_MEGAPIXEL * stored) / 1e6, 9);
      // A 100-GiB video: as many keyframes as the pipeline keeps at most, each costed as a 1080p frame.
      const frame = inputSeconds({ kind: "jpeg", size: 1, pixels: 1920 * 1080 }, quality);
      expect(inputSeconds({ kind: "mp4", size: 100 * 1024 * MIB }, quality)).toBeCloseTo(videoMaxKeyframes! * frame, 9);
      expect(inputSeconds({ kind: "mov", size: 100 * 1024 * MIB }, quality)).toBeCloseTo(videoMaxKeyframes! * frame, 9);
      // And the video cap binds: one keyframe's worth less of video is costed below it.
      const belowCap = ((videoMaxKeyframes! - 1) / KEYFRAMES_PER_VIDEO_MIB) * MIB;
      expect(inputSeconds({ kind: "mp4", size: belowCap }, quality)).toBeLessThan(videoMaxKeyframes! * frame);
      // Both are the shared caps.
      expect({ storedSide: side, videoMaxKeyframes }).toEqual(PRESET_CAPS[quality]);
    });
  }

  it("the pipeline stores a photo larger than every preset's side at that side", async () => {
    const width = 4000;
    const height = 3000;
    const file = path.join(dir, "large.jpg");
    await writeFile(file, await encodeJpeg(quadrantImage(width, height, [[220, 20, 20], [20, 200, 20], [20, 20, 220], [240, 240, 240]]), width, height));
    for (const quality of Quality.options) {
      // Twice: ingest wants at least two usable images.
      const files = ["a.jpg", "b.jpg"].map((name) => ({ path: file, name }));
      const { images } = await ingest({ files, workDir: path.join(dir, quality) }, QUALITY_PRESETS[quality].ingest);
      expect(images.map((image) => Math.max(image.width, image.height))).toEqual([PRESET_CAPS[quality].storedSide, PRESET_CAPS[quality].storedSide]);
    }
  });

  it("edge/ and compute/ import nothing from each other, and shared/ nothing from either", async () => {
    const sources = async (folder: string): Promise<string[]> => {
      const entries = await readdir(path.join(root, folder), { recursive: true, withFileTypes: true });
      return entries.filter((e) => e.isFile() && e.name.endsWith(".ts")).map((e) => path.join(e.parentPath, e.name));
    };
    const importsOf = async (file: string) => [...(await readFile(file, "utf8")).matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)].map((m) => path.resolve(path.dirname(file), m[1]));
    const inside = (target: string, folder: string) => target.startsWith(path.join(root, folder) + path.sep);
    for (const file of await sources("edge")) for (const target of await importsOf(file)) expect(inside(target, "compute"), `${path.relative(root, file)} imports ${path.relative(root, target)}`).toBe(false);
    for (const file of await sources("compute")) for (const target of await importsOf(file)) expect(inside(target, "edge"), `${path.relative(root, file)} imports ${path.relative(root, target)}`).toBe(false);
    for (const file of await sources("shared")) for (const target of await importsOf(file)) expect(inside(target, "compute") || inside(target, "edge"), `${path.relative(root, file)} imports ${path.relative(root, target)}`).toBe(false);
  });
});
