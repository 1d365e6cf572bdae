import { describe, expect, it } from "vitest";
import { packDescriptors } from "../../../compute/stages/matching/hamming.js";
import { histograms, learnVocabulary, topNeighbours } from "../../../compute/stages/matching/retrieval.js";
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
    const vocabulary = learnVocabulary(images, 16, { vocabularySize: 256, trainingSample: 6000, iterations: 4, perImage: 150 });
    expect(vocabulary.count).toBe(256);
    const vectors = histograms(images, 16, vocabulary, 150);
    const neighbours = topNeighbours(vectors, 60, 2, () => true);
    let correct = 0;
    neighbours.forEach((list, i) => list.forEach((j) => (correct += Math.floor(j / 3) === Math.floor(i / 3) ? 1 : 0)));
    expect(correct / (60 * 2)).toBeGreaterThan(0.9);
  });
});
