/**
 * Wide-baseline matching (compute/stages/features/views.ts,
 * compute/stages/matching/match-simulated-views.ts) on a textured plane seen frontally and at
 * 56° (squeezed 1.8× along one direction): the plain matching finds few correspondences there,
 * the view-by-view matching against simulated oblique views finds many more, and they lie where
 * the true homography puts them.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImageRef } from "../../../compute/scene/images.js";
import * as features from "../../../compute/stages/features/index.js";
import { partsPerImage } from "../../../compute/stages/features/simulate.js";
import { viewAngles, viewGeometry } from "../../../compute/stages/features/views.js";
import * as matching from "../../../compute/stages/matching/index.js";
import { applyH, encodePng, invert3x3, makePlaneScene, renderPlane } from "../../support/fixtures.js";

const W = 400;
const H = 300;

/** Row-major 3×3 product. */
function mul(a: ArrayLike<number>, b: ArrayLike<number>): Float64Array {
  const out = new Float64Array(9);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) for (let k = 0; k < 3; k++) out[3 * r + c] += a[3 * r + k] * b[3 * k + c];
  return out;
}

/** Image from plane: the plane's (px, py) about its centre, rotated by `angle`, squeezed by `squeeze` along x, shown at the image centre. */
function viewOf(angle: number, squeeze: number, scale: number): Float64Array {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  const toCentre = Float64Array.of(1, 0, -300, 0, 1, -225, 0, 0, 1);
  const rotate = Float64Array.of(c, -s, 0, s, c, 0, 0, 0, 1);
  const squeezeX = Float64Array.of(scale / squeeze, 0, W / 2, 0, scale, H / 2, 0, 0, 1);
  return mul(squeezeX, mul(rotate, toCentre));
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "wide-baseline-test-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("simulated oblique views", () => {
  it("samples ASIFT's directions: 72°/t apart over half a turn", () => {
    expect(viewAngles(Math.SQRT2).map((a) => Math.round((a * 180) / Math.PI))).toEqual([0, 51, 102, 153]);
    expect(viewAngles(2)).toHaveLength(5);
  });

  it("maps the whole image onto its canvas, squeezed by t along x, pixel centres aligned", () => {
    for (const phi of viewAngles(Math.SQRT2)) {
      const { forward, rotate, fullWidth, canvasWidth, canvasHeight } = viewGeometry(phi, Math.SQRT2, 640, 480, 1);
      // Pixel centres are at integers: the image spans [−½, w − ½].
      for (const [x, y] of [[-0.5, -0.5], [639.5, -0.5], [-0.5, 479.5], [639.5, 479.5]]) {
        const u = forward[0] * x + forward[1] * y + forward[2];
        const v = forward[3] * x + forward[4] * y + forward[5];
        expect(u).toBeGreaterThan(-0.5 - 1e-6);
        expect(v).toBeGreaterThan(-0.5 - 1e-6);
        expect(u).toBeLessThan(canvasWidth - 0.5 + 1e-6);
        expect(v).toBeLessThan(canvasHeight - 0.5 + 1e-6);
      }
      // The resize maps the canvas's first and last pixel centres' outer edges onto each other.
      const rx = canvasWidth / fullWidth;
      const along = (x: number, y: number) => rx * (rotate[0] * x + rotate[1] * y + rotate[2] + 0.5) - 0.5;
      expect(forward[0] * 10 + forward[1] * 20 + forward[2]).toBeCloseTo(along(10, 20), 9);
      expect(rx).toBeCloseTo(1 / Math.SQRT2, 2);
      expect(Math.hypot(forward[3], forward[4])).toBeCloseTo(1, 9);
    }
  });
});

