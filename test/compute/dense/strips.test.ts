import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rm } from "node:fs/promises";
import path from "node:path";
import { run, type DenseOutput } from "../../../compute/stages/dense/index.js";
import { stripsOf } from "../../../compute/stages/dense/strips.js";
import { denseFixture, type DenseFixture } from "./fixture.js";
import { depthMapFigures } from "./metrics.js";

describe("dense strips", () => {
  it("tile the longer side: owned parts meet edge to edge, crops overlap them inside the image", () => {
    for (const [width, height, count] of [[800, 533, 2], [533, 800, 2], [801, 600, 3], [320, 240, 4]] as const) {
      const strips = stripsOf(width, height, count);
      const side = Math.max(width, height);
      expect(strips).toHaveLength(count);
      expect(strips[0].ownFrom).toBe(0);
      expect(strips[count - 1].ownTo).toBe(side);
      strips.forEach((s, k) => {
        expect(s.axis).toBe(width >= height ? "x" : "y");
        if (k > 0) expect(s.ownFrom).toBe(strips[k - 1].ownTo);
        const [from, length, across] = s.axis === "x" ? [s.x, s.width, s.height] : [s.y, s.height, s.width];
        expect(across).toBe(Math.min(width, height));
        expect(from).toBeGreaterThanOrEqual(0);
        expect(from + length).toBeLessThanOrEqual(side);
        // At least 32 px of overlap on every inner edge.
        if (k > 0) expect(s.ownFrom - from).toBeGreaterThanOrEqual(32);
        if (k < count - 1) expect(from + length - s.ownTo).toBeGreaterThanOrEqual(32);
      });
    }
  });
});

/**
 * Three 320×240 views: the third is solved as two strips side by side, on one thread as on two.
 * The stitched view must hold the bounds of pyramid.test.ts, and the model must not depend on the
 * threads (a cluster solved as a task on another machine gives the same).
 */
describe("dense with an odd count of views", () => {
  let fixture: DenseFixture;
  let twoThreads: DenseOutput;
  let oneThread: DenseOutput;

  beforeAll(async () => {
    fixture = await denseFixture({ scene: "object", views: 3, width: 320, height: 240, seed: 5 });
    const common = { keepDepthMaps: true, iterations: 3, windowStep: 1, minFusedViews: 2, pyramidLevels: 1, refineIterations: 1 };
    twoThreads = await run({ images: fixture.images, model: fixture.model }, { ...common, workers: 2 });
    oneThread = await run({ images: fixture.images, model: fixture.model }, { ...common, workers: 1 });
  });

  afterAll(async () => {
    if (fixture) await rm(path.dirname(fixture.images[0].path), { recursive: true, force: true });
  });

  it("solves the last view in two strips within the whole views' bounds, the same on one thread as on two", () => {
    for (const out of [twoThreads, oneThread]) {
      expect(out.report.counts.viewsInStrips).toBe(1);
      expect(out.report.perImage!.filter((p) => p.strips === 2)).toHaveLength(1);
    }
    const last = Math.max(...twoThreads.depthMaps!.map((m) => m.viewIndex));
    for (const map of twoThreads.depthMaps!) {
      const figures = depthMapFigures(map, fixture.scene.views);
      console.log(`view ${map.viewIndex}${map.viewIndex === last ? " (strips)" : ""}: valid ${figures.validFraction.toFixed(3)} of ${figures.matchable}, median rel error ${figures.medianRelError.toFixed(5)}`);
      expect(figures.medianRelError).toBeLessThan(0.003);
      expect(figures.validFraction).toBeGreaterThan(0.75);
    }
    expect(oneThread.cloud.count).toBe(twoThreads.cloud.count);
    expect(oneThread.cloud.positions).toEqual(twoThreads.cloud.positions);
  });
});
