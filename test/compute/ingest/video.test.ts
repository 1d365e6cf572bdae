import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../../compute/stages/ingest/index.js";
import { selectKeyframes } from "../../../compute/stages/ingest/keyframes.js";
import { estimateTranslation, meanBlockMotion } from "../../../compute/stages/ingest/motion.js";
import { blurRgb, encodeMp4, makePlaneScene, renderPlane, similarity } from "../../support/fixtures.js";

const WIDTH = 160;
const HEIGHT = 120;
const FRAMES = 40;
const PAN_PX = 3; // image motion per frame

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ingest-video-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("stages/ingest video", () => {
  it("cuts an MP4 into sharp, overlapping keyframes named <file>#<frame>", async () => {
    const scene = makePlaneScene(7, 400, 160, 500);
    const frames: Buffer[] = [];
    for (let i = 0; i < FRAMES; i++) {
      // Camera pans right: the plane moves left by PAN_PX per frame.
      const sharp = renderPlane(scene, WIDTH, HEIGHT, similarity(0, 1, 0, 0, -PAN_PX * i - 20, -20), 1);
      frames.push(i % 3 === 0 ? sharp : await blurRgb(sharp, WIDTH, HEIGHT, 2.5));
    }
    const path = join(dir, "clip.mp4");
    await encodeMp4(frames, WIDTH, HEIGHT, 10, path);
    const { images, report } = await run({ files: [{ path, name: "clip.mp4" }], workDir: join(dir, "out") }, { videoMinKeyframes: 3, videoMaxKeyframes: 20, videoMaxMotion: 0.15 });
    const indices = images.map((im) => im.video!.frame);
    // 117 px of travel in windows of 24 px: about five keyframes.
    expect(images.length).toBeGreaterThanOrEqual(4);
    expect(images.length).toBeLessThanOrEqual(10);
    expect(images.map((im) => im.name)).toEqual(indices.map((f) => `clip.mp4#${f}`));
    expect(indices.every((f) => f % 3 === 0)).toBe(true); // blurred frames are never chosen
    expect([...indices].sort((a, b) => a - b)).toEqual(indices);
    for (let k = 1; k < indices.length; k++) expect((indices[k] - indices[k - 1]) * PAN_PX).toBeLessThanOrEqual(0.15 * WIDTH + PAN_PX);
    expect(new Set(images.map((im) => im.focalPrior)).size).toBe(1);
    expect(images.every((im) => im.width === WIDTH && im.height === HEIGHT && im.video!.file === "clip.mp4")).toBe(true);
    expect(report.counts.videoKeyframes).toBe(images.length);
  });

  it("estimates global translation and falls back to time windows for a static shot", () => {
    const scene = makePlaneScene(3, 300, 200, 400);
    const a = renderPlane(scene, 120, 90, similarity(0, 1, 0, 0, -30, -30), 1);
    const b = renderPlane(scene, 120, 90, similarity(0, 1, 0, 0, -30 - 7, -30 + 4), 1);
    const gray = (rgb: Buffer) => Uint8Array.from({ length: rgb.length / 3 }, (_, i) => (rgb[3 * i] + rgb[3 * i + 1] + rgb[3 * i + 2]) / 3);
    expect(estimateTranslation(gray(a), gray(b), 120, 90)).toEqual([-7, 4]);
    // Halves moving against each other (an orbited object before its background): the global
    // shift describes one half only, the block motion measures both.
    const c = renderPlane(scene, 120, 90, similarity(0, 1, 0, 0, -30 + 5, -30), 1);
    const d = renderPlane(scene, 120, 90, similarity(0, 1, 0, 0, -30 - 5, -30), 1);
    const split = Buffer.from(c);
    for (let y = 0; y < 90; y++) d.copy(split, 3 * (y * 120 + 60), 3 * (y * 120 + 60), 3 * (y * 120 + 120));
    expect(meanBlockMotion(gray(a), gray(a), 120, 90)).toBe(0);
    expect(meanBlockMotion(gray(a), gray(b), 120, 90)).toBeCloseTo(Math.hypot(7, 4), 0);
    expect(Math.abs(meanBlockMotion(gray(renderPlane(scene, 120, 90, similarity(0, 1, 0, 0, -30, -30), 1)), gray(split), 120, 90) - 5)).toBeLessThan(1);
    const still = selectKeyframes(Float64Array.from({ length: 30 }, (_, i) => i % 5), new Float64Array(30), 0.15, 6, 20);
    expect(still).toEqual([4, 9, 14, 19, 24, 29]);
  });
});
