import { describe, expect, it } from "vitest";
import { skyPixels, trimFattening } from "../../../compute/stages/dense/edge-trim.js";

const W = 60;
const H = 40;
const OPTIONS = { maxSteps: 12, sameGrey: 0.01, flatGrey: 0.01 };

/** Every depthless pixel: the trim's seeds when the whole background counts. */
function depthless(depth: Float32Array): Int32Array {
  return Int32Array.from(depth.keys()).filter((p) => !(depth[p] > 0));
}

/**
 * A textured roof (x < 30, a checker of grey 0.2/0.5) against a plain sky (grey 0.9) to the right.
 * The roof's depth is 5; the sky holds none except a fattened band of `band` pixels beside the
 * roof, at the roof's depth, as a window straddling the edge gives it.
 */
function roofAndSky(band: number): { depth: Float32Array; grey: Float32Array } {
  const depth = new Float32Array(W * H);
  const grey = new Float32Array(W * H);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const p = y * W + x;
      grey[p] = x < 30 ? ((x >> 1) + (y >> 1)) % 2 ? 0.2 : 0.5 : 0.9;
      depth[p] = x < 30 + band ? 5 : 0;
    }
  }
  return { depth, grey };
}

describe("trimFattening", () => {
  it("trims the fattened band off a flat background, up to the pixel beside the edge", () => {
    const { depth, grey } = roofAndSky(6);
    const trimmed = trimFattening(depth, grey, W, H, depthless(depth), OPTIONS);
    // The band's pixel beside the roof is not flat (its left neighbour is roof): it stays.
    expect(trimmed).toBe(5 * H);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) expect(depth[y * W + x] > 0).toBe(x <= 30);
    }
  });

  it("goes no farther than maxSteps from the depthless region", () => {
    const { depth, grey } = roofAndSky(20);
    trimFattening(depth, grey, W, H, depthless(depth), OPTIONS);
    for (let x = 30; x < 50; x++) expect(depth[10 * W + x] > 0).toBe(x < 50 - OPTIONS.maxSteps);
  });

  it("trims nothing from no seeds", () => {
    const { depth, grey } = roofAndSky(6);
    expect(trimFattening(depth, grey, W, H, new Int32Array(0), OPTIONS)).toBe(0);
  });

  it("leaves a plain surface around its own holes, and textured pixels anywhere", () => {
    // A plain wall (grey 0.7) with depth everywhere but a hole in its middle, framed by texture.
    const depth = new Float32Array(W * H).fill(3);
    const grey = new Float32Array(W * H).fill(0.7);
    for (let y = 15; y < 25; y++) for (let x = 25; x < 35; x++) depth[y * W + x] = 0;
    for (let x = 0; x < W; x++) depth[x] = 0; // the top row: depthless and on the border
    for (let x = 0; x < W; x += 2) grey[W + x] = 0.1; // a textured second row under it
    const before = Float32Array.from(depth);
    // Only the top row is depthless outside the hole: the hole is no seed, being no sky.
    const seeds = Int32Array.from({ length: W }, (_, x) => x);
    expect(trimFattening(depth, grey, W, H, seeds, OPTIONS)).toBe(0);
    expect(depth).toEqual(before);
  });

  it("does nothing with maxSteps 0", () => {
    const { depth, grey } = roofAndSky(6);
    expect(trimFattening(depth, grey, W, H, depthless(depth), { ...OPTIONS, maxSteps: 0 })).toBe(0);
  });
});

describe("skyPixels", () => {
  /** RGB of a photo: rows 0–9 blue sky, 10–19 a black backdrop, 20–29 grass, 30–39 bright grey gravel; depth only in a middle column. */
  function scene(): { depth: Float32Array; rgb: Uint8Array } {
    const depth = new Float32Array(W * H);
    const rgb = new Uint8Array(3 * W * H);
    const colours = [[150, 190, 240], [10, 10, 12], [70, 140, 40], [210, 205, 190]];
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        rgb.set(colours[Math.floor(y / 10)], 3 * (y * W + x));
        if (x >= 28 && x < 32) depth[y * W + x] = 4;
      }
    }
    return { depth, rgb };
  }

  it("is the depthless sky-coloured region joined to the top border", () => {
    const { depth, rgb } = scene();
    const sky = new Set(skyPixels(depth, rgb, W, H));
    expect(sky.size).toBe(10 * (W - 4));
    for (const p of sky) expect(Math.floor(p / W)).toBeLessThan(10);
  });

  it("leaves out a sky-coloured region that does not reach the top border", () => {
    const { depth, rgb } = scene();
    for (let x = 0; x < W; x++) depth[5 * W + x] = 4; // a row with depth cuts the sky off below it
    const sky = new Set(skyPixels(depth, rgb, W, H));
    expect(sky.size).toBe(5 * (W - 4));
  });
});
