/**
 * Seam levelling (compute/stages/texture/levelling.ts) on two charts that meet along a seam: the
 * second photo is 20 grey levels brighter, and one seam vertex lies on a depth edge, where the
 * second photo sees a bright wall behind the surface the first sees (a difference of 150). The
 * exposure difference is levelled; the depth-edge pair is left out by consistentSeams(), and with
 * it in, it pulls the colours of the charts' vertices around it away from the photos'.
 */
import { describe, expect, it } from "vitest";
import { consistentSeams, solveLevelling, type LevellingProblem } from "../../../compute/stages/texture/levelling.js";

const N = 40;
const OPTIONS = { edgeWeight: 1, regularisation: 1e-3, maxIterations: 2000, tolerance: 1e-8 };

/** Chart A's vertices 0…N−1 and chart B's N…2N−1 in rows, each row's neighbours joined, A_k and B_k copies of one mesh vertex. */
function problem(): LevellingProblem {
  const colours = new Float32Array(3 * 2 * N);
  for (let k = 0; k < N; k++) for (let ch = 0; ch < 3; ch++) {
    colours[3 * k + ch] = 100;
    colours[3 * (N + k) + ch] = k === N / 2 ? 250 : 120;
  }
  const seams: number[] = [];
  const edges: number[] = [];
  for (let k = 0; k < N; k++) seams.push(k, N + k);
  for (let k = 0; k + 1 < N; k++) edges.push(k, k + 1, N + k, N + k + 1);
  return { vertexCount: 2 * N, colours, seamPairs: Uint32Array.from(seams), chartEdges: Uint32Array.from(edges) };
}

describe("texture/levelling", () => {
  it("levels an exposure difference across a seam, leaving out the pair that sees two surfaces", () => {
    const input = problem();
    const kept = consistentSeams(input.seamPairs, input.colours, 40);
    expect(kept.length).toBe(input.seamPairs.length - 2);
    expect([...kept]).not.toContain(N + N / 2);
    const { corrections } = solveLevelling({ ...input, seamPairs: kept }, OPTIONS);
    for (let k = 0; k < N; k++) {
      if (k === N / 2) continue;
      const a = 100 + corrections[3 * k], b = 120 + corrections[3 * (N + k)];
      expect(Math.abs(a - b)).toBeLessThan(0.5);
      // Each side moves half way: the photos' mean level is kept.
      expect(corrections[3 * k]).toBeCloseTo(10, 0);
    }
    // With the depth-edge pair in, the vertices beside it are pulled tens of levels off.
    const all = solveLevelling(input, OPTIONS).corrections;
    expect(Math.abs(all[3 * (N / 2 + 1)] - 10)).toBeGreaterThan(10);
  });

  it("pulls the charts toward the vertices' multi-photo colours, smoothly and across the seam, but not toward another surface's", () => {
    const input = problem();
    const seamPairs = consistentSeams(input.seamPairs, input.colours, 40);
    // Every vertex's colour over all photos: 130 (more photos see it as the brighter one does), but
    // 220 along eight vertices of chart A (whose photos see another surface there: 120 levels from
    // its own colour).
    const targets = new Float32Array(3 * 2 * N).fill(130);
    for (let k = 4; k < 12; k++) for (let ch = 0; ch < 3; ch++) targets[3 * k + ch] = 220;
    const options = { ...OPTIONS, targetWeight: 0.05, maxTargetDifference: 80 };
    const { corrections } = solveLevelling({ ...input, seamPairs, targets }, options);
    for (let k = 0; k < N; k++) {
      if (k === N / 2 || (k >= 4 && k < 12)) continue;
      // Both sides land near the photos' 130 (the seams alone would meet at 110), and still meet.
      expect(Math.abs(100 + corrections[3 * k] - 130)).toBeLessThan(3);
      expect(Math.abs(120 + corrections[3 * (N + k)] - 130)).toBeLessThan(3);
      expect(Math.abs(100 + corrections[3 * k] - 120 - corrections[3 * (N + k)])).toBeLessThan(0.5);
    }
    // The far targets pull nothing: those vertices stay with their neighbours.
    expect(Math.abs(corrections[3 * 8] - corrections[3 * 2])).toBeLessThan(0.5);
    // Without the limit they drag their stretch of the chart up.
    const dragged = solveLevelling({ ...input, seamPairs, targets }, { ...options, maxTargetDifference: Infinity }).corrections;
    expect(dragged[3 * 8] - dragged[3 * 2]).toBeGreaterThan(5);
  });

  it("keeps every pair when the limit is Infinity", () => {
    const input = problem();
    expect(consistentSeams(input.seamPairs, input.colours, Infinity)).toBe(input.seamPairs);
  });
});
