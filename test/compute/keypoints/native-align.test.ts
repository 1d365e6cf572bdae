/**
 * The keypoints addon (compute/stages/keypoints/native/align.c) against align.ts alignPatch:
 * the same refined warps and outcomes to the bit over several hundred observations of a rotated,
 * scaled and shifted texture, among them patches that leave the image, diverge or match badly.
 */
import { describe, expect, it } from "vitest";
import { alignLevel, alignPatch, alignScratch, patchOffsets, referencePatch, type AlignOptions } from "../../../compute/stages/keypoints/align.js";
import { nativeAlign } from "../../../compute/stages/keypoints/native-align.js";
import { buildPyramid, withGradients } from "../../../compute/stages/keypoints/pyramid.js";
import { createRng } from "../../../compute/math/random.js";
import { canBuildNative } from "../../support/native-build.js";

const SIZE = 240;
const OUTCOME_NAMES = ["aligned", "outside", "diverged", "dissimilar"];

/** A grey image of random sinusoids at pixel centres, seen through `map` (this image's point to the texture's). */
function render(seed: number, map: (x: number, y: number) => [number, number]): Uint8Array {
  const rng = createRng(seed);
  const waves = Array.from({ length: 14 }, () => ({ fx: (rng() - 0.5) * 0.7, fy: (rng() - 0.5) * 0.7, phase: rng() * 6.28, amp: 10 + 20 * rng() }));
  const out = new Uint8Array(SIZE * SIZE);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const [u, v] = map(x + 0.5, y + 0.5);
      out[y * SIZE + x] = Math.max(0, Math.min(255, Math.round(128 + waves.reduce((sum, w) => sum + w.amp * Math.sin(w.fx * u + w.fy * v + w.phase), 0) / 3)));
    }
  }
  return out;
}

describe("keypoints/native-align", () => {
  const available = nativeAlign() !== null;

  it("is built wherever the addons can be", () => {
    if (!canBuildNative()) return;
    expect(nativeAlign(), "the native addon is missing: run `node scripts/build-native.mjs` (npm ci's postinstall)").not.toBeNull();
  });

  it.runIf(available)("refines every warp to align.ts's bits, with its outcomes", () => {
    const angle = 0.15;
    const scale = 1.1;
    const back = (x: number, y: number): [number, number] => {
      const dx = (x - 0.3 - 120) / scale;
      const dy = (y + 0.2 - 120) / scale;
      return [120 + Math.cos(angle) * dx + Math.sin(angle) * dy, 120 - Math.sin(angle) * dx + Math.cos(angle) * dy];
    };
    const image1 = withGradients(buildPyramid(render(5, (x, y) => [x, y]), SIZE, SIZE, 3));
    // The right half of the second image shows another texture: those patches match badly.
    const other = render(9, back);
    const image2Grey = render(5, back);
    for (let y = 0; y < SIZE; y++) for (let x = SIZE / 2 + 40; x < SIZE; x++) image2Grey[y * SIZE + x] = other[y * SIZE + x];
    const image2 = withGradients(buildPyramid(image2Grey, SIZE, SIZE, 3));
    for (const [radius, maxShiftLevelPx] of [[4, 2], [6, 0.6]] as const) {
      const options: AlignOptions = { patchRadius: radius, maxIterations: 12, minZncc: 0.8, maxShiftLevelPx, minContrast: 2 };
      const offsets = patchOffsets(radius);
      const size = offsets.length / 2;
      const rng = createRng(radius);
      const count = 300;
      const xy = new Float32Array(2 * count);
      const tracks = new Uint32Array(count);
      const spacing = new Float64Array(count);
      const warps = new Float64Array(6 * count);
      const levelOf = new Int32Array(count);
      const patches = new Float32Array(count * size);
      let references = 0;
      for (let o = 0; o < count; o++) {
        const x = 10 + rng() * (SIZE - 20);
        const y = 10 + rng() * (SIZE - 20);
        spacing[o] = 0.8 + 3 * rng();
        tracks[o] = o;
        if (referencePatch(image1, x, y, spacing[o], offsets, options.minContrast, patches.subarray(o * size, (o + 1) * size))) references++;
        const dx = (x - 120) * scale;
        const dy = (y - 120) * scale;
        xy[2 * o] = 120 + Math.cos(angle) * dx - Math.sin(angle) * dy + 0.3 + (rng() - 0.5);
        xy[2 * o + 1] = 120 + Math.sin(angle) * dx + Math.cos(angle) * dy - 0.2 + (rng() - 0.5);
        const ratio = scale * (0.9 + 0.2 * rng());
        const turn = angle + 0.2 * (rng() - 0.5);
        warps.set([0, 0, ratio * Math.cos(turn), -ratio * Math.sin(turn), ratio * Math.sin(turn), ratio * Math.cos(turn)], 6 * o);
        levelOf[o] = alignLevel(image2, spacing[o], warps.subarray(6 * o, 6 * o + 6));
      }
      expect(references).toBeGreaterThan(count / 2);
      const typescript = warps.slice();
      const expected = Array.from({ length: count }, (_, o) =>
        alignPatch(image2, xy[2 * o], xy[2 * o + 1], patches.subarray(o * size, (o + 1) * size), spacing[o], offsets, typescript.subarray(6 * o, 6 * o + 6), options, alignScratch(radius)));
      const outcome = new Uint8Array(count);
      nativeAlign()!.alignObservations(image2.map((l) => [l.data, l.gx!, l.gy!]), Int32Array.from(image2, (l) => l.width), Int32Array.from(image2, (l) => l.height),
        xy, tracks, spacing, levelOf, warps, patches, offsets, options.maxIterations, options.minZncc, options.maxShiftLevelPx, outcome);
      expect(Array.from(outcome, (c) => OUTCOME_NAMES[c])).toEqual(expected);
      const differing = warps.findIndex((w, k) => !Object.is(w, typescript[k]));
      expect(differing, `warp value ${differing}: ${warps[differing]} against ${typescript[differing]}`).toBe(-1);
      // Every outcome occurs, so each of the C's paths is held to the TypeScript's.
      for (const name of OUTCOME_NAMES) expect(expected, `radius ${radius}: no ${name}`).toContain(name);
    }
  });

  it.runIf(available)("refuses an observation whose track has no patch", () => {
    const pyramid = withGradients(buildPyramid(new Uint8Array(64 * 64).fill(100), 64, 64, 2));
    const offsets = patchOffsets(2);
    expect(() => nativeAlign()!.alignObservations(pyramid.map((l) => [l.data, l.gx!, l.gy!]), Int32Array.from(pyramid, (l) => l.width), Int32Array.from(pyramid, (l) => l.height),
      new Float32Array([30, 30]), new Uint32Array([1]), new Float64Array([1]), new Int32Array([0]), new Float64Array([0, 0, 1, 0, 0, 1]), new Float32Array(25), offsets, 5, 0.8, 2, new Uint8Array(1))).toThrow(/out of range/);
  });
});
