import { describe, expect, it } from "vitest";
import { depthRanges, selectSourceViews } from "../../../compute/stages/dense/select.js";
import { renderScene } from "../../support/render.js";
import { trueModel } from "./fixture.js";

describe("dense/select", () => {
  // Eight tiny views, 10° apart on the ring: the true cameras and sparse points from true depth.
  const scene = renderScene({ scene: "object", views: 8, width: 80, height: 60, seed: 5, stepDegrees: 10, supersample: 1 });
  const model = trueModel(scene);

  it("prefers sources at 5–30° of triangulation angle and keeps the requested count", () => {
    const sources = selectSourceViews(model, { sourceViews: 4, minAngleDeg: 5, maxAngleDeg: 30, minSharedPoints: 5 });
    expect(sources).toHaveLength(8);
    for (let r = 0; r < 8; r++) {
      expect(sources[r]).toHaveLength(4);
      expect(sources[r]).not.toContain(r);
      // Ring neighbours within 30° (1–3 steps) outrank the far ones (≥ 50°).
      for (const s of sources[r]) expect(Math.abs(s - r)).toBeLessThanOrEqual(4);
    }
    // View 0's neighbours within the preferred band are views 1–3.
    expect(sources[0].slice(0, 3).sort()).toEqual([1, 2, 3]);
  });

  it("brackets each view's true depths with the sparse depth range", () => {
    const ranges = depthRanges(model, 0.25);
    scene.views.forEach((view, i) => {
      const range = ranges[i];
      expect(range).not.toBeNull();
      const depths = Array.from(view.depth).filter((d) => d > 0).sort((a, b) => a - b);
      // The central 96 % of the rendered depths lie inside the range.
      expect(depths[Math.floor(0.02 * depths.length)]).toBeGreaterThan(range![0]);
      expect(depths[Math.floor(0.98 * depths.length)]).toBeLessThan(range![1]);
    });
  });
});
