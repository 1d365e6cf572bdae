import { describe, expect, it } from "vitest";
import { geometricFilter } from "../../../compute/stages/dense/filter.js";
import { fuse } from "../../../compute/stages/dense/fusion.js";
import type { DenseView } from "../../../compute/stages/dense/views.js";

const WIDTH = 64;
const HEIGHT = 48;
const FOCAL = 60;

/** A camera at (x, 0, 0) looking along +z (camFromWorld R = I, t = −C), grey/rgb unused but sized. */
function view(viewIndex: number, x: number): DenseView {
  const rgb = new Uint8Array(WIDTH * HEIGHT * 3).fill(40 * (viewIndex + 1));
  return { viewIndex, name: `v${viewIndex}`, width: WIDTH, height: HEIGHT, focal: FOCAL, cx: WIDTH / 2, cy: HEIGHT / 2, R: new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]), t: new Float64Array([-x, 0, 0]), grey: new Float32Array(WIDTH * HEIGHT), rgb };
}

/** Depth and normal maps of the fronto-parallel plane z = 5 seen by `v`. */
function planeMaps(): { depth: Float32Array; normal: Float32Array } {
  const depth = new Float32Array(WIDTH * HEIGHT).fill(5);
  const normal = new Float32Array(3 * WIDTH * HEIGHT);
  for (let p = 0; p < WIDTH * HEIGHT; p++) normal[3 * p + 2] = -1;
  return { depth, normal };
}

const options = { maxCost: 1, maxReprojectionPx: 1, maxRelativeDepthError: 0.01, minConsistentViews: 2 };

describe("dense/filter and fusion", () => {
  const views = [view(0, 0), view(1, 0.3), view(2, -0.3)];
  const maps = views.map(() => planeMaps());
  // Corrupt a block of view 0 by 5 %: no other view agrees there.
  for (let row = 10; row < 20; row++) for (let col = 20; col < 30; col++) maps[0].depth[row * WIDTH + col] = 5.25;

  it("keeps depths that two sources confirm and drops the corrupted block", () => {
    const kept = geometricFilter(views[0], maps[0].depth, [1, 2].map((j) => ({ view: views[j], depth: maps[j].depth })), options);
    expect(kept[15 * WIDTH + 25]).toBe(0);
    // A pixel seen by both sources (central columns) survives unchanged.
    expect(kept[30 * WIDTH + 32]).toBe(5);
    // Columns near the border leave one source's image: fewer than 2 agree there.
    expect(kept[30 * WIDTH + 1]).toBe(0);
  });

  it("fuses agreeing pixels into points on the plane with averaged colour and the plane normal", () => {
    const cloud = fuse(views.map((v, i) => ({ view: v, depth: maps[i].depth, normal: maps[i].normal })), { maxReprojectionPx: 1, maxRelativeDepthError: 0.01, maxNormalAngleDeg: 10, minFusedViews: 3 });
    expect(cloud.count).toBeGreaterThan(0.3 * WIDTH * HEIGHT);
    for (let i = 0; i < cloud.count; i++) {
      expect(Math.abs(cloud.positions[3 * i + 2] - 5)).toBeLessThan(1e-4);
      expect(cloud.normals[3 * i + 2]).toBeCloseTo(-1, 5);
      // The mean of the three views' grey levels 40, 80, 120.
      expect(cloud.colors[3 * i]).toBe(80);
    }
    // No fused point comes from the corrupted block (it is 5 % off the plane).
    for (let i = 0; i < cloud.count; i++) expect(cloud.positions[3 * i + 2]).toBeLessThan(5.01);
  });
});
