/**
 * The keypoints stage's pyramids (compute/stages/keypoints/pyramid.ts) reuse a finished image's
 * arrays and run their interiors without border tests: the levels and gradients must be the
 * straightforward definition's bit for bit, whatever the image's size, and a reused array must
 * hold nothing of the image before.
 */
import { describe, expect, it } from "vitest";
import { buildPyramid, releasePyramid, withGradients, type Pyramid } from "../../../compute/stages/keypoints/pyramid.js";

/** [1 3 3 1]/8 halving with clamped taps, then central differences (one-sided at the borders), written plainly. */
function referencePyramid(gray: Uint8Array, width: number, height: number, levels: number): Pyramid {
  const pyramid: Pyramid = [{ data: Float32Array.from(gray), width, height }];
  while (pyramid.length < levels && Math.min(pyramid.at(-1)!.width, pyramid.at(-1)!.height) >= 32) {
    const { data, width: w, height: h } = pyramid.at(-1)!;
    const ow = Math.max(1, w >> 1), oh = Math.max(1, h >> 1);
    const at = (x: number, y: number) => data[Math.min(h - 1, Math.max(0, y)) * w + Math.min(w - 1, Math.max(0, x))];
    const rows = new Float32Array(ow * h);
    for (let y = 0; y < h; y++) for (let j = 0; j < ow; j++) rows[y * ow + j] = (at(2 * j - 1, y) + 3 * at(2 * j, y) + 3 * at(2 * j + 1, y) + at(2 * j + 2, y)) / 8;
    const row = (i: number, j: number) => rows[Math.min(h - 1, Math.max(0, i)) * ow + j];
    const out = new Float32Array(ow * oh);
    for (let i = 0; i < oh; i++) for (let j = 0; j < ow; j++) out[i * ow + j] = (row(2 * i - 1, j) + 3 * row(2 * i, j) + 3 * row(2 * i + 1, j) + row(2 * i + 2, j)) / 8;
    pyramid.push({ data: out, width: ow, height: oh });
  }
  for (const level of pyramid) {
    const { data, width: w, height: h } = level;
    level.gx = new Float32Array(w * h);
    level.gy = new Float32Array(w * h);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
      const l = Math.max(0, x - 1), r = Math.min(w - 1, x + 1), u = Math.max(0, y - 1), d = Math.min(h - 1, y + 1);
      level.gx[y * w + x] = (data[y * w + r] - data[y * w + l]) / (r - l || 1);
      level.gy[y * w + x] = (data[d * w + x] - data[u * w + x]) / (d - u || 1);
    }
  }
  return pyramid;
}

function noise(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let state = seed;
  for (let i = 0; i < length; i++) out[i] = (state = (state * 1103515245 + 12345) >>> 0) >>> 24;
  return out;
}

function differing(a: Pyramid, b: Pyramid): number {
  let count = Math.abs(a.length - b.length);
  for (let l = 0; l < Math.min(a.length, b.length); l++) {
    for (const key of ["data", "gx", "gy"] as const) {
      const x = a[l][key]!, y = b[l][key]!;
      if (x.length !== y.length) { count++; continue; }
      for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) count++;
    }
  }
  return count;
}

describe("keypoints/pyramid", () => {
  it("builds the plain definition's levels and gradients bit for bit, also on reused arrays", () => {
    for (const [width, height] of [[101, 77], [64, 64], [35, 33], [2, 40], [1, 33], [200, 133]]) {
      // Twice: the second build takes the first's arrays, which hold another image.
      for (const seed of [1, 2]) {
        const gray = noise(width * height, seed * 7919 + width);
        const built = withGradients(buildPyramid(gray, width, height, 4));
        expect(differing(built, referencePyramid(gray, width, height, 4))).toBe(0);
        releasePyramid(built);
      }
    }
  });
});
