/**
 * The dense filtering and fusion addon (compute/stages/dense/native/fusion.c) against filter.ts
 * geometricFilterTypeScript and fusion.ts fuseTypeScript: the same maps and cloud to the bit on noisy depth maps of a tilted plane seen by rotated cameras, with
 * holes, outliers, a camera facing away, depths far enough to overflow a projection (and infinite,
 * so that projections are NaN), seeds from a few maps only and maps that yield their points to an
 * earlier cluster. A reassociated sum in the C mostly vanishes in the float32 outputs; the decisions
 * (which pixels join, yield, count) and the outputs' bits are what this holds.
 */
import { describe, expect, it } from "vitest";
import { geometricFilter, geometricFilterTypeScript, type FilterOptions } from "../../../compute/stages/dense/filter.js";
import { fuse, fuseTypeScript, type FusionMap, type FusionOptions } from "../../../compute/stages/dense/fusion.js";
import { nativeFusion } from "../../../compute/stages/dense/native-fusion.js";
import type { DenseView } from "../../../compute/stages/dense/views.js";
import { createRng } from "../../../compute/math/random.js";
import type { PointCloud } from "../../../compute/scene/index.js";
import { canBuildNative } from "../../support/native-build.js";

const WIDTH = 96;
const HEIGHT = 72;
const FOCAL = 80;

type Vec = [number, number, number];
const sub = (a: Vec, b: Vec): Vec => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const cross = (a: Vec, b: Vec): Vec => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const dot = (a: Vec, b: Vec) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const unit = (a: Vec): Vec => {
  const n = Math.hypot(...a);
  return [a[0] / n, a[1] / n, a[2] / n];
};

/** A camera at `centre` looking at `target` (camFromWorld rows: right, down, forward). */
function lookAt(viewIndex: number, centre: Vec, target: Vec, rgb: Uint8Array): DenseView {
  const forward = unit(sub(target, centre));
  const right = unit(cross(forward, [0, -1, 0]));
  const down = cross(forward, right);
  const R = new Float64Array([...right, ...down, ...forward]);
  const t = new Float64Array([-dot(right, centre), -dot(down, centre), -dot(forward, centre)]);
  return { viewIndex, name: `v${viewIndex}`, width: WIDTH, height: HEIGHT, focal: FOCAL, cx: WIDTH / 2 + 0.3, cy: HEIGHT / 2 - 0.2, R, t, grey: new Float32Array(WIDTH * HEIGHT), rgb };
}

/** The plane n·x = d (n unit) seen by `view`: depth along the optical axis and the camera-frame normal, with noise, holes and outliers. */
function planeMap(view: DenseView, seed: number): FusionMap {
  const rng = createRng(seed);
  const n: Vec = unit([0.1, -0.3, -1]);
  const d = -6;
  const depth = new Float32Array(WIDTH * HEIGHT);
  const normal = new Float32Array(3 * WIDTH * HEIGHT);
  const R = view.R, t = view.t;
  // Camera centre C = −Rᵀt; the plane in camera coordinates: (R n)·x = d − n·C.
  const C: Vec = [0, 1, 2].map((k) => -(R[k] * t[0] + R[3 + k] * t[1] + R[6 + k] * t[2])) as Vec;
  const nc: Vec = [0, 1, 2].map((r) => R[3 * r] * n[0] + R[3 * r + 1] * n[1] + R[3 * r + 2] * n[2]) as Vec;
  const dc = d - dot(n, C);
  for (let row = 0; row < HEIGHT; row++) {
    for (let col = 0; col < WIDTH; col++) {
      const p = row * WIDTH + col;
      const ray: Vec = [(col + 0.5 - view.cx) / view.focal, (row + 0.5 - view.cy) / view.focal, 1];
      const z = dc / dot(nc, ray);
      const roll = rng();
      if (!(z > 0) || roll < 0.08) continue; // behind the camera, or a hole
      depth[p] = roll < 0.12 ? z * (1.05 + rng()) : roll > 0.998 ? Infinity : roll > 0.995 ? 1e30 : z * (1 + 0.004 * (rng() - 0.5));
      for (let k = 0; k < 3; k++) normal[3 * p + k] = nc[k] + 0.2 * (rng() - 0.5);
    }
  }
  return { view, depth, normal };
}

