import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CandidateDistances } from "../../../compute/geometry/epipolar-band.js";
import { mutualRatioMatches, type Neighbours } from "../../../compute/math/mutual-nearest.js";
import { ANN_PARAMETERS, INDEXED_BITS, approximateNeighbours, searchReach, substringBits, substringNeighbours } from "../../../compute/stages/matching/ann.js";
import { hammingDistance, nearestNeighboursReference, packDescriptors } from "../../../compute/stages/matching/hamming.js";
import type { ImageRef } from "../../../compute/scene/images.js";
import * as features from "../../../compute/stages/features/index.js";
import * as matching from "../../../compute/stages/matching/index.js";
import { nearestNeighbours } from "../../../compute/stages/matching/kernel.js";
import { encodePng, makePlaneScene, renderPlane, rng } from "../../support/fixtures.js";

const BYTES = 61;
const WORDS = 16;
const REACH = searchReach(ANN_PARAMETERS);
/** The bits of table 0's key: a row that differs from a query only elsewhere always shares that key. */
const TABLE0_BITS = new Set(substringBits(ANN_PARAMETERS.tables, ANN_PARAMETERS.keyBits, ANN_PARAMETERS.seed).subarray(0, ANN_PARAMETERS.keyBits));

function randomDescriptors(count: number, random: () => number): Uint8Array {
  return Uint8Array.from({ length: count * BYTES }, () => Math.floor(random() * 256));
}

/** Copy row `from` of `src` into row `to` of `dst` with `flips` distinct random bits (of the indexed ones, none of `keep`) flipped. */
function plant(dst: Uint8Array, to: number, src: Uint8Array, from: number, flips: number, random: () => number, keep: Set<number> = new Set()): void {
  dst.set(src.subarray(from * BYTES, (from + 1) * BYTES), to * BYTES);
  const flipped = new Set<number>();
  while (flipped.size < flips) {
    const bit = Math.floor(random() * INDEXED_BITS);
    if (keep.has(bit) || flipped.has(bit)) continue;
    flipped.add(bit);
    dst[to * BYTES + (bit >> 3)] ^= 1 << (bit & 7);
  }
}

/** Probability that a row D bits away shares at least one table's key, as the module comment states it. */
function foundProbability(distance: number): number {
  let avoid = 1;
  for (let s = 0; s < ANN_PARAMETERS.keyBits; s++) avoid *= (INDEXED_BITS - distance - s) / (INDEXED_BITS - s);
  return 1 - (1 - avoid) ** ANN_PARAMETERS.tables;
}

/** Distances computed in TypeScript, the same contract as kernel.ts's WebAssembly candidateDistances. */
function typescriptDistances(a: Uint32Array, b: Uint32Array, countB: number): CandidateDistances {
  const candidates = new Uint32Array(countB);
  const out = new Uint32Array(countB);
  return {
    candidates,
    compute: (i, n) => {
      for (let k = 0; k < n; k++) out[k] = hammingDistance(a, i * WORDS, b, candidates[k] * WORDS, WORDS);
      return out.subarray(0, n);
    },
  };
}

/** A: `count` random rows; B: for each distance in `planted`, a copy of the next A row that far away, then random rows up to `count`. */
function plantedSets(count: number, planted: number[], seed: number): { a: Uint32Array; b: Uint32Array } {
  const random = rng(seed);
  const a = randomDescriptors(count, random);
  const b = randomDescriptors(count, random);
  planted.forEach((distance, k) => plant(b, k, a, k, distance, random));
  return { a: packDescriptors(a, count, BYTES), b: packDescriptors(b, count, BYTES) };
}

const KEYS = ["bestA", "secondA", "argA", "bestB", "secondB", "argB"] as const;