describe("simulated views split over the workers", () => {
  it("splits an image's views only when the images do not divide among the workers", () => {
    expect(partsPerImage(3, 2, 4)).toBe(2);
    expect(partsPerImage(8, 2, 4)).toBe(1);
    expect(partsPerImage(5, 2, 4)).toBe(2);
    expect(partsPerImage(11, 2, 4)).toBe(1);
    expect(partsPerImage(1, 4, 4)).toBe(4);
    expect(partsPerImage(7, 1, 4)).toBe(1);
  });

  it("gives the same views, in the same order, split over two workers as whole on one", async () => {
    const scene = makePlaneScene(11, 600, 450, 1600);
    const images: ImageRef[] = [];
    for (const [index, imageFromPlane] of [viewOf(0, 1, 0.75), viewOf(0.5, 1.8, 0.9), viewOf(-0.4, 1.3, 0.8)].entries()) {
      const path = join(dir, `split${index}.png`);
      await writeFile(path, await encodePng(renderPlane(scene, W, H, imageFromPlane), W, H));
      images.push({ index, name: `split${index}.png`, path, width: W, height: H, focalPrior: 480, focalPriorSource: "default" });
    }
    const options = { ...features.DEFAULTS, maxFeatures: 1000 };
    const whole = await features.simulateViews(images, { ...options, workers: 1 });
    const split = await features.simulateViews(images, { ...options, workers: 2 });
    expect(split.map((s) => s.imageIndex)).toEqual([0, 1, 2]);
    for (const [i, image] of whole.entries()) {
      expect(image.views).toHaveLength(4);
      expect(split[i].views).toHaveLength(4);
      for (const [v, view] of image.views.entries()) {
        expect(view.count).toBeGreaterThan(0);
        expect(Array.from(split[i].views[v].xy)).toEqual(Array.from(view.xy));
        expect(Array.from(split[i].views[v].descriptors)).toEqual(Array.from(view.descriptors));
      }
    }
  }, 120_000);
});

describe("wide-baseline matching on a plane seen frontally and at 56°", () => {
  it("finds many more correspondences than plain matching, on the true homography, and only adds keypoints", async () => {
    const scene = makePlaneScene(7, 600, 450, 1600);
    const frontal = viewOf(0, 1, 0.75);
    const oblique = viewOf(0.5, 1.8, 0.9);
    const images: ImageRef[] = [];
    for (const [index, imageFromPlane] of [frontal, oblique].entries()) {
      const path = join(dir, `plane${index}.png`);
      await writeFile(path, await encodePng(renderPlane(scene, W, H, imageFromPlane), W, H));
      images.push({ index, name: `plane${index}.png`, path, width: W, height: H, focalPrior: 480, focalPriorSource: "default" });
    }
    const options = { ...features.DEFAULTS, maxFeatures: 2000, workers: 2 };
    const detected = await features.run({ images }, options);
    const plain = await matching.run({ images, features: detected.features }, { workers: 2 });
    const plainInliers = plain.pairs.reduce((sum, p) => sum + p.matches.length / 2, 0);
    const views = await features.simulateViews(images, options);
    expect(views.map((v) => v.views.length)).toEqual([4, 4]);
    const wide = await matching.rematchWideBaseline({ images, features: detected.features, views, pairs: plain.pairs, targets: [0, 1] });
    expect(wide.pairs).toHaveLength(1);
    const pair = wide.pairs[0];
    const inliers = pair.matches.length / 2;
    expect(inliers).toBeGreaterThanOrEqual(Math.max(60, 2 * plainInliers));
    // Every correspondence where the true homography (frontal → oblique) puts it.
    const obliqueFromFrontal = mul(oblique, invert3x3(frontal));
    const [fa, fb] = wide.features;
    const errors: number[] = [];
    for (let k = 0; k < pair.matches.length; k += 2) {
      // renderPlane and the features both put pixel centres at +0.5: the homography applies as is.
      const [x, y] = applyH(obliqueFromFrontal, fa.xy[2 * pair.matches[k]], fa.xy[2 * pair.matches[k] + 1]);
      errors.push(Math.hypot(x - fb.xy[2 * pair.matches[k + 1]], y - fb.xy[2 * pair.matches[k + 1] + 1]));
    }
    // The fundamental matrix cannot reject a wrong match along its epipolar line, and a plane
    // gives it room (9 % here, 3–11 px off, all from the views): SfM's triangulation does that.
    errors.sort((a, b) => a - b);
    expect(errors.filter((e) => e < 2).length / errors.length).toBeGreaterThan(0.85);
    expect(errors[errors.length >> 1]).toBeLessThan(0.8);
    // A keypoint is in a pair's matches once.
    expect(new Set(Array.from(pair.matches.filter((_, i) => i % 2 === 0))).size).toBe(inliers);
    expect(new Set(Array.from(pair.matches.filter((_, i) => i % 2 === 1))).size).toBe(inliers);
    // The plain keypoints are kept as they were; the views' are added after them.
    for (const [i, before] of detected.features.entries()) {
      const after = wide.features[i];
      expect(after.count).toBeGreaterThanOrEqual(before.count);
      expect(Array.from(after.xy.subarray(0, 2 * before.count))).toEqual(Array.from(before.xy));
      expect(Array.from(after.descriptors.subarray(0, before.descriptors.length))).toEqual(Array.from(before.descriptors));
    }
    expect(wide.report.counts.keypointsAdded).toBeGreaterThan(0);
    expect(wide.tracks.count).toBe(inliers);
  }, 120_000);
});
