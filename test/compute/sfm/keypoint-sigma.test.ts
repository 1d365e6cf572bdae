import { describe, expect, it } from "vitest";
import type { ImageFeatures } from "../../../compute/scene/index.js";
import { keypointSigma } from "../../../compute/stages/sfm/bundle.js";

function features(scales: number[]): ImageFeatures {
  const count = scales.length;
  return {
    imageIndex: 0, count, xy: new Float32Array(2 * count), scale: Float32Array.from(scales), angle: new Float32Array(count),
    descriptors: new Uint8Array(61 * count), descriptorBytes: 61, rgb: new Uint8Array(3 * count),
  };
}

describe("keypointSigma", () => {
  it("is a keypoint's detection scale over the image's finest", () => {
    const f = features([4.8, 2.4, 9.6, 2.4]);
    expect([0, 1, 2, 3].map((k) => keypointSigma(f, k))).toEqual([2, 1, 4, 1]);
  });

  it("weighs alike keypoints of one scale, and keypoints without a usable scale", () => {
    expect(keypointSigma(features([2, 2, 2]), 1)).toBe(1);
    const unusable = features([0, 3, Number.NaN]);
    expect(keypointSigma(unusable, 0)).toBe(1);
    expect(keypointSigma(unusable, 1)).toBe(1);
    expect(keypointSigma(unusable, 2)).toBe(1);
  });
});
