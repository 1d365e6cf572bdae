/** The band search of guided matching against a brute-force search of the same band. */
import { describe, expect, it } from "vitest";
import { epipolarBandNeighbours, type BandSearch, type CandidateDistances } from "../../../compute/geometry/epipolar-band.js";
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

  it("finds the same keypoints in the band around the epipole as by walking the grid, wherever the epipole is", () => {
    const rng = createRng(5);
    const countA = 600;
    const countB = 2500;
    const xyA = Float32Array.from({ length: 2 * countA }, (_, i) => (i % 2 ? 1333 : 2000) * rng());
    const xyB = Float32Array.from({ length: 2 * countB }, (_, i) => (i % 2 ? 1333 : 2000) * rng());
    // Keypoints on a line through the epipole, and one at it: the narrowest and the widest windows.
    for (let k = 0; k < 40; k++) xyB.set([1000 + 12.5 * k, 600 + 3 * k], 2 * k);
    xyB.set([1000, 600], 80);
    /** F = [e]ₓ·H for a homography H: its epipole in B is e (homogeneous). */
    const withEpipole = (e: number[], H: number[]): number[] => {
      const ex = [0, -e[2], e[1], e[2], 0, -e[0], -e[1], e[0], 0];
      return Array.from({ length: 9 }, (_, k) => ex[3 * Math.floor(k / 3)] * H[k % 3] + ex[3 * Math.floor(k / 3) + 1] * H[3 + (k % 3)] + ex[3 * Math.floor(k / 3) + 2] * H[6 + (k % 3)]);
    };
    const H = [1.02, 0.03, -15, -0.02, 0.99, 8, 1e-5, -2e-5, 1];
    const cases: Array<[string, number[]]> = [
      ["inside the image", withEpipole([1000, 600, 1], H)],
      ["beside it", withEpipole([-2500, 700, 1], H)],
      ["far away", withEpipole([3e6, -1e6, 1], H)],
      ["at infinity (the grid walks)", withEpipole([0.8, 0.6, 0], H)],
      ["a general F", [1e-6, -2e-5, 3e-3, 2.2e-5, 1e-6, -8e-3, -4e-3, 7e-3, 1]],
    ];
    /** Each A keypoint's band, as the search hands it to the distances. */
    const bandsOf = (F: number[], search: BandSearch, bandPx: number): string[] => {
      const sets: string[] = new Array(countA).fill("");
      const candidates = new Uint32Array(countB);
      const stub: CandidateDistances = {
        candidates,
        compute: (i, n) => {
          sets[i] = Array.from(candidates.subarray(0, n)).sort((p, q) => p - q).join(",");
          return new Uint32Array(n);
        },
      };
      epipolarBandNeighbours({ F, xyA, countA, xyB, countB, bandPx }, stub, search);
      return sets;
    };
    for (const [name, F] of cases) {
      for (const bandPx of [2, 5.2, 40]) {
        const fan = bandsOf(F, "auto", bandPx);
        const grid = bandsOf(F, "grid", bandPx);
        expect(fan, `${name}, band ${bandPx}`).toEqual(grid);
        expect(grid.filter((set) => set !== "").length, `${name}, band ${bandPx}`).toBeGreaterThan(countA / 4);
      }
    }
  });
});

