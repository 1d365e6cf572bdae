import { describe, expect, it } from "vitest";
import type { ImageFeatures, ImageRef } from "../../../compute/scene/index.js";
import { decodeFeatureBatch, encodeFeatureBatch, fromBatches } from "../../../compute/stages/features/index.js";

function features(imageIndex: number, count: number): ImageFeatures {
  const fill = <T extends Float32Array | Uint8Array>(a: T, scale: number) => (a.forEach((_, i) => (a[i] = (i * scale + imageIndex) % 251)), a);
  return { imageIndex, count, xy: fill(new Float32Array(2 * count), 1.5), scale: fill(new Float32Array(count), 0.25), angle: fill(new Float32Array(count), 0.1), descriptors: fill(new Uint8Array(61 * count), 7), descriptorBytes: 61, rgb: fill(new Uint8Array(3 * count), 3) };
}

const image = (index: number) => ({ index, name: `img${index}.jpg`, path: `/x/${index}.jpg`, width: 64, height: 48, focalPrior: 60, focalPriorSource: "default" }) as ImageRef;

describe("feature batches (detected on other containers)", () => {
  it("round-trip as bytes, odd sizes and empty images included", () => {
    const batch = { features: [features(3, 5), features(4, 0), features(7, 1)], perImage: [{ name: "a", keypoints: 5 }, { name: "b", keypoints: 0 }, { name: "c", keypoints: 1 }], warnings: ["b: only 0 keypoints (little texture?)"] };
    const back = decodeFeatureBatch(encodeFeatureBatch(batch));
    expect(back).toEqual(batch);
    const bytes = encodeFeatureBatch(batch);
    expect(() => decodeFeatureBatch(bytes.subarray(0, bytes.byteLength - 8))).toThrow(/truncated/);
    expect(() => decodeFeatureBatch(bytes.subarray(0, 40))).toThrow(/truncated/);
    expect(() => decodeFeatureBatch(new Uint8Array(16))).toThrow(/not a feature batch/);
  });

  it("merge into the stage's output in the images' order, whatever order the batches come in", () => {
    const images = [0, 1, 2, 3].map(image);
    const first = { features: [features(0, 2), features(1, 3)], perImage: [{ name: "img0.jpg" }, { name: "img1.jpg" }], warnings: [] };
    const second = { features: [features(2, 4), features(3, 1)], perImage: [{ name: "img2.jpg" }, { name: "img3.jpg" }], warnings: ["img3.jpg: only 1 keypoints (little texture?)"] };
    const out = fromBatches(images, [second, first], 12);
    expect(out.features.map((f) => f.imageIndex)).toEqual([0, 1, 2, 3]);
    expect(out.report.counts).toMatchObject({ images: 4, keypoints: 10, batches: 2 });
    expect(out.report.warnings).toEqual(second.warnings);
    expect(() => fromBatches([...images, image(9)], [first, second], 1)).toThrow(/img9/);
  });
});