describe("stages/matching approximate search (multi-index hashing)", () => {
  it("finds planted near neighbours: all but 1 % up to 48 bits away, and at 80 bits the share its model predicts", () => {
    const count = 3000;
    const near = Array.from({ length: 1500 }, (_, k) => k % 49);
    const far = Array.from({ length: 1500 }, () => 80);
    const { a, b } = plantedSets(count, [...near, ...far], 11);
    const nb = approximateNeighbours(a, count, b, count, WORDS);
    const found = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k).filter((i) => nb.argA[i] === i).length / (to - from);
    expect(found(0, 1500)).toBeGreaterThanOrEqual(0.99);
    expect(foundProbability(80)).toBeCloseTo(0.81, 2);
    expect(Math.abs(found(1500, 3000) - foundProbability(80))).toBeLessThan(0.04); // 4 standard errors of 1,500 draws
  });

  it("reports exact distances of the rows it found, never nearer than the exhaustive search, both ways", () => {
    const count = 1500;
    const random = rng(12);
    const { a, b } = plantedSets(count, Array.from({ length: 1000 }, () => Math.floor(random() * 90)), 12);
    const approximate = approximateNeighbours(a, count, b, count, WORDS);
    const exact = nearestNeighbours(a, count, b, count, WORDS);
    const check = (side: "A" | "B") => {
      const [best, second, arg] = [approximate[`best${side}`], approximate[`second${side}`], approximate[`arg${side}`]];
      let agreed = 0;
      for (let i = 0; i < count; i++) {
        const j = arg[i];
        if (j < 0) continue;
        const [rowA, rowB] = side === "A" ? [i, j] : [j, i];
        expect(best[i]).toBe(hammingDistance(a, rowA * WORDS, b, rowB * WORDS, WORDS));
        expect(best[i]).toBeGreaterThanOrEqual(exact[`best${side}`][i]);
        expect(second[i]).toBeGreaterThanOrEqual(Math.min(exact[`second${side}`][i], REACH + 1));
        if (j === exact[`arg${side}`][i]) agreed++;
      }
      return agreed;
    };
    // 1,000 planted partners 0–89 bits away, of which the model expects ~95 % found.
    expect(check("A")).toBeGreaterThanOrEqual(900);
    expect(check("B")).toBeGreaterThanOrEqual(900);
  });

  it("keeps B's side as a search from B would: the candidate relation is symmetric", () => {
    const count = 1200;
    const random = rng(16);
    const [rawA, rawB] = [randomDescriptors(count, random), randomDescriptors(count, random)];
    for (let k = 0; k < 450; k++) {
      plant(rawA, k + 450, rawA, k, 10, random); // a twin of A row k, so B row k has a second-nearest near
      plant(rawB, k, rawA, k, k % 60, random);
    }
    const [a, b] = [packDescriptors(rawA, count, BYTES), packDescriptors(rawB, count, BYTES)];
    const forward = approximateNeighbours(a, count, b, count, WORDS);
    const backward = approximateNeighbours(b, count, a, count, WORDS);
    // Distances only: among equal distances the two orders may name different rows.
    expect(Array.from(forward.bestB)).toEqual(Array.from(backward.bestA));
    expect(Array.from(forward.secondB)).toEqual(Array.from(backward.secondA));
    expect(Array.from(forward.secondA)).toEqual(Array.from(backward.secondB));
    expect(forward.secondB.filter((d) => d <= REACH).length).toBeGreaterThan(0); // some B rows have a second within reach
  });

  it("gives the same answer with the WebAssembly distances as with the TypeScript ones", () => {
    const count = 800;
    const { a, b } = plantedSets(count, Array.from({ length: 600 }, (_, k) => k % 70), 13);
    const wasm = approximateNeighbours(a, count, b, count, WORDS);
    const typescript = substringNeighbours(a, count, b, count, typescriptDistances(a, b, count), ANN_PARAMETERS);
    for (const key of KEYS) expect(Array.from(wasm[key])).toEqual(Array.from(typescript[key]));
  });

  it("bounds a second-nearest it could not see by its reach, so Lowe's ratio caps the nearest at ratio × (reach + 1)", () => {
    expect(REACH).toBe(120);
    expect(searchReach({ ...ANN_PARAMETERS, tables: 10 })).toBeLessThan(REACH);
    const random = rng(14);
    const count = 8;
    const rawA = randomDescriptors(count, random);
    const rawB = randomDescriptors(count, random);
    plant(rawB, 0, rawA, 0, 30, random, TABLE0_BITS); // a0: one partner at 30, nothing else near
    plant(rawB, 1, rawA, 1, 100, random, TABLE0_BITS); // a1: one partner at 100 ≥ 0.8 × 121: the exhaustive ratio passes, the capped one not
    plant(rawB, 2, rawA, 2, 130, random, TABLE0_BITS); // a2: a partner beyond the reach
    plant(rawB, 3, rawA, 3, 40, random, TABLE0_BITS); // a3: a partner at 40 and a decoy at 45 the index sees
    plant(rawB, 4, rawA, 3, 45, random, TABLE0_BITS);
    const [a, b] = [packDescriptors(rawA, count, BYTES), packDescriptors(rawB, count, BYTES)];
    const nb = approximateNeighbours(a, count, b, count, WORDS);
    const exact = nearestNeighbours(a, count, b, count, WORDS);
    expect(Array.from(nb.bestA.subarray(0, 4))).toEqual([30, 100, 130, 40]);
    expect(Array.from(nb.secondA.subarray(0, 4))).toEqual([REACH + 1, REACH + 1, 130, 45]);
    for (const i of [0, 1]) expect(exact.secondA[i]).toBeGreaterThan(REACH + 1); // the true second lies farther than the bound
    const matches = (n: Neighbours) => Array.from(mutualRatioMatches(n, 0.8)).filter((_, k) => k % 3 === 0);
    expect(matches(exact)).toEqual([0, 1, 2]);
    expect(matches(nb)).toEqual([0]);
    // Without the bound (coverage 0: a reach beyond any distance) the approximate search keeps a1 and a2.
    const unbounded = approximateNeighbours(a, count, b, count, WORDS, { ...ANN_PARAMETERS, coverage: 0 });
    expect(matches(unbounded)).toEqual([0, 1, 2]);
  });

  it("handles empty sets, single rows, and sends rows of other sizes to the exhaustive search", () => {
    const random = rng(15);
    const one = packDescriptors(randomDescriptors(1, random), 1, BYTES);
    const empty = new Uint32Array(0);
    const none = approximateNeighbours(empty, 0, one, 1, WORDS);
    expect([none.bestA.length, Array.from(none.argB), Array.from(none.bestB)]).toEqual([0, [-1], [0xffffffff]]);
    expect(Array.from(approximateNeighbours(one, 1, empty, 0, WORDS).argA)).toEqual([-1]);
    const copy = approximateNeighbours(one, 1, one, 1, WORDS);
    expect([copy.argA[0], copy.bestA[0], copy.secondA[0], copy.argB[0]]).toEqual([0, 0, REACH + 1, 0]);
    const stranger = approximateNeighbours(one, 1, packDescriptors(randomDescriptors(1, random), 1, BYTES), 1, WORDS);
    expect(stranger.argA[0]).toBe(-1); // ~243 bits apart: no shared key
    // 32-byte rows (ORB's size, 8 words): the exhaustive search's answer exactly.
    const a = Uint32Array.from({ length: 40 * 8 }, () => Math.floor(random() * 2 ** 32));
    const b = Uint32Array.from({ length: 30 * 8 }, () => Math.floor(random() * 2 ** 32));
    const small = approximateNeighbours(a, 40, b, 30, 8);
    const reference = nearestNeighboursReference(a, 40, b, 30, 8);
    for (const key of KEYS) expect(Array.from(small[key])).toEqual(Array.from(reference[key]));
  });

  it("serves the matching stage: pairs whose images both have annMinKeypoints are searched approximately, weak ones again exhaustively", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ann-stage-"));
    try {
      const scene = makePlaneScene(21, 600, 450, 1400);
      const views = [
        [1, 0, -100, 0, 1, -75, 0, 0, 1],
        [0.92, -0.16, -60, 0.16, 0.92, -110, 0.00012, 0, 1],
        [1.05, 0.05, -150, -0.03, 0.98, -60, 0, 0.0002, 1],
      ];
      const images: ImageRef[] = [];
      for (const [index, imageFromPlane] of views.entries()) {
        const path = join(dir, `plane${index}.png`);
        await writeFile(path, await encodePng(renderPlane(scene, 400, 300, imageFromPlane), 400, 300));
        images.push({ index, name: `plane${index}.png`, path, width: 400, height: 300, focalPrior: 480, focalPriorSource: "default" });
      }
      const detected = await features.run({ images }, { maxFeatures: 1200, workers: 2 });
      const options = { workers: 2, guidedSubset: 0 };
      const exhaustive = await matching.run({ images, features: detected.features }, options);
      const approximate = await matching.run({ images, features: detected.features }, { ...options, ann: "mih", annMinKeypoints: 0 });
      const tooFew = await matching.run({ images, features: detected.features }, { ...options, ann: "mih", annMinKeypoints: 100_000 });
      const allWeak = await matching.run({ images, features: detected.features }, { ...options, ann: "mih", annMinKeypoints: 0, annWeakMatches: 100_000 });
      const counts = (run: matching.Output) => [run.report.counts.approximatePairs, run.report.counts.escalatedPairs];
      expect([exhaustive, approximate, tooFew, allWeak].map(counts)).toEqual([[0, 0], [3, 0], [0, 0], [0, 3]]);
      expect(approximate.pairs.map((p) => `${p.imageA}-${p.imageB}`)).toEqual(exhaustive.pairs.map((p) => `${p.imageA}-${p.imageB}`));
      expect(approximate.report.counts.inlierMatches).toBeGreaterThan(0.9 * exhaustive.report.counts.inlierMatches);
      // Below annMinKeypoints, and for weak pairs, the exhaustive search runs with the same per-pair seed: the same inliers.
      for (const run of [tooFew, allWeak]) expect(run.pairs.map((p) => Array.from(p.matches))).toEqual(exhaustive.pairs.map((p) => Array.from(p.matches)));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
