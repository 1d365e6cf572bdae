import { describe, expect, it } from "vitest";
import { removeSeenThrough } from "../../../compute/stages/dense/free-space.js";
import type { DenseView } from "../../../compute/stages/dense/views.js";

const WIDTH = 64;
const HEIGHT = 48;
const FOCAL = 60;
const OPTIONS = { minViolations: 1, margin: 0.002, agreement: 0.01, maxJudgeCost: 0.3 };

/** A camera at (x, 0, 0) looking along +z (camFromWorld R = I, t = −C). */
function view(viewIndex: number, x: number): DenseView {
  return { viewIndex, name: `v${viewIndex}`, width: WIDTH, height: HEIGHT, focal: FOCAL, cx: WIDTH / 2, cy: HEIGHT / 2, R: new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]), t: new Float64Array([-x, 0, 0]), grey: new Float32Array(WIDTH * HEIGHT), rgb: new Uint8Array(3 * WIDTH * HEIGHT) };
}

/** The depth map of the wall z = 5 (0 where `hole` says so). */
function wall(hole: (col: number, row: number) => boolean = () => false): Float32Array {
  const depth = new Float32Array(WIDTH * HEIGHT);
  for (let row = 0; row < HEIGHT; row++) for (let col = 0; col < WIDTH; col++) depth[row * WIDTH + col] = hole(col, row) ? 0 : 5;
  return depth;
}

const at = (col: number, row: number) => row * WIDTH + col;
/** A cost map of confident matches (1 − NCC = 0.1 everywhere). */
const confident = () => new Float32Array(WIDTH * HEIGHT).fill(0.1);
/** Every map but the i-th judges it. */
const others = (count: number, i: number) => Array.from({ length: count }, (_, j) => j).filter((j) => j !== i);

describe("dense/free-space", () => {
  it("removes a floater in front of a wall that the other views see, and keeps the wall", () => {
    const views = [view(0, 0), view(1, 0.5), view(2, -0.5)];
    const maps = views.map((v, i) => ({ view: v, depth: wall(), cost: confident(), judges: others(views.length, i) }));
    // View 0 alone puts a block 10 % in front of the wall (a fattened band, a floater).
    for (let row = 20; row < 28; row++) for (let col = 28; col < 36; col++) maps[0].depth[at(col, row)] = 4.5;
    const removed = removeSeenThrough(maps, OPTIONS);
    expect(removed).toEqual([64, 0, 0]);
    expect(maps[0].depth[at(30, 22)]).toBe(0);
    expect(maps[0].depth[at(10, 10)]).toBe(5);
    expect(maps[1].depth[at(30, 22)]).toBe(5);
  });

  it("keeps a depth that as many views confirm as see through it", () => {
    const views = [view(0, 0), view(1, 0.5), view(2, -0.5)];
    const maps = views.map((v, i) => ({ view: v, depth: wall(), cost: confident(), judges: others(views.length, i) }));
    // A box face at z = 4.5: views 0 and 1 both see it; view 2 sees the wall there.
    const box = (v: DenseView, depth: Float32Array) => {
      for (let row = 0; row < HEIGHT; row++) {
        for (let col = 0; col < WIDTH; col++) {
          // The box face spans world x ∈ [−0.2, 0.2], y ∈ [−0.2, 0.2] at z = 4.5.
          const x = ((col + 0.5 - WIDTH / 2) * 4.5) / FOCAL - v.t[0];
          const y = ((row + 0.5 - HEIGHT / 2) * 4.5) / FOCAL;
          if (Math.abs(x) <= 0.2 && Math.abs(y) <= 0.2) depth[at(col, row)] = 4.5;
        }
      }
    };
    box(views[0], maps[0].depth);
    box(views[1], maps[1].depth);
    const before = maps.map((m) => m.depth.slice());
    removeSeenThrough(maps, OPTIONS);
    // The box's centre in view 0: view 1 agrees, view 2 sees through: kept.
    expect(maps[0].depth[at(32, 24)]).toBe(4.5);
    expect(maps[1].depth).toEqual(before[1]);
  });

  it("says nothing where the other views have no depth (a backdrop, a sky)", () => {
    const views = [view(0, 0), view(1, 0.5)];
    const maps = [{ view: views[0], depth: wall(), cost: confident(), judges: [1] }, { view: views[1], depth: wall((col, row) => col > 8 && col < 56 && row > 8 && row < 40), cost: confident(), judges: [0] }];
    for (let row = 20; row < 28; row++) for (let col = 28; col < 36; col++) maps[0].depth[at(col, row)] = 4.5;
    expect(removeSeenThrough(maps, OPTIONS)).toEqual([0, 0]);
    expect(maps[0].depth[at(30, 22)]).toBe(4.5);
  });

  it("keeps a point whose other view sees a surface in front of it (occlusion)", () => {
    const views = [view(0, 0), view(1, 0.5)];
    const maps = views.map((v, i) => ({ view: v, depth: wall(), cost: confident(), judges: others(views.length, i) }));
    // View 1 sees something nearer over its whole middle: the wall behind is occluded there, not free.
    for (let row = 10; row < 38; row++) for (let col = 10; col < 54; col++) maps[1].depth[at(col, row)] = 3;
    const before = maps[0].depth.slice();
    expect(removeSeenThrough(maps, OPTIONS)[0]).toBe(0);
    expect(maps[0].depth).toEqual(before);
  });

  it("asks only the map's judges", () => {
    const views = [view(0, 0), view(1, 0.5), view(2, -0.5)];
    const maps = views.map((v, i) => ({ view: v, depth: wall(), cost: confident(), judges: i === 0 ? [] : others(views.length, i) }));
    maps[0].depth[at(32, 24)] = 4;
    expect(removeSeenThrough(maps, OPTIONS)).toEqual([0, 0, 0]);
    maps[0].judges = [2];
    expect(removeSeenThrough(maps, OPTIONS)).toEqual([1, 0, 0]);
  });

  it("does not let a plain wall's uncertain depths see through a point", () => {
    const views = [view(0, 0), view(1, 0.5), view(2, -0.5)];
    const maps = views.map((v, i) => ({ view: v, depth: wall(), cost: confident(), judges: others(views.length, i) }));
    for (let row = 20; row < 28; row++) for (let col = 28; col < 36; col++) maps[0].depth[at(col, row)] = 4.5;
    // The other views' wall matched badly (a plain wall): no verdict from them.
    maps[1].cost.fill(0.5);
    maps[2].cost.fill(0.5);
    expect(removeSeenThrough(maps, OPTIONS)).toEqual([0, 0, 0]);
    maps[2].cost.fill(0.1);
    expect(removeSeenThrough(maps, OPTIONS)[0]).toBe(64);
  });

  it("is off with minViolations 0", () => {
    const views = [view(0, 0), view(1, 0.5)];
    const maps = views.map((v, i) => ({ view: v, depth: wall(), cost: confident(), judges: others(views.length, i) }));
    maps[0].depth[at(32, 24)] = 4;
    expect(removeSeenThrough(maps, { ...OPTIONS, minViolations: 0 })).toEqual([0, 0]);
    expect(maps[0].depth[at(32, 24)]).toBe(4);
  });
});
