/** The band search of guided matching against a brute-force search of the same band. */
import { describe, expect, it } from "vitest";
import { epipolarBandNeighbours } from "../../../compute/geometry/epipolar-band.js";
import { allocNeighbours, recordDistance } from "../../../compute/math/mutual-nearest.js";
import { createRng } from "../../../compute/math/random.js";
import { hammingDistance } from "../../../compute/stages/matching/hamming.js";
import { candidateDistances } from "../../../compute/stages/matching/kernel.js";

describe("geometry/epipolar-band", () => {
  it("equals a brute-force search over the keypoint pairs within the band", () => {
    const rng = createRng(21);
    const countA = 700;
    const countB = 900;
    const words = 16;
    const xyA = Float32Array.from({ length: 2 * countA }, (_, i) => (i % 2 ? 480 : 640) * rng());
    const xyB = Float32Array.from({ length: 2 * countB }, (_, i) => (i % 2 ? 480 : 640) * rng());
    const rowsA = Uint32Array.from({ length: countA * words }, () => Math.floor(rng() * 2 ** 32));
    const rowsB = Uint32Array.from({ length: countB * words }, () => Math.floor(rng() * 2 ** 32));
    // A general F (epipole outside the image), and one with nearly vertical epipolar lines.
    const fundamentals = [
      [1e-6, -2e-5, 3e-3, 2.2e-5, 1e-6, -8e-3, -4e-3, 7e-3, 1],
      [0, 0, -1e-3, 0, 0, 0.9, 1e-3, -1, 10],
    ];
    for (const F of fundamentals) {
      const bandPx = 3;
      // The matching stage's wasm distances; the reference below uses the TypeScript ones.
      const guided = epipolarBandNeighbours({ F, xyA, countA, xyB, countB, bandPx }, candidateDistances(rowsA, countA, rowsB, countB, words));
      const reference = allocNeighbours(countA, countB);
      let candidates = 0;
      for (let i = 0; i < countA; i++) {
        const x = xyA[2 * i], y = xyA[2 * i + 1];
        const l = [F[0] * x + F[1] * y + F[2], F[3] * x + F[4] * y + F[5], F[6] * x + F[7] * y + F[8]];
        const norm = Math.hypot(l[0], l[1]);
        for (let j = 0; j < countB; j++) {
          if (Math.abs(l[0] * xyB[2 * j] + l[1] * xyB[2 * j + 1] + l[2]) / norm > bandPx) continue;
          candidates++;
          // Same bookkeeping, every pair in index order: what is under test is which pairs the grid visits.
          recordDistance(reference, i, j, hammingDistance(rowsA, i * words, rowsB, j * words, words));
        }
      }
      expect(candidates).toBeGreaterThan(countA * 2);
      expect(candidates).toBeLessThan((countA * countB) / 10);
      for (const key of ["bestA", "secondA", "bestB", "secondB"] as const) expect(Array.from(guided[key])).toEqual(Array.from(reference[key]));
      // Equal distances may be met in another order: the nearest must be one at the best distance.
      for (let i = 0; i < countA; i++) {
        if (reference.argA[i] < 0) expect(guided.argA[i]).toBe(-1);
        else expect(hammingDistance(rowsA, i * words, rowsB, guided.argA[i] * words, words)).toBe(reference.bestA[i]);
      }
      for (let j = 0; j < countB; j++) {
        if (reference.argB[j] < 0) expect(guided.argB[j]).toBe(-1);
        else expect(hammingDistance(rowsA, guided.argB[j] * words, rowsB, j * words, words)).toBe(reference.bestB[j]);
      }
    }
  });
});
