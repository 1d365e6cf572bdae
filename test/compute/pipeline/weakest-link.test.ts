/**
 * The match graph's weakest link (compute/pipeline/place-cameras.ts), which decides whether a
 * refused or mostly unplaced capture is matched again against simulated oblique views.
 */
import { describe, expect, it } from "vitest";
import { weakestLinkMatches } from "../../../compute/pipeline/place-cameras.js";
import type { VerifiedPair } from "../../../compute/scene/matches.js";

function pair(imageA: number, imageB: number, matches: number): VerifiedPair {
  return { imageA, imageB, matches: new Uint32Array(2 * matches), model: "fundamental", homographyRatio: 0.5 };
}

describe("weakest link of the match graph", () => {
  it("is the fewest matches on the strongest chain that joins every photo", () => {
    // 0–1 strong, 1–2 strong, 2–3 weak but also 0–3 stronger: the chain avoids the weak pair.
    expect(weakestLinkMatches(4, [pair(0, 1, 900), pair(1, 2, 700), pair(2, 3, 40), pair(0, 3, 300)])).toBe(300);
  });

  it("is 0 when the pairs leave a photo or a group apart", () => {
    expect(weakestLinkMatches(4, [pair(0, 1, 900), pair(2, 3, 700)])).toBe(0);
    expect(weakestLinkMatches(3, [pair(0, 1, 900)])).toBe(0);
    expect(weakestLinkMatches(3, [])).toBe(0);
  });
});
