import { describe, expect, it } from "vitest";
import { toGrey, undistortRgb } from "../../../compute/stages/dense/undistort.js";

/** A smooth pattern of normalized pinhole coordinates, 0..255. */
function pattern(x: number, y: number): number {
  return 127.5 + 100 * Math.sin(20 * x) * Math.cos(16 * y);
}

describe("dense/undistort", () => {
  it("maps a radially distorted image back to the pinhole image", () => {
    const width = 160;
    const height = 120;
    const focal = 150;
    const cx = 80;
    const cy = 60;
    const k1 = -0.18;
    const k2 = 0.05;
    // Distorted image: each distorted pixel shows the pattern at its undistorted point, found by
    // fixed-point inversion of d(r) (the model of compute/scene/camera.ts).
    const distorted = new Uint8Array(width * height * 3);
    for (let row = 0; row < height; row++) {
      for (let col = 0; col < width; col++) {
        const xd = (col + 0.5 - cx) / focal;
        const yd = (row + 0.5 - cy) / focal;
        let x = xd;
        let y = yd;
        for (let it = 0; it < 30; it++) {
          const r2 = x * x + y * y;
          const d = 1 + k1 * r2 + k2 * r2 * r2;
          x = xd / d;
          y = yd / d;
        }
        const v = Math.round(pattern(x, y));
        distorted.fill(v, 3 * (row * width + col), 3 * (row * width + col) + 3);
      }
    }
    const out = undistortRgb(distorted, width, height, focal, cx, cy, k1, k2);
    let worst = 0;
    let naiveWorst = 0;
    // Interior pixels (the border maps partly outside the distorted image).
    for (let row = 15; row < height - 15; row++) {
      for (let col = 20; col < width - 20; col++) {
        const expected = pattern((col + 0.5 - cx) / focal, (row + 0.5 - cy) / focal);
        worst = Math.max(worst, Math.abs(out[3 * (row * width + col)] - expected));
        naiveWorst = Math.max(naiveWorst, Math.abs(distorted[3 * (row * width + col)] - expected));
      }
    }
    expect(worst).toBeLessThan(5);
    // The distortion is strong enough that skipping the correction would fail.
    expect(naiveWorst).toBeGreaterThan(15);
  });

  it("converts RGB to Rec. 601 grey in [0, 1]", () => {
    const grey = toGrey(new Uint8Array([255, 255, 255, 255, 0, 0, 0, 0, 0]));
    expect(grey[0]).toBeCloseTo(1, 5);
    expect(grey[1]).toBeCloseTo(0.299, 5);
    expect(grey[2]).toBe(0);
  });
});
