import { describe, expect, it } from "vitest";
import { loadWasmKernel, type CostWindow } from "../../../compute/stages/dense/kernel.js";
import { nativeWindowBuilder } from "../../../compute/stages/dense/native-plane-cost.js";
import { fillWindow, windowShape, type WindowShape } from "../../../compute/stages/dense/window.js";
import { rng } from "../../support/fixtures.js";
import { canBuildNative } from "../../support/native-build.js";
import { atEachWidth } from "../../support/native-widths.js";

/** Grey images of every kind the windows meet: smooth, noisy, hard edges from 0 to 1, flat, and a few repeated values. */
function image(kind: number, width: number, height: number, random: () => number): Float32Array {
  const grey = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (kind === 0) grey[i] = 0.5 + 0.3 * Math.sin(x / 7) * Math.cos(y / 5);
      else if (kind === 1) grey[i] = random();
      else if (kind === 2) grey[i] = ((x >> 3) + (y >> 2)) & 1 ? 1 : Math.fround(random() * 0.05);
      else if (kind === 3) grey[i] = 0.25;
      else grey[i] = [0.1, 0.4, 0.7, 0.9][Math.floor(random() * 4)];
    }
  }
  return grey;
}

const SHAPES: Array<[string, WindowShape]> = [
  ["checker r5 step 2 (the wide window)", windowShape(5, 2, "checker", 5)],
  ["checker r5 step 1 (the narrow one)", windowShape(5, 1, "checker", 5)],
  ["square r3 step 1 (49 samples, 3 of padding)", windowShape(3, 1, "square", 3)],
  ["square r1 step 1 (9 samples)", windowShape(1, 1, "square", 1)],
];

/** σ_colour of 0.02 to 10: Δ²·s from 0 to past the weight table (16) and past the zero bound (106). */
const COLOUR_SCALES = [0, 1 / (2 * 10 ** 2), 1 / (2 * 0.2 ** 2), 1 / (2 * 0.1 ** 2), 1 / (2 * 0.05 ** 2), 1 / (2 * 0.02 ** 2)];

describe("dense/native reference window", () => {
  it("is built wherever a C compiler and Node-API's header are, and builds the windows on any x86-64 CPU", () => {
    if (!canBuildNative() || process.arch !== "x64") return;
    expect(nativeWindowBuilder(), "the native addon is missing: run `node scripts/build-native.mjs` (npm ci's postinstall)").not.toBeNull();
    const kernel = loadWasmKernel(52)!;
    expect(kernel.nativeWindows!({ grey: new Float32Array(100), width: 10, height: 10 }, 1, [windowShape(1, 1, "square", 1)])).not.toBeNull();
    expect(loadWasmKernel(52, false)!.nativeWindows!({ grey: new Float32Array(100), width: 10, height: 10 }, 1, [])).toBeNull();
  });

  it("gives the TypeScript window's grey values, weights, statistics and variance to the bit, or leaves the window to it, with AVX-512 and with AVX2", () => {
    if (!nativeWindowBuilder()) return;
    // avx512 and avx2: each CPU builds at its widest width.
    atEachWidth(() => compareWithTypeScript());
  });

  it("leaves a window at the border, or one whose offsets leave the image, to the TypeScript, at both widths", () => {
    if (!nativeWindowBuilder()) return;
    atEachWidth(() => {
      const shape = windowShape(2, 1, "square", 2);
      const width = 20;
      const height = 20;
      const kernel = loadWasmKernel(shape.spatialWeight.length)!;
      const windows = kernel.nativeWindows!({ grey: image(0, width, height, rng(1)), width, height }, 50, [shape])!;
      const own = kernel.windowArrays();
      own.dx.set(shape.baseDx);
      own.dy.set(shape.baseDy);
      expect(windows.build(0, 10, 10)).not.toBeNaN();
      expect(windows.build(0, 1, 10)).toBeNaN();
      expect(windows.build(0, 10, height - 2)).toBeNaN();
      own.dy[3] = 40;
      expect(windows.build(0, 10, 10)).toBeNaN();
      own.dy[3] = -40;
      expect(windows.build(0, 10, 10)).toBeNaN();
    });
  });
});

/** The addon's windows at this thread's width against fillWindow on every kind of image, shape and colour scale. */
function compareWithTypeScript(): void {
  const random = rng(41);
  const width = 57;
  const height = 43;
  let built = 0;
  let leftToTypeScript = 0;
  let beyondTable = 0;
  let zeroWeights = 0;
  for (const [label, shape] of SHAPES) {
    const n = shape.spatialWeight.length;
    for (let kind = 0; kind < 5; kind++) {
      const grey = image(kind, width, height, random);
      for (const colourScale of COLOUR_SCALES) {
        const kernel = loadWasmKernel(n)!;
        const windows = kernel.nativeWindows!({ grey, width, height }, colourScale, [shape])!;
        const own = kernel.windowArrays();
        own.dx.set(shape.baseDx);
        own.dy.set(shape.baseDy);
        const reference: CostWindow = { dx: Float32Array.from(shape.baseDx), dy: Float32Array.from(shape.baseDy), ref: new Float32Array(n), weight: new Float32Array(n) };
        const stats = new Float64Array(3);
        const { reach } = shape;
        for (let row = reach; row < height - reach; row += 2) {
          for (let col = reach; col < width - reach; col += 3) {
            const variance = windows.build(0, col, row);
            const expected = fillWindow({ grey, width, height }, col, row, shape, colourScale, reference, true, stats);
            for (let i = 0; i < shape.sampleCount; i++) {
              const t = (grey[row * width + col + shape.baseDy[i] * width + shape.baseDx[i]] - grey[row * width + col]) ** 2 * colourScale;
              if (t >= 16) beyondTable++;
              if (t >= 106) zeroWeights++;
            }
            if (Number.isNaN(variance)) {
              leftToTypeScript++;
              continue;
            }
            built++;
            const where = `${label}, image ${kind}, s ${colourScale}, (${col}, ${row})`;
            expect(Object.is(variance, expected), where).toBe(true);
            for (let i = 0; i < shape.sampleCount; i++) {
              if (!Object.is(own.ref[i], reference.ref[i]) || !Object.is(own.weight[i], reference.weight[i])) {
                expect([own.ref[i], own.weight[i]], `${where}, sample ${i}`).toEqual([reference.ref[i], reference.weight[i]]);
              }
            }
            // The statistics as kernel.ts windowReady stores them, and the flat test on them.
            kernel.windowReady(stats[0], stats[1], expected, -reach, reach, -reach, reach);
            expect(windows.flat, where).toBe(kernel.windowIsFlat());
          }
        }
      }
    }
  }
  // Every path was taken: the table, beyond it, the zero weights, and windows left to the TypeScript.
  expect(built).toBeGreaterThan(20000);
  expect(beyondTable).toBeGreaterThan(1000);
  expect(zeroWeights).toBeGreaterThan(1000);
  expect(leftToTypeScript).toBeGreaterThan(0);
  expect(leftToTypeScript).toBeLessThan(built / 10);
}
