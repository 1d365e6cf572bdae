import { describe, expect, it } from "vitest";
import { packDescriptors } from "../../../compute/stages/matching/hamming.js";
import { learnVocabularyTree, quantize, topNeighbours, wordVectors } from "../../../compute/stages/matching/retrieval.js";
import { rng } from "../../support/fixtures.js";

describe("stages/matching retrieval", () => {
  it("ranks images that see the same scene part (shared, noisy descriptors) as nearest neighbours", () => {
    // 20 "places" with 150 distinctive descriptors each; 3 images per place keep 70% of them
    // with a few flipped bits (another view) plus 30% descriptors of their own (clutter).
    const random = rng(8);
    const bytes = 61;
    const places = Array.from({ length: 20 }, () => Uint8Array.from({ length: 150 * bytes }, () => Math.floor(random() * 256)));
    const images = [];
    for (let i = 0; i < 60; i++) {
      const place = places[Math.floor(i / 3)];
      const rows = new Uint8Array(150 * bytes);
      for (let r = 0; r < 150; r++) {
        if (random() < 0.7) {
          rows.set(place.subarray(r * bytes, (r + 1) * bytes), r * bytes);
          for (let f = 0; f < 12; f++) rows[r * bytes + Math.floor(random() * bytes)] ^= 1 << Math.floor(random() * 8);
        } else for (let k = 0; k < bytes; k++) rows[r * bytes + k] = Math.floor(random() * 256);
      }
      images.push({ rows: packDescriptors(rows, 150, bytes), count: 150 });
    }
    const tree = learnVocabularyTree(images, 16, { branching: 8, depth: 3, trainingSample: 6000, iterations: 4, perImage: 150 });
    // 6000 samples split 8 ways three times: most of the 512 possible words exist.
    expect(tree.count).toBeGreaterThan(300);
    expect(tree.count).toBeLessThanOrEqual(512);
    const vectors = wordVectors(images, tree, 150);
    vectors.forEach((v) => expect(v.weights.reduce((s, w) => s + w * w, 0)).toBeCloseTo(1, 9));
    const neighbours = topNeighbours(vectors, 2, () => true, tree.count);
    let correct = 0;
    neighbours.forEach((list, i) => list.forEach((j) => (correct += Math.floor(j / 3) === Math.floor(i / 3) ? 1 : 0)));
    expect(correct / (60 * 2)).toBeGreaterThan(0.9);
  });

  it("descends every descriptor to one word, the same word for the same descriptor", () => {
    const random = rng(3);
    const count = 4000;
    const rows = Uint32Array.from({ length: count * 16 }, () => Math.floor(random() * 2 ** 32) >>> 0);
    const tree = learnVocabularyTree([{ rows, count }], 16, { branching: 6, depth: 3, trainingSample: count, iterations: 3, perImage: count });
    const words = quantize(tree, rows, count);
    expect(words.every((w) => w < tree.count)).toBe(true);
    // Quantising a row on its own or among others gives the same word (no state between rows).
    for (const r of [0, 17, 3999]) expect(quantize(tree, rows.slice(r * 16, (r + 1) * 16), 1)[0]).toBe(words[r]);
    // Words are used: a tree of random rows spreads them over most leaves.
    expect(new Set(words).size).toBeGreaterThan(0.8 * tree.count);
  });

  it("makes one word of a vocabulary too small to split, and every image scores alike", () => {
    const rows = Uint32Array.from({ length: 5 * 16 }, (_, i) => (i * 2654435761) >>> 0);
    const tree = learnVocabularyTree([{ rows, count: 5 }], 16, { branching: 10, depth: 4, trainingSample: 100, iterations: 2, perImage: 5 });
    expect(tree.count).toBe(1);
    expect([...quantize(tree, rows, 5)]).toEqual([0, 0, 0, 0, 0]);
  });
});
