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

  it("adds the nearest photos by GPS position when most stills have one", () => {
    // 90 stills on a 15 × 6 grid about 10 m apart; random descriptors, so retrieval ranks at random.
    const { images, packed } = imagesAndDescriptors(90, false);
    const metre = 1 / 111_195; // degrees of latitude per metre
    const located = images.map((im) => ({ ...im, gps: { latitudeDeg: 46 + 10 * Math.floor(im.index / 15) * metre, longitudeDeg: 7 + (10 * (im.index % 15) * metre) / Math.cos((46 * Math.PI) / 180), altitudeM: 120 } }));
    const options = { ...DEFAULTS, retrievalNeighbours: 2, gpsNeighbours: 8 };
    const { pairs, strategy } = selectPairs(located, packed, 16, options);
    expect(strategy).toBe("retrieval+gps");
    const set = pairSet(pairs);
    // Every 4-neighbour on the grid (10 m) is paired.
    for (let i = 0; i < 90; i++) {
      if (i % 15 < 14) expect(set.has(`${i}-${i + 1}`)).toBe(true);
      if (i + 15 < 90) expect(set.has(`${i}-${i + 15}`)).toBe(true);
    }
    expect(set.size).toBeLessThanOrEqual(90 * (2 + 8));
    // With fewer than 80 % of the stills located, position is not used.
    const few = located.map((im, i) => (i % 3 === 0 ? im : { ...im, gps: undefined }));
    expect(selectPairs(few, packed, 16, options).strategy).toBe("retrieval");
  });
});

