import { describe, expect, it } from "vitest";
import { patchMatch, type PatchMatchInput, type PatchMatchOutput } from "../../../compute/stages/dense/patchmatch.js";
import { createKernel, releaseKernel } from "../../../compute/stages/dense/kernel.js";
import { buildPlanarPrior, NO_PLANAR_PRIOR, rasterizePrior, type PlanarPriorParams } from "../../../compute/stages/dense/planar-prior.js";
import { FOCAL, HEIGHT, trueDepth, wallInput as input, WIDTH } from "./slanted-wall.js";

/** The reference view's pixels on the plain part, a window's reach inside it. */
function plainPixels(): number[] {
  const out: number[] = [];
  for (let row = 0; row < HEIGHT; row++) {
    for (let col = 0; col < WIDTH; col++) {
      const d = trueDepth(col, row, 0);
      const x = (d * (col + 0.5 - WIDTH / 2)) / FOCAL;
      const y = (d * (row + 0.5 - HEIGHT / 2)) / FOCAL;
      if (Math.abs(x) < 0.85 && Math.abs(y) < 0.55) out.push(row * WIDTH + col);
    }
  }
  return out;
}

function withinOnePercent(out: PatchMatchOutput, pixels: number[]): number {
  const good = pixels.filter((p) => Math.abs(out.depth[p] / trueDepth(p % WIDTH, Math.floor(p / WIDTH), 0) - 1) < 0.01);
  return good.length / pixels.length;
}

describe("planar priors in PatchMatch", () => {
  const prior: PlanarPriorParams = { ...NO_PLANAR_PRIOR, weight: 0.3, iterations: 2 };

  it("decides a plain wall from the plane through its textured edge", () => {
    const pixels = plainPixels();
    expect(pixels.length).toBeGreaterThan(1500);
    const plain = patchMatch(input(NO_PLANAR_PRIOR));
    const assisted = patchMatch(input(prior));
    const before = withinOnePercent(plain, pixels);
    const after = withinOnePercent(assisted, pixels);
    const agreeing = pixels.filter((p) => assisted.priorAgrees![p] === 1).length / pixels.length;
    console.log(`plain wall within 1 %: ${before.toFixed(3)} without priors, ${after.toFixed(3)} with (${assisted.priorTriangles} triangles, ${agreeing.toFixed(3)} agree with their prior)`);
    expect(plain.priorAgrees).toBeUndefined();
    expect(after).toBeGreaterThan(0.85);
    expect(after).toBeGreaterThan(before + 0.2);
    expect(agreeing).toBeGreaterThan(0.85);
  });

  it("keeps the textured edge's own depth where the photos decide it", () => {
    const textured: number[] = [];
    const plain = new Set(plainPixels());
    for (let row = 8; row < HEIGHT - 8; row++) for (let col = 8; col < WIDTH - 8; col++) if (!plain.has(row * WIDTH + col) && Math.abs(trueDepth(col, row, 0) * ((col + 0.5 - WIDTH / 2) / FOCAL)) > 1.3) textured.push(row * WIDTH + col);
    const assisted = patchMatch(input(prior));
    expect(withinOnePercent(assisted, textured)).toBeGreaterThan(0.9);
  });

  it("leaves out triangles across a depth edge and those longer than the limit", () => {
    // Two fronto-parallel planes, left half at depth 4, right half at 8; one confident pixel per
    // support cell, the rest undecided (so they may take a prior).
    const view = { width: 100, height: 80, focal: 100, cx: 50, cy: 40 };
    const n = view.width * view.height;
    const depth = new Float32Array(n);
    const normal = new Float32Array(3 * n);
    const cost = new Float32Array(n).fill(0.5);
    for (let p = 0; p < n; p++) {
      if (p % 5 === 2 && Math.floor(p / view.width) % 5 === 2) cost[p] = 0.05;
      depth[p] = p % view.width < 50 ? 4 : 8;
      normal[3 * p + 2] = -1;
    }
    const built = buildPlanarPrior(view, { depth, normal, cost }, { ...prior, maxEdgeFraction: 0.5 });
    const raster = rasterizePrior(built, view);
    expect(built.count).toBeGreaterThan(50);
    // No kept triangle's plane is tilted: those spanning the edge fail their vertices' normals.
    for (let t = 0; t < built.count; t++) expect(built.planes[4 * t + 2]).toBeLessThan(-0.99);
    // The seam between the halves (a support cell wide) has no prior; the rest mostly does.
    expect(raster.triangleOf[40 * view.width + 50]).toBe(-1);
    const covered = raster.triangleOf.filter((t) => t >= 0).length / n;
    expect(covered).toBeGreaterThan(0.7);
    const short = buildPlanarPrior(view, { depth, normal, cost }, { ...prior, maxEdgeFraction: 0.04 });
    expect(short.count).toBe(0);
  });
});

describe("a PatchMatch level's kernel, reused by the next level and view on the thread", () => {
  it("gives the same planes whatever ran on it before, a window of another length included", () => {
    const withPyramid = (windowRadius: number, windowStep: number): PatchMatchInput => {
      const base = input({ ...NO_PLANAR_PRIOR, weight: 0.3, iterations: 1 });
      return { ...base, params: { ...base.params, iterations: 2, windowRadius, windowStep, sigmaSpatial: windowRadius * windowStep, pyramidLevels: 1, coarseLevels: 1 } };
    };
    const bytes = (out: PatchMatchOutput) => Buffer.concat([out.depth, out.normal, out.cost].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)));
    // On fresh memory: the spare kernel, if any, is taken and kept.
    createKernel("wasm", 4);
    const fresh = bytes(patchMatch(withPyramid(3, 2)));
    // After a longer window whose samples were all NaN: the next window's padding lies there.
    const poisoned = createKernel("wasm", 64);
    const old = poisoned.windowArrays();
    for (const values of [old.dx, old.dy, old.ref, old.weight]) values.fill(NaN);
    releaseKernel(poisoned);
    expect(bytes(patchMatch(withPyramid(3, 2))).equals(fresh)).toBe(true);
    // After a shorter window (25 samples), whose source table lies where the longer one's padding goes.
    patchMatch(withPyramid(2, 1));
    expect(bytes(patchMatch(withPyramid(3, 2))).equals(fresh)).toBe(true);
  });
});
