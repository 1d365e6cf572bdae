import { describe, expect, it } from "vitest";
import type { ImageRef } from "../../../compute/scene/images.js";
import { packDescriptors } from "../../../compute/stages/matching/hamming.js";
import { selectPairs } from "../../../compute/stages/matching/pairs.js";
import { DEFAULTS } from "../../../compute/stages/matching/index.js";
import { rng } from "../../support/fixtures.js";

function imagesAndDescriptors(count: number, video: boolean): { images: ImageRef[]; packed: Array<{ rows: Uint32Array; count: number }> } {
  const random = rng(5);
  const images: ImageRef[] = Array.from({ length: count }, (_, index) => ({
    index,
    name: video ? `v.mp4#${index * 6}` : `img${index}.jpg`,
    path: "",
    width: 640,
    height: 480,
    focalPrior: 700,
    focalPriorSource: "default",
    ...(video ? { video: { file: "v.mp4", frame: index * 6 } } : {}),
  }));
  const packed = images.map(() => ({ rows: packDescriptors(Uint8Array.from({ length: 60 * 61 }, () => Math.floor(random() * 256)), 60, 61), count: 60 }));
  return { images, packed };
}

function pairSet(pairs: Uint32Array): Set<string> {
  const out = new Set<string>();
  for (let k = 0; k < pairs.length; k += 2) {
    expect(pairs[k]).toBeLessThan(pairs[k + 1]);
    out.add(`${pairs[k]}-${pairs[k + 1]}`);
  }
  expect(out.size).toBe(pairs.length / 2);
  return out;
}

describe("stages/matching pair selection", () => {
  it("matches small sets exhaustively", () => {
    const { images, packed } = imagesAndDescriptors(30, false);
    const { pairs, strategy } = selectPairs(images, packed, 16, DEFAULTS);
    expect(strategy).toBe("exhaustive");
    expect(pairSet(pairs).size).toBe((30 * 29) / 2);
  });

  it("keeps 100 video frames linear: sequential window plus a few loop-closure candidates", () => {
    const { images, packed } = imagesAndDescriptors(100, true);
    const { pairs, strategy } = selectPairs(images, packed, 16, DEFAULTS);
    const set = pairSet(pairs);
    expect(strategy).toBe("sequential+retrieval");
    const sequential = 100 * 10 - (10 * 11) / 2;
    for (let i = 0; i < 100; i++) for (let j = i + 1; j <= i + 10 && j < 100; j++) expect(set.has(`${i}-${j}`)).toBe(true);
    expect(set.size).toBeGreaterThan(sequential); // loop-closure candidates were added
    expect(set.size).toBeLessThanOrEqual(sequential + 100 * DEFAULTS.loopClosureNeighbours);
    expect(set.size).toBeLessThan((100 * 99) / 2 / 3);
  });

  it("bounds unordered sets by retrieval neighbours per image", () => {
    const { images, packed } = imagesAndDescriptors(90, false);
    const { pairs, strategy } = selectPairs(images, packed, 16, { ...DEFAULTS, retrievalNeighbours: 8 });
    expect(strategy).toBe("retrieval");
    const set = pairSet(pairs);
    expect(set.size).toBeLessThanOrEqual(90 * 8);
    expect(set.size).toBeGreaterThanOrEqual((90 * 8) / 2);
  });
});
