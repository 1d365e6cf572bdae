import { describe, expect, it } from "vitest";
import { depthRanges, selectSourceViews } from "../../../compute/stages/dense/select.js";
import { sourcesPerPixel } from "../../../compute/stages/dense/patchmatch-state.js";
import type { PatchMatchInput } from "../../../compute/stages/dense/patchmatch-types.js";
import { renderScene } from "../../support/render.js";
import type { SparseModel } from "../../../compute/scene/index.js";
import { trueModel } from "./fixture.js";

describe("dense/select", () => {
  // Eight tiny views, 10° apart on the ring: the true cameras and sparse points from true depth.
  const scene = renderScene({ scene: "object", views: 8, width: 80, height: 60, seed: 5, stepDegrees: 10, supersample: 1 });
  const model = trueModel(scene);

  it("prefers sources at 5–30° of triangulation angle and keeps the requested count", () => {
    const { sources, added } = selectSourceViews(model, { sourceViews: 4, minAngleDeg: 5, maxAngleDeg: 30, minSharedPoints: 5, extraSourceViews: 0, frameCells: 3, backgroundRatio: 0 });
    expect(sources).toHaveLength(8);
    expect(added.every((a) => a.length === 0)).toBe(true);
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

  it("adds no source where the best-scored ones see the whole frame", () => {
    const sources = selectSourceViews(model, { sourceViews: 4, minAngleDeg: 5, maxAngleDeg: 30, minSharedPoints: 5, extraSourceViews: 1, frameCells: 3, backgroundRatio: 0 });
    expect(sources).toEqual(selectSourceViews(model, { sourceViews: 4, minAngleDeg: 5, maxAngleDeg: 30, minSharedPoints: 5, extraSourceViews: 0, frameCells: 3, backgroundRatio: 0 }));
    expect(sources.added.every((a) => a.length === 0)).toBe(true);
  });

  it("adds a source for the part of the frame the best-scored ones do not see", () => {
    // The reference (view 0) at the origin looks along +z at a wall of points 4 units away; views
    // 1–3 stand 1, 2 and 3 units to its left, view 4 one unit to its right. Matching joined the
    // left views to every point they see and the right one to only ten, at the right edge.
    const model = sideModel();
    const options = { sourceViews: 3, minAngleDeg: 5, maxAngleDeg: 30, minSharedPoints: 5 };
    expect(selectSourceViews(model, { ...options, extraSourceViews: 0, frameCells: 3, backgroundRatio: 0 }).sources[0]).toEqual([1, 2, 3]);
    // Of the frame's right third, view 1 sees half, 2 a fifth and 3 nothing; view 4 sees it all.
    const widened = selectSourceViews(model, { ...options, extraSourceViews: 1, frameCells: 3, backgroundRatio: 0 });
    expect(widened.sources[0]).toEqual([1, 2, 3, 4]);
    // It counts in that third only: its regions, in normalised coordinates, start at x = (200·⅔ − 100) / 100.
    const [extra] = widened.added[0];
    expect(extra.view).toBe(4);
    expect(extra.boxes.length).toBeGreaterThan(0);
    for (const [x0, x1] of extra.boxes) {
      expect(x0).toBeCloseTo(1 / 3, 9);
      expect(x1).toBeGreaterThan(1);
    }
    expect(selectSourceViews(model, { ...options, extraSourceViews: 1, frameCells: 1, backgroundRatio: 0 }).sources[0]).toEqual([1, 2, 3]);
  });

  it("adds that source only where the part of the frame it misses is background", () => {
    const options = { sourceViews: 3, minAngleDeg: 5, maxAngleDeg: 30, minSharedPoints: 5, extraSourceViews: 1, frameCells: 3, backgroundRatio: 1.2 };
    // One wall 4 units away: the right third is as deep as the rest, the foreground, and no source is added.
    const flat = selectSourceViews(sideModel(), options);
    expect(flat.sources[0]).toEqual([1, 2, 3]);
    expect(flat.added[0]).toEqual([]);
    // The rest of the frame at 3 units: the right third lies a third deeper, and view 4 is added for it.
    const behind = selectSourceViews(sideModel(true), options);
    expect(behind.sources[0]).toEqual([1, 2, 3, 4]);
    expect(behind.added[0].map((a) => a.view)).toEqual([4]);
  });

  it("counts an added source only in the pixels its regions hold, at any scale and in a strip", () => {
    // Three sources, the last added for the right third of a 200 × 100 frame (focal 100, centre (100, 50)).
    const boxes: Array<[number, number, number, number]> = [[1 / 3, 1e6, -1e6, 1e6]];
    const frame = (width: number, height: number, focal: number, cx: number, cy: number) => ({ width, height, focal, cx, cy, sources: [{}, {}, {}] }) as unknown as PatchMatchInput;
    const whole = sourcesPerPixel(frame(200, 100, 100, 100, 50), [boxes]);
    // Pixel centres from x = 133.5 on (u − cx ≥ 33.3) take all three sources; the rest two.
    expect(Array.from(whole.subarray(0, 200)).indexOf(3)).toBe(133);
    expect(whole[132]).toBe(2);
    expect(whole[99 * 200 + 132]).toBe(2);
    expect(whole[99 * 200 + 199]).toBe(3);
    // A level at half size, and the right strip from x = 90 (its principal point moved).
    const half = sourcesPerPixel(frame(100, 50, 50, 50, 25), [boxes]);
    expect(Array.from(half.subarray(0, 100)).indexOf(3)).toBe(67);
    const strip = sourcesPerPixel(frame(110, 100, 100, 10, 50), [boxes]);
    expect(Array.from(strip.subarray(0, 110)).indexOf(3)).toBe(133 - 90);
  });
});


/** Five cameras looking along +z from x = 0, −1, −2, −3, +1 at a wall of 13 × 5 points at z = 4 (focal 100, 200 × 100 px). */
function sideModel(nearLeft = false): SparseModel {
  const centresX = [0, -1, -2, -3, 1];
  const xyz: number[] = [], offsets = [0], obsViews: number[] = [];
  const sees = (cx: number, x: number) => Math.abs(100 * (x - cx) / 4) < 100;
  for (let i = 0; i < 13; i++) for (let j = 0; j < 5; j++) {
    const x = -3.8 + (7.6 * i) / 12, y = -1.6 + 0.8 * j;
    // With nearLeft, the points left of the frame's right third stand at 3 units, where the reference sees them as before.
    if (nearLeft && x < 4 / 3) xyz.push(0.75 * x, 0.75 * y, 3);
    else xyz.push(x, y, 4);
    centresX.forEach((cx, v) => {
      if (v === 4 ? x > 2.5 : sees(cx, x)) obsViews.push(v);
    });
    offsets.push(obsViews.length);
  }
  const count = xyz.length / 3;
  return {
    views: centresX.map((cx, i) => ({
      imageIndex: i,
      name: `v${i}`,
      intrinsics: { width: 200, height: 100, focal: 100, cx: 100, cy: 50, k1: 0, k2: 0 },
      camFromWorld: { R: new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]), t: new Float64Array([-cx, 0, 0]) },
    })),
    unregistered: [],
    points: { count, xyz: new Float64Array(xyz), rgb: new Uint8Array(3 * count), error: new Float32Array(count), obsOffsets: new Uint32Array(offsets), obsViews: new Uint32Array(obsViews), obsKeypoints: new Uint32Array(obsViews.length) },
    otherModelSizes: [],
  };
}
