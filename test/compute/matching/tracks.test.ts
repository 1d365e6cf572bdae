import { describe, expect, it } from "vitest";
import type { VerifiedPair } from "../../../compute/scene/matches.js";
import { buildTracks } from "../../../compute/stages/matching/tracks.js";

function pair(imageA: number, imageB: number, matches: number[]): VerifiedPair {
  return { imageA, imageB, matches: Uint32Array.from(matches), model: "fundamental", homographyRatio: 0 };
}

describe("stages/matching tracks", () => {
  it("links matches transitively and drops tracks that see one image twice", () => {
    const pairs = [
      pair(0, 1, [0, 0, 1, 1, 2, 3]),
      pair(1, 2, [0, 0, 1, 4]),
      pair(0, 2, [2, 5, 0, 7]), // 0:0 ↔ 2:7 joins 2:0's track: image 2 twice → inconsistent
    ];
    const { tracks, stats } = buildTracks(pairs, [3, 5, 8]);
    expect(stats.inconsistent).toBe(1);
    const observed = Array.from({ length: tracks.count }, (_, k) => {
      const obs: string[] = [];
      for (let j = tracks.trackOffsets[k]; j < tracks.trackOffsets[k + 1]; j++) obs.push(`${tracks.trackImages[j]}:${tracks.trackKeypoints[j]}`);
      return obs.sort().join(" ");
    });
    expect(observed.sort()).toEqual(["0:1 1:1 2:4", "0:2 1:3 2:5"]);
    expect(tracks.trackOffsets[tracks.count]).toBe(tracks.trackImages.length);
    expect(stats.observations).toBe(6);
  });
});
