/**
 * The z-buffer of compute/geometry/mesh-raster.ts scans each row of a face only where the row
 * crosses it; it must give the same bits as testing every pixel of the face's bounding box (the
 * module's plain reference), on faces of every shape: thin slivers, level and upright edges, vertices
 * exactly on pixel centres, faces larger than the image and partly outside it.
 */
import { describe, expect, it } from "vitest";
import { rasterizeDepth, rasterizeDepthReference as rasterizeWholeBox } from "../../../compute/geometry/mesh-raster.js";
import { createRng } from "../../../compute/math/random.js";

function same(a: Float32Array, b: Float32Array): boolean {
  const ua = new Uint32Array(a.buffer), ub = new Uint32Array(b.buffer);
  for (let i = 0; i < ua.length; i++) if (ua[i] !== ub[i]) return false;
  return true;
}

describe("geometry/mesh-raster", () => {
  const width = 97, height = 61;

  it("gives the whole-box scan's bits on random faces of every shape", () => {
    const next = createRng(7);
    const faces = 3000;
    const px = new Float32Array(3 * faces), py = new Float32Array(3 * faces), depth = new Float32Array(3 * faces);
    for (let f = 0; f < faces; f++) {
      const kind = f % 6;
      const cx = -20 + next() * (width + 40), cy = -20 + next() * (height + 40);
      for (let k = 0; k < 3; k++) {
        const v = 3 * f + k;
        const size = kind === 0 ? 3 : kind === 1 ? 30 : 150;
        px[v] = cx + (next() - 0.5) * size;
        py[v] = cy + (next() - 0.5) * size;
        depth[v] = 1 + next() * 9;
      }
      if (kind === 3) { px[3 * f + 2] = px[3 * f]! + 0.01 * (px[3 * f + 1]! - px[3 * f]!); py[3 * f + 2] = py[3 * f]! + 40; } // a sliver
      if (kind === 4) py[3 * f + 1] = py[3 * f]!; // a level edge
      if (kind === 5) { // vertices on pixel centres, and an upright edge
        for (let k = 0; k < 3; k++) { px[3 * f + k] = Math.round(px[3 * f + k]!) + 0.5; py[3 * f + k] = Math.round(py[3 * f + k]!) + 0.5; }
        px[3 * f + 1] = px[3 * f]!;
      }
    }
    const indices = Uint32Array.from({ length: 3 * faces }, (_, i) => i);
    const proj = { px, py, depth };
    const fast = rasterizeDepth(indices, proj, width, height);
    const reference = rasterizeWholeBox(indices, proj, width, height);
    expect(fast.some((z) => z !== Infinity)).toBe(true);
    expect(same(fast, reference)).toBe(true);
  });

  it("gives the same bits face by face, so no face's pixels are lost behind another", () => {
    const next = createRng(11);
    for (let f = 0; f < 400; f++) {
      const px = new Float32Array(3), py = new Float32Array(3), depth = Float32Array.of(2, 3, 4);
      for (let k = 0; k < 3; k++) { px[k] = next() * width; py[k] = next() * height; }
      if (f % 4 === 0) py[1] = py[0]! + 1e-5; // nearly level
      if (f % 4 === 1) px[2] = px[0]! + 1e-5; // nearly upright
      const one = Uint32Array.of(0, 1, 2);
      expect(same(rasterizeDepth(one, { px, py, depth }, width, height), rasterizeWholeBox(one, { px, py, depth }, width, height))).toBe(true);
    }
  });

  it("leaves faces behind the camera out", () => {
    const proj = { px: Float32Array.of(10, 50, 30), py: Float32Array.of(10, 10, 50), depth: Float32Array.of(1, -1, 1) };
    expect(rasterizeDepth(Uint32Array.of(0, 1, 2), proj, width, height).every((z) => z === Infinity)).toBe(true);
  });
});