function views(): DenseView[] {
  const rng = createRng(7);
  const rgb = () => Uint8Array.from({ length: 3 * WIDTH * HEIGHT }, () => Math.floor(256 * rng()));
  const centres: Vec[] = [[0, 0, 0], [0.8, 0.1, 0.2], [-0.7, -0.2, 0.1], [0.2, 0.9, -0.3], [-0.3, -0.8, 0.4], [0.1, 0.1, 0]];
  // The last camera looks away from the plane: every projection into it is behind it.
  return centres.map((c, i) => lookAt(i, c, i === 5 ? [0.1, 0.1, -6] : [0.2, 0.1, 6], rgb()));
}

const bytesOf = (a: Float32Array | Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

function expectSameCloud(native: PointCloud, reference: PointCloud): void {
  expect(native.count).toBe(reference.count);
  expect(bytesOf(native.positions).equals(bytesOf(reference.positions))).toBe(true);
  expect(bytesOf(native.normals!).equals(bytesOf(reference.normals!))).toBe(true);
  expect(bytesOf(native.colors).equals(bytesOf(reference.colors))).toBe(true);
}

describe("dense/native-fusion", () => {
  const available = nativeFusion() !== null;

  it("is built wherever the addons can be", () => {
    if (!canBuildNative()) return;
    expect(nativeFusion(), "the native addon is missing: run `node scripts/build-native.mjs` (npm ci's postinstall)").not.toBeNull();
  });

  it.runIf(available)("fuses fuseTypeScript's cloud to the bit, for seeds from some maps and maps that yield", () => {
    const maps = views().map((view, i) => planeMap(view, 100 + i));
    const cases: FusionOptions[] = [
      { maxReprojectionPx: 1, maxRelativeDepthError: 0.01, maxNormalAngleDeg: 10, minFusedViews: 2 },
      { maxReprojectionPx: 2, maxRelativeDepthError: 0.02, maxNormalAngleDeg: 25, minFusedViews: 3 },
      { maxReprojectionPx: 1.5, maxRelativeDepthError: 0.01, maxNormalAngleDeg: 15, minFusedViews: 2, seedMaps: 3, yieldTo: Uint8Array.of(0, 0, 0, 1, 0, 1) },
      { maxReprojectionPx: 1, maxRelativeDepthError: 0.5, maxNormalAngleDeg: 90, minFusedViews: 1 },
    ];
    for (const options of cases) {
      const reference = fuseTypeScript(maps, options);
      expect(reference.count).toBeGreaterThan(500);
      expectSameCloud(fuse(maps, options), reference);
    }
  });

  it.runIf(available)("filters each map as geometricFilterTypeScript does, to the bit, with pixels kept on their prior's word", () => {
    const maps = views().map((view, i) => planeMap(view, 300 + i));
    const rng = createRng(11);
    const onPrior = Uint8Array.from({ length: WIDTH * HEIGHT }, () => (rng() < 0.3 ? 1 : 0));
    const cases: Array<[FilterOptions, Uint8Array | null]> = [
      [{ maxCost: 1, maxReprojectionPx: 1, maxRelativeDepthError: 0.01, minConsistentViews: 1 }, null],
      [{ maxCost: 1, maxReprojectionPx: 2, maxRelativeDepthError: 0.02, minConsistentViews: 2, priorConsistentViews: 3 }, onPrior],
      [{ maxCost: 1, maxReprojectionPx: 0.5, maxRelativeDepthError: 0.005, minConsistentViews: 3 }, onPrior],
    ];
    let kept = 0;
    for (const [options, prior] of cases) {
      for (const [i, ref] of maps.entries()) {
        const sources = maps.filter((_, j) => j !== i).map((m) => ({ view: m.view, depth: m.depth }));
        const reference = geometricFilterTypeScript(ref.view, ref.depth, sources, options, prior);
        expect(bytesOf(geometricFilter(ref.view, ref.depth, sources, options, prior)).equals(bytesOf(reference))).toBe(true);
        kept += reference.filter((d) => d > 0).length;
      }
    }
    expect(kept).toBeGreaterThan(5000);
  });

  it.runIf(available)("refuses maps that are not their camera's size", () => {
    const maps = views().slice(0, 2).map((view, i) => planeMap(view, 200 + i));
    const short = { ...maps[1], depth: maps[1].depth.subarray(1) };
    expect(() => fuse([maps[0], short], { maxReprojectionPx: 1, maxRelativeDepthError: 0.01, maxNormalAngleDeg: 10, minFusedViews: 2 })).toThrow(/camera's size/);
  });
});
