import { describe, expect, it } from "vitest";
import type { RegisteredView, SparseModel } from "../../../compute/scene/index.js";
import { implausibleViews, withoutViews } from "../../../compute/stages/sfm/plausible.js";

/** A camera at `centre` looking at the origin-ish (identity rotation is enough here). */
function view(index: number, centre: number[], focal = 1000): RegisteredView {
  return { imageIndex: index, name: `img${index}.jpg`, intrinsics: { width: 1000, height: 800, focal, cx: 500, cy: 400, k1: 0, k2: 0 }, camFromWorld: { R: new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]), t: new Float64Array(centre.map((c) => -c)) } };
}

function model(views: RegisteredView[]): SparseModel {
  const count = 20;
  const xyz = new Float64Array(3 * count).map((_, i) => ((i * 7919) % 13) / 13 - 0.5);
  const offsets = Uint32Array.from({ length: count + 1 }, (_, p) => p * views.length);
  const obsViews = Uint32Array.from({ length: count * views.length }, (_, o) => o % views.length);
  return { views, unregistered: [], otherModelSizes: [], points: { count, xyz, rgb: new Uint8Array(3 * count), error: new Float32Array(count), obsOffsets: offsets, obsViews, obsKeypoints: new Uint32Array(obsViews.length) } };
}

describe("sfm/plausible", () => {
  const ring = [[0, 0, -5], [3, 0, -4], [-3, 0, -4], [0, 3, -4], [4, 1, -3]];

  it("keeps an ordinary capture untouched", () => {
    expect(implausibleViews(model(ring.map((c, i) => view(i, c)))).size).toBe(0);
  });

  it("takes out a camera far outside the scene and one with a runaway focal, with reasons, and reindexes the points", () => {
    const views = [...ring.map((c, i) => view(i, c)), view(5, [2e5, 1e6, 8e5]), view(6, [1, -3, -4], 1.8e9)];
    const m = model(views);
    const rejected = implausibleViews(m);
    expect([...rejected.keys()].sort()).toEqual([5, 6]);
    expect(rejected.get(5)).toMatch(/farther from the scene/);
    expect(rejected.get(6)).toMatch(/focal length/);
    const kept = withoutViews(m, rejected);
    expect(kept.views.map((v) => v.imageIndex)).toEqual([0, 1, 2, 3, 4]);
    expect(kept.unregistered.map((u) => u.name)).toEqual(["img5.jpg", "img6.jpg"]);
    expect(kept.points.count).toBe(20);
    expect(Math.max(...kept.points.obsViews)).toBe(4);
    expect(kept.points.obsOffsets[20]).toBe(20 * 5);
  });
});
