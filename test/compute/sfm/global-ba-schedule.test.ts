/**
 * When incremental SfM runs a global bundle adjustment (sfm/incremental.ts `globalBaDue`): after
 * 15 % growth while the model is small, after 30 % once it has 100 cameras, so the adjustments
 * made while a large model grows cost fewer final-size BAs (4.3 instead of 7.7).
 */
import { describe, expect, it } from "vitest";
import { DEFAULTS } from "../../../compute/stages/sfm/options.js";
import { globalBaDue } from "../../../compute/stages/sfm/incremental.js";

/** The model sizes at which global BAs run while it grows from `from` to `to` cameras, one camera at a time. */
function schedule(from: number, to: number, options = DEFAULTS): number[] {
  const sizes: number[] = [];
  let last = from;
  for (let n = from + 1; n <= to; n++) {
    if (globalBaDue(n, last, options)) {
      sizes.push(n);
      last = n;
    }
  }
  return sizes;
}

describe("global bundle adjustment schedule", () => {
  it("adjusts after 15 % growth below 100 cameras and after 30 % above", () => {
    expect(schedule(40, 100)).toEqual([46, 53, 61, 71, 82, 95]);
    expect(globalBaDue(114, 100, DEFAULTS)).toBe(false);
    expect(globalBaDue(130, 100, DEFAULTS)).toBe(true);
    expect(schedule(95, 800)).toEqual([110, 143, 186, 242, 315, 410, 533, 693]);
  });

  it("runs half as many adjustments while a model grows from 100 to 800 cameras, summing to half the final sizes (5.9 → 2.9)", () => {
    const uniform = schedule(100, 800, { ...DEFAULTS, largeModelGlobalBaGrowth: DEFAULTS.globalBaGrowth });
    const adaptive = schedule(100, 800);
    expect(uniform.length).toBe(14);
    expect(adaptive.length).toBe(7);
    const summed = (sizes: number[]) => sizes.reduce((s, n) => s + n, 0) / 800;
    expect(summed(uniform)).toBeGreaterThan(5);
    expect(summed(adaptive)).toBeLessThan(3.5);
  });
});
