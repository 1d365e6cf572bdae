/**
 * The texture scan's sharpness term (compute/stages/texture/view-scan.ts gradientAt) is read at
 * the points the scan samples instead of from a map of every pixel: it must give the map's
 * values bit for bit, border included, or the views' ranking could change.
 */
import { describe, expect, it } from "vitest";
import { gradientAt } from "../../../compute/stages/texture/view-scan.js";

/** The whole-image map the scan made before: float32 luma, central differences, hypot, 0 on the border. */
function gradientMap(rgb: Uint8Array, width: number, height: number): Float32Array {
  const luma = new Float32Array(width * height);
  for (let i = 0; i < width * height; i++) luma[i] = 0.299 * rgb[3 * i] + 0.587 * rgb[3 * i + 1] + 0.114 * rgb[3 * i + 2];
  const out = new Float32Array(width * height);
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      out[i] = Math.hypot((luma[i + 1] - luma[i - 1]) / 2, (luma[i + width] - luma[i - width]) / 2);
    }
  }
  return out;
}

describe("texture/sharpness", () => {
  it("reads the gradient magnitude at a pixel exactly as a whole-image map holds it", () => {
    for (const [width, height] of [[57, 43], [3, 3], [2, 9], [128, 1]]) {
      const rgb = new Uint8Array(3 * width * height);
      let state = 12345;
      for (let i = 0; i < rgb.length; i++) rgb[i] = (state = (state * 1103515245 + 12345) >>> 0) >>> 24;
      const map = gradientMap(rgb, width, height);
      let differing = 0;
      for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) if (!Object.is(gradientAt(rgb, width, height, x, y), map[y * width + x])) differing++;
      expect(differing).toBe(0);
    }
  });
});
