/**
 * The photo-consistency test of view selection (rejectInconsistent in
 * compute/stages/texture/select-views.ts, Waechter et al. §4.2): a face's candidate colours, an
 * outlier among them dropped, and the marks the same as a plain reading of the rule (median start,
 * eight mean-shift steps, drop beyond the radius, never leave a face fewer than two).
 */
import { describe, expect, it } from "vitest";
import { consensusShifts, rejectInconsistent, type FaceCandidates } from "../../../compute/stages/texture/select-views.js";
import { createRng } from "../../../compute/math/random.js";

function candidatesOf(faces: number[][][]): FaceCandidates {
  const offsets = new Uint32Array(faces.length + 1);
  faces.forEach((face, f) => { offsets[f + 1] = offsets[f] + face.length; });
  const total = offsets[faces.length];
  const colours = new Float32Array(3 * total);
  let at = 0;
  for (const face of faces) for (const colour of face) colours.set(colour, 3 * at++);
  return { offsets, views: new Uint32Array(total), cost: new Float32Array(total), colours };
}

/** The rule as written, with plain arrays. */
function plainMarks(candidates: FaceCandidates, radius: number): number[] {
  const { offsets, colours } = candidates;
  const keep: number[] = new Array(colours.length / 3).fill(1);
  for (let f = 0; f + 1 < offsets.length; f++) {
    const list: number[][] = [];
    for (let i = offsets[f]; i < offsets[f + 1]; i++) list.push([colours[3 * i], colours[3 * i + 1], colours[3 * i + 2]]);
    if (list.length < 3) continue;
    let mode = [0, 1, 2].map((ch) => list.map((c) => c[ch]).sort((x, y) => x - y)[list.length >> 1]);
    for (let step = 0; step < 8; step++) {
      const weights = list.map((c) => Math.exp(-((c[0] - mode[0]) ** 2 + (c[1] - mode[1]) ** 2 + (c[2] - mode[2]) ** 2) / (2 * (radius / 2) ** 2)));
      const total = weights.reduce((a, b) => a + b, 0);
      if (total < 1e-12) break;
      mode = [0, 1, 2].map((ch) => list.reduce((sum, c, k) => sum + weights[k] * c[ch], 0) / total);
    }
    const inside = list.map((c) => Math.hypot(c[0] - mode[0], c[1] - mode[1], c[2] - mode[2]) <= radius);
    if (inside.filter(Boolean).length < 2) continue;
    inside.forEach((ok, k) => { keep[offsets[f] + k] = ok ? 1 : 0; });
  }
  return keep;
}

describe("texture/photo-consistency", () => {
  it("drops the one view that saw something else, keeps faces of two views and faces without a shared colour", () => {
    const candidates = candidatesOf([
      [[120, 100, 90], [122, 101, 88], [119, 99, 91], [30, 200, 40], [121, 100, 90]],
      [[10, 10, 10], [200, 200, 200]],
      [[0, 0, 0], [100, 100, 100], [200, 200, 200]],
    ]);
    const { keep, dropped, consensus } = rejectInconsistent(candidates, 20);
    expect([...keep]).toEqual([1, 1, 1, 0, 1, 1, 1, 1, 1, 1]);
    expect(dropped).toBe(1);
    // The colour the views agree on: the first face's mode, untouched by its outlier; the mean of
    // a face of two; none where no two views share a colour.
    [120.5, 100, 89.75].forEach((value, ch) => expect(consensus[ch]).toBeCloseTo(value, 0));
    expect([...consensus.subarray(3, 6)]).toEqual([105, 105, 105]);
    expect(consensus.subarray(6, 9).every(Number.isNaN)).toBe(true);
  });

  it("gives each labelled face the shift from its view's colour to the consensus", () => {
    const candidates = candidatesOf([[[120, 100, 90], [140, 110, 100], [121, 101, 90]], [[50, 50, 50]]]);
    candidates.views.set([0, 1, 2, 0]);
    const { consensus } = rejectInconsistent(candidates, 40);
    const shifts = consensusShifts(candidates, consensus, Uint32Array.from([1, 0]));
    // Face 0 shows view 1, the brightest: pulled down toward the others; face 1 has one view, no shift.
    for (let ch = 0; ch < 3; ch++) expect(shifts[ch]).toBeCloseTo(consensus[ch] - [140, 110, 100][ch], 4);
    expect(shifts[0]).toBeLessThan(-5);
    expect(shifts.subarray(3, 6).every(Number.isNaN)).toBe(true);
  });

  it("marks random faces as the rule reads, to the candidate", () => {
    const random = createRng(5);
    const faces: number[][][] = [];
    for (let f = 0; f < 400; f++) {
      const base = [255 * random(), 255 * random(), 255 * random()];
      const n = 1 + Math.floor(9 * random());
      faces.push(Array.from({ length: n }, () => (random() < 0.25 ? [255 * random(), 255 * random(), 255 * random()] : base.map((x) => x + 12 * (random() - 0.5)))));
    }
    const candidates = candidatesOf(faces);
    const { keep, dropped } = rejectInconsistent(candidates, 20);
    const expected = plainMarks(candidates, 20);
    expect([...keep]).toEqual(expected);
    expect(dropped).toBe(expected.filter((k) => k === 0).length);
    expect(dropped).toBeGreaterThan(50);
  });
});
