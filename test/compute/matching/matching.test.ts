import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImageRef } from "../../../compute/scene/images.js";
import * as features from "../../../compute/stages/features/index.js";
import { run } from "../../../compute/stages/matching/index.js";
import { applyH, encodePng, invert3x3, makePlaneScene, PLANE_VIEWS, renderPlane } from "../../support/fixtures.js";

const W = 400;
const H = 300;

/** Three views of the plane. */
const VIEWS = PLANE_VIEWS.slice(0, 3);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "matching-test-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("stages/matching on a textured plane", () => {
  it("verifies every pair, flags them homography, and builds consistent tracks on the true plane points", async () => {
    const scene = makePlaneScene(21, 600, 450, 1400);
    const images: ImageRef[] = [];
    for (const [index, imageFromPlane] of VIEWS.entries()) {
      const path = join(dir, `plane${index}.png`);
      await writeFile(path, await encodePng(renderPlane(scene, W, H, imageFromPlane), W, H));
      images.push({ index, name: `plane${index}.png`, path, width: W, height: H, focalPrior: 480, focalPriorSource: "default" });
    }
    const detected = await features.run({ images }, { maxFeatures: 1200, workers: 2 });
    const fractions: number[] = [];
    const { pairs, tracks, report } = await run({ images, features: detected.features }, { workers: 2 }, (f) => fractions.push(f));
    expect(fractions.at(-1)).toBe(1);
    expect(pairs.map((p) => `${p.imageA}-${p.imageB}`).sort()).toEqual(["0-1", "0-2", "1-2"]);
    const planeFrom = VIEWS.map(invert3x3);
    for (const p of pairs) {
      expect(p.model).toBe("homography");
      expect(p.homographyRatio).toBeGreaterThanOrEqual(0.8);
      expect(p.matches.length / 2).toBeGreaterThan(80);
      const a = detected.features[p.imageA];
      const b = detected.features[p.imageB];
      let close = 0;
      for (let k = 0; k < p.matches.length; k += 2) {
        const [u, v] = applyH(planeFrom[p.imageA], a.xy[2 * p.matches[k]], a.xy[2 * p.matches[k] + 1]);
        const [x, y] = applyH(VIEWS[p.imageB], u, v);
        if (Math.hypot(x - b.xy[2 * p.matches[k + 1]], y - b.xy[2 * p.matches[k + 1] + 1]) <= 2) close++;
      }
      expect(close / (p.matches.length / 2)).toBeGreaterThan(0.97);
    }
    // Tracks: CSR invariants, one keypoint per image, all observations of one plane point.
    expect(tracks.trackOffsets[tracks.count]).toBe(tracks.trackImages.length);
    let longTracks = 0;
    let offPlane = 0;
    for (let t = 0; t < tracks.count; t++) {
      const from = tracks.trackOffsets[t];
      const to = tracks.trackOffsets[t + 1];
      expect(to - from).toBeGreaterThanOrEqual(2);
      const seen = new Set<number>();
      const points: Array<[number, number]> = [];
      for (let j = from; j < to; j++) {
        const image = tracks.trackImages[j];
        expect(seen.has(image)).toBe(false);
        seen.add(image);
        const f = detected.features[image];
        points.push(applyH(planeFrom[image], f.xy[2 * tracks.trackKeypoints[j]], f.xy[2 * tracks.trackKeypoints[j] + 1]));
      }
      if (to - from === 3) longTracks++;
      if (points.some(([u, v]) => Math.hypot(u - points[0][0], v - points[0][1]) > 3)) offPlane++;
    }
    expect(longTracks).toBeGreaterThan(50);
    expect(offPlane / tracks.count).toBeLessThan(0.02);
    expect(report.counts).toMatchObject({ candidatePairs: 3, verifiedPairs: 3, homographyPairs: 3, tracks: tracks.count, exhaustive: 1 });
  });

  it("copes with an image without keypoints (blank photo): no pairs for it, the others still match", async () => {
    const scene = makePlaneScene(41, 600, 450, 1400);
    const images: ImageRef[] = [];
    for (const [index, imageFromPlane] of VIEWS.slice(0, 2).entries()) {
      const path = join(dir, `pair${index}.png`);
      await writeFile(path, await encodePng(renderPlane(scene, W, H, imageFromPlane), W, H));
      images.push({ index, name: `pair${index}.png`, path, width: W, height: H, focalPrior: 480, focalPriorSource: "default" });
    }
    const blank = join(dir, "blank.png");
    await writeFile(blank, await encodePng(Buffer.alloc(W * H * 3, 128), W, H));
    images.push({ index: 2, name: "blank.png", path: blank, width: W, height: H, focalPrior: 480, focalPriorSource: "default" });
    const detected = await features.run({ images }, { maxFeatures: 800, workers: 2 });
    expect(detected.features[2].count).toBe(0);
    expect(detected.features[2].descriptorBytes).toBe(61);
    const { pairs, report } = await run({ images, features: detected.features }, { workers: 1 });
    expect(pairs.map((p) => `${p.imageA}-${p.imageB}`)).toEqual(["0-1"]);
    expect(report.warnings.some((w) => w.startsWith("blank.png"))).toBe(true);
  });

  it("keeps a pair with parallax as fundamental, its inliers on the true epipolar lines", async () => {
    // A camera translating along x before two fronto-parallel planes at different depths: the
    // near plane (left half) shifts 24 px, the far one (right half) 6 px. Epipolar lines are
    // the image rows (F = [e₁]ₓ), and no single homography explains both halves.
    const near = makePlaneScene(31, 700, 400, 900);
    const far = makePlaneScene(32, 700, 400, 900);
    const images: ImageRef[] = [];
    for (const index of [0, 1]) {
      const left = renderPlane(near, W, H, [1, 0, -100 + 24 * index, 0, 1, -50, 0, 0, 1]);
      const right = renderPlane(far, W, H, [1, 0, -100 + 6 * index, 0, 1, -50, 0, 0, 1]);
      for (let y = 0; y < H; y++) left.copy(right, 3 * y * W, 3 * y * W, 3 * (y * W + W / 2)); // left half from the near plane
      const path = join(dir, `stereo${index}.png`);
      await writeFile(path, await encodePng(right, W, H));
      images.push({ index, name: `stereo${index}.png`, path, width: W, height: H, focalPrior: 480, focalPriorSource: "default" });
    }
    const detected = await features.run({ images }, { maxFeatures: 1500, workers: 2 });
    const { pairs } = await run({ images, features: detected.features }, { workers: 1 });
    expect(pairs).toHaveLength(1);
    const [pair] = pairs;
    expect(pair.model).toBe("fundamental");
    expect(pair.homographyRatio).toBeLessThan(0.8);
    const [a, b] = detected.features;
    let onRow = 0;
    const disparities = new Set<number>();
    for (let k = 0; k < pair.matches.length; k += 2) {
      const dy = b.xy[2 * pair.matches[k + 1] + 1] - a.xy[2 * pair.matches[k] + 1];
      const dx = b.xy[2 * pair.matches[k + 1]] - a.xy[2 * pair.matches[k]];
      if (Math.abs(dy) < 1.5) onRow++;
      disparities.add(Math.round(dx / 6) * 6);
    }
    expect(onRow / (pair.matches.length / 2)).toBeGreaterThan(0.97);
    expect(disparities.has(24) && disparities.has(6)).toBe(true); // inliers on both planes
  });
});
