/**
 * The z-buffer of compute/geometry/mesh-raster.ts scans each row of a face only where the row
 * crosses it; it must give the same bits as testing every pixel of the face's bounding box (the
 * module's plain reference), on faces of every shape: thin slivers, level and upright edges, vertices
 * exactly on pixel centres, faces larger than the image and partly outside it. rasterizeDepth runs
 * in the native addon where it was built (compute/geometry/native/raster.c), rasterizeDepthSpans in
 * TypeScript: both are held to the reference.
 */
import { describe, expect, it } from "vitest";
import { foldOf, foldRadius2, project } from "../../../compute/geometry/camera.js";
import { projectVertices, rasterizeDepth, rasterizeDepthReference as rasterizeWholeBox, rasterizeDepthSpans } from "../../../compute/geometry/mesh-raster.js";
import { nativeRaster } from "../../../compute/geometry/native-raster.js";
import { createRng } from "../../../compute/math/random.js";
import { canBuildNative } from "../../support/native-build.js";

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
    expect(same(rasterizeDepthSpans(indices, proj, width, height), reference)).toBe(true);
  });

  it("runs in the native addon wherever a C compiler and Node-API's header are", () => {
    if (!canBuildNative()) return;
    expect(nativeRaster(), "the native addon is missing: run `node scripts/build-native.mjs` (npm ci's postinstall)").not.toBeNull();
  });

  it("gives the TypeScript's bits with corners that are not finite, or far outside the image", () => {
    // The reference is not the yardstick here: with a corner 1e38 px away its edges' slopes lose
    // the precision the row spans need, and the spans (TypeScript and C alike) draw fewer pixels.
    const big = 3.0e38;
    const corners: Array<[number, number]> = [[NaN, 5], [5, NaN], [Infinity, 20], [-Infinity, 20], [big, 30], [-big, 30], [40, big], [1e20, -1e20], [1e6, 30]];
    for (const [x, y] of corners) {
      const proj = { px: Float32Array.of(10, 60, x, 15, 70, 40), py: Float32Array.of(10, 12, y, 40, 45, 55), depth: Float32Array.of(2, 3, 4, 1, 2, 3) };
      const indices = Uint32Array.of(0, 1, 2, 3, 4, 5);
      const spans = rasterizeDepthSpans(indices, proj, width, height);
      expect(spans.some((z) => z !== Infinity)).toBe(true);
      expect(same(rasterizeDepth(indices, proj, width, height), spans), `corner (${x}, ${y})`).toBe(true);
    }
  });

  it("gives the same bits face by face, so no face's pixels are lost behind another", () => {
    const next = createRng(11);
    for (let f = 0; f < 400; f++) {
      const px = new Float32Array(3), py = new Float32Array(3), depth = Float32Array.of(2, 3, 4);
      for (let k = 0; k < 3; k++) { px[k] = next() * width; py[k] = next() * height; }
      if (f % 4 === 0) py[1] = py[0]! + 1e-5; // nearly level
      if (f % 4 === 1) px[2] = px[0]! + 1e-5; // nearly upright
      const one = Uint32Array.of(0, 1, 2);
      const reference = rasterizeWholeBox(one, { px, py, depth }, width, height);
      expect(same(rasterizeDepth(one, { px, py, depth }, width, height), reference)).toBe(true);
      expect(same(rasterizeDepthSpans(one, { px, py, depth }, width, height), reference)).toBe(true);
    }
  });

  it("leaves faces behind the camera out", () => {
    const proj = { px: Float32Array.of(10, 50, 30), py: Float32Array.of(10, 10, 50), depth: Float32Array.of(1, -1, 1) };
    expect(rasterizeDepth(Uint32Array.of(0, 1, 2), proj, width, height).every((z) => z === Infinity)).toBe(true);
  });

  it("finds where a lens's radial mapping folds over", () => {
    expect(foldRadius2(-0.26, 0)).toBeCloseTo(1 / 0.78, 12);
    expect(foldRadius2(-0.257, 0.329)).toBe(Infinity); // SceauxCastle's lens never folds
    expect(foldRadius2(0.1, 0)).toBe(Infinity);
    expect(foldRadius2(0, 0)).toBe(Infinity);
    const x = foldRadius2(-0.2, -0.05);
    expect(1 + 3 * -0.2 * x + 5 * -0.05 * x * x).toBeCloseTo(0, 12);
    const y = foldRadius2(-0.3, 0.02);
    expect(1 + 3 * -0.3 * y + 5 * 0.02 * y * y).toBeCloseTo(0, 12);
    expect(y).toBeLessThan(2);
  });

  it("leaves points past the lens's fold out of the frame they would fold into, in every projection", () => {
    // k1 −0.26: the mapping peaks at 48.5° off the axis; a point 60° off it (r = 1.73) would land
    // at r·(1 + k1·r²) = 0.38, inside a frame of half-width 0.5, though the lens never saw it.
    const intrinsics = { focal: 200, cx: 100, cy: 100, k1: -0.26, k2: 0 };
    const camFromWorld = { R: Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1), t: Float64Array.of(0, 0, 0) };
    const positions = Float32Array.of(Math.tan((60 * Math.PI) / 180), 0, 1, Math.tan((20 * Math.PI) / 180), 0, 1);
    const proj = projectVertices(positions, camFromWorld, intrinsics, 1);
    expect(proj.depth[0]).toBe(0);
    expect(proj.depth[1]).toBeCloseTo(1, 6);
    const r = Math.tan((20 * Math.PI) / 180);
    expect(proj.px[1]).toBeCloseTo(200 * r * (1 - 0.26 * r * r) + 100, 3);
    // The single-point projection refuses it too, and remembers each lens's fold by value.
    const pixel = new Float64Array(2);
    expect(project(intrinsics, camFromWorld, positions.subarray(0, 3), pixel)).toBe(false);
    expect(project(intrinsics, camFromWorld, positions.subarray(3, 6), pixel)).toBe(true);
    expect(pixel[0]).toBeCloseTo(proj.px[1]!, 3);
    expect(foldOf(-0.26, 0)).toBe(foldRadius2(-0.26, 0));
    expect(foldOf(0.1, 0)).toBe(Infinity);
    expect(foldOf(-0.26, 0)).toBeCloseTo(1 / 0.78, 12);
  });
});
