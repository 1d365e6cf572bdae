import { describe, expect, it } from "vitest";
import { KdTree } from "../../../compute/math/kdtree.js";
import { createRng } from "../../../compute/math/random.js";

function bruteDistances(points: ArrayLike<number>, dim: number, q: number[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < points.length / dim; i++) {
    let d = 0;
    for (let a = 0; a < dim; a++) d += (points[dim * i + a] - q[a]) ** 2;
    out.push([d, i]);
  }
  return out.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

describe("math/kdtree", () => {
  for (const dim of [2, 3] as const) {
    it(`${dim}-D nearest, k-nearest and radius search equal brute force`, () => {
      const rng = createRng(dim);
      const count = 3000;
      const points = new Float32Array(dim * count);
      for (let i = 0; i < points.length; i++) points[i] = Math.round(rng() * 200) / 10; // a coarse grid forces ties
      points.copyWithin(0, dim * 10, dim * 20); // exact duplicates too
      const tree = new KdTree(points, dim, 8);
      for (let q = 0; q < 40; q++) {
        const query = [rng() * 22 - 1, rng() * 22 - 1, dim === 3 ? rng() * 22 - 1 : 0];
        const brute = bruteDistances(points, dim, query);
        const nearest = tree.nearest(query[0], query[1], query[2]);
        const nearestD = brute.find(([, i]) => i === nearest)![0];
        expect(nearestD).toBe(brute[0][0]);
        expect(tree.lastDistanceSq).toBe(brute[0][0]);
        const knn = tree.kNearest(query[0], query[1], query[2], 7);
        expect(Array.from(knn.distancesSq)).toEqual(brute.slice(0, 7).map(([d]) => d));
        const r = 1.3;
        const inside = tree.radiusSearch(query[0], query[1], query[2], r).sort((a, b) => a - b);
        expect(inside).toEqual(brute.filter(([d]) => d <= r * r).map(([, i]) => i).sort((a, b) => a - b));
      }
    });
  }

  it("handles empty trees, maxDistance and bad input", () => {
    const empty = new KdTree(new Float64Array(0));
    expect(empty.nearest(0, 0, 0)).toBe(-1);
    expect(empty.radiusSearch(0, 0, 0, 1)).toEqual([]);
    const tree = new KdTree(new Float64Array([0, 0, 0, 5, 0, 0]));
    expect(tree.kNearest(1, 0, 0, 2, 2).indices).toEqual(new Uint32Array([0]));
    expect(tree.nearest(4, 0, 0)).toBe(1);
    expect(() => new KdTree(new Float64Array(4), 3)).toThrow(/multiple of 3/);
  });
});
