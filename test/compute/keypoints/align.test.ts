/**
 * Patch alignment (compute/stages/keypoints/align.ts) on images with a known warp between
 * them: a smooth random texture and a copy rotated, scaled and shifted by a sub-pixel amount.
 */
import { describe, expect, it } from "vitest";
import { alignPatch, alignScratch, patchOffsets, referencePatch, type AlignOptions } from "../../../compute/stages/keypoints/align.js";
import { buildPyramid, withGradients } from "../../../compute/stages/keypoints/pyramid.js";

const SIZE = 160;
const OPTIONS: AlignOptions = { patchRadius: 6, maxIterations: 20, minZncc: 0.8, maxShiftLevelPx: 2, minContrast: 2 };

/** A smooth texture: a sum of random sinusoids, as a function of continuous coordinates. */
function texture(seed: number): (x: number, y: number) => number {
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const waves = Array.from({ length: 12 }, () => ({ fx: (rand() - 0.5) * 0.6, fy: (rand() - 0.5) * 0.6, phase: rand() * 6.28, amp: 10 + 20 * rand() }));
  return (x, y) => 128 + waves.reduce((sum, w) => sum + w.amp * Math.sin(w.fx * x + w.fy * y + w.phase), 0) / 3;
}

/** Renders `f` at pixel centres (x + 0.5, y + 0.5), optionally through a map from this image's points to f's. */
function render(f: (x: number, y: number) => number, map: (x: number, y: number) => [number, number] = (x, y) => [x, y]): Uint8Array {
  const out = new Uint8Array(SIZE * SIZE);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const [u, v] = map(x + 0.5, y + 0.5);
      out[y * SIZE + x] = Math.max(0, Math.min(255, Math.round(f(u, v))));
    }
  }
  return out;
}

describe("affine Lucas-Kanade patch alignment", () => {
  const f = texture(7);
  // The second image sees the texture rotated by 12°, scaled by 1.15 about (80, 80), shifted by (0.37, −0.21).
  const angle = (12 * Math.PI) / 180;
  const scale = 1.15;
  const shift = [0.37, -0.21];
  // Point q of image 2 shows texture point p with q = c + scale·R(p − c) + shift.
  const toImage2 = (x: number, y: number): [number, number] => {
    const dx = x - 80;
    const dy = y - 80;
    return [80 + scale * (Math.cos(angle) * dx - Math.sin(angle) * dy) + shift[0], 80 + scale * (Math.sin(angle) * dx + Math.cos(angle) * dy) + shift[1]];
  };
  const fromImage2 = (x: number, y: number): [number, number] => {
    const dx = (x - shift[0] - 80) / scale;
    const dy = (y - shift[1] - 80) / scale;
    return [80 + Math.cos(angle) * dx + Math.sin(angle) * dy, 80 - Math.sin(angle) * dx + Math.cos(angle) * dy];
  };
  const image1 = withGradients(buildPyramid(render(f), SIZE, SIZE, 3));
  const image2 = withGradients(buildPyramid(render(f, fromImage2), SIZE, SIZE, 3));
  const offsets = patchOffsets(OPTIONS.patchRadius);

  it("recovers a keypoint's position in another view to under a tenth of a pixel from half a pixel off", () => {
    const reference = new Float32Array(offsets.length / 2);
    const errors: number[] = [];
    for (const [x, y] of [[60.3, 70.8], [95.1, 88.4], [75.5, 100.2], [102.7, 61.9]]) {
      expect(referencePatch(image1, x, y, 1, offsets, OPTIONS.minContrast, reference)).toBe(true);
      const [tx, ty] = toImage2(x, y);
      // The detector's keypoint is 0.5 px off, with the similarity the keypoints' scales and angles give.
      const startX = tx + 0.4;
      const startY = ty - 0.3;
      const warp = Float64Array.from([0, 0, scale * Math.cos(angle), -scale * Math.sin(angle), scale * Math.sin(angle), scale * Math.cos(angle)]);
      expect(alignPatch(image2, startX, startY, reference, 1, offsets, warp, OPTIONS, alignScratch(OPTIONS.patchRadius))).toBe("aligned");
      errors.push(Math.hypot(startX + warp[0] - tx, startY + warp[1] - ty));
    }
    // Measured when written: 0.033, 0.017, 0.007 and 0.091 px (the last in a weakly textured spot).
    expect(Math.max(...errors)).toBeLessThan(0.1);
    expect(errors.sort((a, b) => a - b)[1]).toBeLessThan(0.05);
  });

  it("refines the warp itself when the keypoints' orientations are off by several degrees", () => {
    const reference = new Float32Array(offsets.length / 2);
    expect(referencePatch(image1, 70, 75, 1, offsets, OPTIONS.minContrast, reference)).toBe(true);
    const [tx, ty] = toImage2(70, 75);
    const wrong = angle + (6 * Math.PI) / 180;
    const warp = Float64Array.from([0, 0, Math.cos(wrong), -Math.sin(wrong), Math.sin(wrong), Math.cos(wrong)]);
    expect(alignPatch(image2, tx - 0.3, ty + 0.3, reference, 1, offsets, warp, OPTIONS, alignScratch(OPTIONS.patchRadius))).toBe("aligned");
    expect(Math.hypot(tx - 0.3 + warp[0] - tx, ty + 0.3 + warp[1] - ty)).toBeLessThan(0.08);
  });

  it("refuses a flat reference, a patch of something else, and a patch at the border", () => {
    const flat = withGradients(buildPyramid(new Uint8Array(SIZE * SIZE).fill(90), SIZE, SIZE, 3));
    const reference = new Float32Array(offsets.length / 2);
    expect(referencePatch(flat, 80, 80, 1, offsets, OPTIONS.minContrast, reference)).toBe(false);
    expect(referencePatch(image1, 3, 80, 1, offsets, OPTIONS.minContrast, reference)).toBe(false);
    const other = withGradients(buildPyramid(render(texture(99)), SIZE, SIZE, 3));
    expect(referencePatch(image1, 80, 80, 1, offsets, OPTIONS.minContrast, reference)).toBe(true);
    const identity = () => Float64Array.from([0, 0, 1, 0, 0, 1]);
    expect(alignPatch(other, 80, 80, reference, 1, offsets, identity(), OPTIONS, alignScratch(OPTIONS.patchRadius))).not.toBe("aligned");
    expect(alignPatch(image1, SIZE - 4, 80, reference, 1, offsets, identity(), OPTIONS, alignScratch(OPTIONS.patchRadius))).toBe("outside");
  });
});
