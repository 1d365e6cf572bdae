import { afterAll, describe, expect, it } from "vitest";
import { consistencyOf, faceAdjacency, joinConsistency, rejectInconsistent, type Consistency, type FaceAdjacency, type FaceCandidates } from "../../../compute/stages/texture/select-views.js";
import { createRng } from "../../../compute/math/random.js";
import type { ViewTask, ViewTaskResult } from "../../../compute/stages/texture/view-task.js";
import { WorkerPool } from "../../../compute/util/pool.js";

/** An n × n grid of 2n² faces (each cell split along its diagonal). */
function gridIndices(n: number): Uint32Array {
  const indices = new Uint32Array(6 * n * n);
  for (let y = 0, k = 0; y < n; y++) for (let x = 0; x < n; x++, k += 6) {
    const a = y * (n + 1) + x, c = a + n + 1;
    indices.set([a, a + 1, c + 1, a, c + 1, c], k);
  }
  return indices;
}

const pool = new WorkerPool<ViewTask, ViewTaskResult>(new URL("../../../compute/stages/texture/worker.ts", import.meta.url), { size: 1 });
afterAll(() => pool.close());

describe("the faces' adjacency", () => {
  it("is found on a texture thread as on this one: each face's edge neighbours", async () => {
    const n = 30;
    const indices = gridIndices(n);
    const here = faceAdjacency(indices, 2 * n * n);
    const there = (await pool.run({ kind: "adjacency", indices, faceCount: 2 * n * n })) as FaceAdjacency;
    expect(there.offsets).toEqual(here.offsets);
    expect(there.neighbours).toEqual(here.neighbours);
    // A face inside the grid has three neighbours, a corner cell's outer triangle one or two.
    const count = (f: number) => here.offsets[f + 1] - here.offsets[f];
    const inner = 2 * (15 * n + 15);
    expect(count(inner)).toBe(3);
    expect(count(inner + 1)).toBe(3);
    expect(count(0)).toBe(2);
    // The two triangles of a cell are each other's neighbours.
    expect(Array.from(here.neighbours.subarray(here.offsets[inner], here.offsets[inner + 1]))).toContain(inner + 1);
  });
});

describe("the photo-consistency check in two halves", () => {
  it("marks on a thread and here, joined, what it marks over every face at once", async () => {
    // 2,000 faces of 0–6 candidate views each: most colours near a face's own, some far off.
    const rng = createRng(7);
    const faces = 2000;
    const offsets = new Uint32Array(faces + 1);
    const colours: number[] = [];
    for (let f = 0; f < faces; f++) {
      const views = Math.floor(rng() * 7);
      const base = [rng() * 255, rng() * 255, rng() * 255];
      for (let v = 0; v < views; v++) for (const value of base) colours.push(rng() < 0.2 ? rng() * 255 : value + 8 * (rng() - 0.5));
      offsets[f + 1] = offsets[f] + views;
    }
    const candidates = { offsets, colours: new Float32Array(colours) } as FaceCandidates;
    const whole = rejectInconsistent(candidates, 20);
    expect(whole.dropped).toBeGreaterThan(100);
    const there = (await pool.run({ kind: "consistency", candidates, consistencyRadius: 20, from: 777, to: faces })) as Consistency;
    const joined = joinConsistency(consistencyOf(candidates, 20, 0, 777), there);
    expect(joined.keep).toEqual(whole.keep);
    expect(joined.consensus).toEqual(whole.consensus);
    expect(joined.dropped).toBe(whole.dropped);
  });
});
