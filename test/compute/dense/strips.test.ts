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
 * Three 320×240 views on two threads: the third is solved as two strips side by side, and must
 * come out as well as on one thread, whole, within the bounds of pyramid.test.ts.
 */
describe("dense with an odd view on two threads", () => {
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

  it("solves the last view in strips as well as whole", () => {
    expect(twoThreads.report.counts.viewsInStrips).toBe(1);
    expect(oneThread.report.counts.viewsInStrips).toBe(0);
    const last = Math.max(...twoThreads.depthMaps!.map((m) => m.viewIndex));
    expect(twoThreads.report.perImage!.filter((p) => p.strips === 2)).toHaveLength(1);
    const whole = new Map(oneThread.depthMaps!.map((m) => [m.viewIndex, m]));
    for (const map of twoThreads.depthMaps!) {
      const figures = depthMapFigures(map, fixture.scene.views);
      const reference = depthMapFigures(whole.get(map.viewIndex)!, fixture.scene.views);
      console.log(`view ${map.viewIndex}${map.viewIndex === last ? " (strips)" : ""}: valid ${figures.validFraction.toFixed(3)} (whole ${reference.validFraction.toFixed(3)}), median rel error ${figures.medianRelError.toFixed(5)} (whole ${reference.medianRelError.toFixed(5)})`);
      expect(figures.medianRelError).toBeLessThan(0.003);
      expect(figures.validFraction).toBeGreaterThan(0.75);
      expect(Math.abs(figures.validFraction - reference.validFraction)).toBeLessThan(0.03);
    }
    expect(twoThreads.cloud.count).toBeGreaterThan(0.97 * oneThread.cloud.count);
  });
});
