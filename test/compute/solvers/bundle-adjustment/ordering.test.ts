import { describe, expect, it } from "vitest";
import { run } from "../../../../compute/solvers/bundle-adjustment/index.js";
import { buildLayout, BANDED_ORDER_MIN_CAMERAS } from "../../../../compute/solvers/bundle-adjustment/layout.js";
import { bandedOrder, coVisibility, envelopeCost } from "../../../../compute/solvers/bundle-adjustment/ordering.js";
import { DEFAULTS } from "../../../../compute/solvers/bundle-adjustment/index.js";
import { cameraErrors } from "./alignment.js";
import { makeScene, perturbedCopy, Rng } from "./synthetic-scene.js";

/** Points seen by the cameras of each 2 × 2 window of a rows × cols grid, cameras numbered in a shuffled order. */
function gridVisibility(rows: number, cols: number, seed: number): { cameraCount: number; start: Uint32Array; list: Uint32Array; obsCamera: Uint32Array; cell: number[] } {
  const rng = new Rng(seed);
  const cell = Array.from({ length: rows * cols }, (_, i) => i);
  for (let i = cell.length - 1; i > 0; i--) {
    const j = Math.floor(rng.uniform() * (i + 1));
    [cell[i], cell[j]] = [cell[j], cell[i]];
  }
  // cell[k] = grid position of camera k
  const cameraAt = new Array<number>(rows * cols);
  cell.forEach((pos, k) => (cameraAt[pos] = k));
  const obsCamera: number[] = [];
  const start = [0];
  for (let r = 0; r + 1 < rows; r++) for (let c = 0; c + 1 < cols; c++) {
    for (const pos of [r * cols + c, r * cols + c + 1, (r + 1) * cols + c, (r + 1) * cols + c + 1]) obsCamera.push(cameraAt[pos]);
    start.push(obsCamera.length);
  }
  return { cameraCount: rows * cols, start: Uint32Array.from(start), list: Uint32Array.from(obsCamera, (_, o) => o), obsCamera: Uint32Array.from(obsCamera), cell };
}

describe("ba ordering (reverse Cuthill–McKee)", () => {
  it("numbers a shuffled 10 × 40 camera grid as a band about one grid side wide", () => {
    const g = gridVisibility(10, 40, 3);
    const take = new Uint8Array(g.cameraCount).fill(1);
    const order = bandedOrder(coVisibility(g.cameraCount, take, g.start, g.list, g.obsCamera), take);
    expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: 400 }, (_, i) => i));
    const rank = new Int32Array(400);
    order.forEach((camera, k) => (rank[camera] = k));
    const bandwidth = (rankOf: (camera: number) => number) => {
      let band = 0;
      for (let p = 0; p + 1 < g.start.length; p++) {
        const cams = Array.from(g.obsCamera.subarray(g.start[p], g.start[p + 1]), rankOf);
        band = Math.max(band, Math.max(...cams) - Math.min(...cams));
      }
      return band;
    };
    // Shuffled numbering: neighbours anywhere (band ~ n); banded: about the short side of the grid.
    expect(bandwidth((c) => c)).toBeGreaterThan(300);
    expect(bandwidth((c) => rank[c])).toBeLessThanOrEqual(2 * 10 + 2);
  });

  it("prices a banded survey for the dense solver and 400 cameras that all see one another for PCG", () => {
    const grid = gridVisibility(20, 40, 5);
    // A survey camera sees its neighbours up to 2 steps along and 1 across: widen the 2 × 2 windows.
    const take = new Uint8Array(800).fill(1);
    const neighbours = coVisibility(800, take, grid.start, grid.list, grid.obsCamera);
    const at = new Map(grid.cell.map((pos, camera) => [pos, camera]));
    grid.cell.forEach((pos, camera) => {
      const [r, c] = [Math.floor(pos / 40), pos % 40];
      for (let dr = -1; dr <= 1; dr++) for (let dc = -2; dc <= 2; dc++) {
        const other = at.get((r + dr) * 40 + (c + dc));
        if (other !== undefined && other !== camera && r + dr >= 0 && r + dr < 20 && c + dc >= 0 && c + dc < 40) neighbours[camera].add(other);
      }
    });
    const survey = envelopeCost(bandedOrder(neighbours, take), neighbours, 6, 1);
    expect(survey).toBeLessThan(0.5e9);
    expect(survey).toBeLessThan(DEFAULTS.bandedDenseMaxCost);
    const all = Array.from({ length: 400 }, (_, c) => new Set(Array.from({ length: 400 }, (_, d) => d).filter((d) => d !== c)));
    const complete = envelopeCost(bandedOrder(all, new Uint8Array(400).fill(1)), all, 6, 1);
    expect(complete).toBeGreaterThan(DEFAULTS.bandedDenseMaxCost);
    expect(6 * 800 + 1).toBeLessThanOrEqual(DEFAULTS.bandedDenseMaxSize);
  });

  it("leaves out cameras not taken and keeps small problems in camera order", () => {
    const g = gridVisibility(3, 4, 1);
    const take = Uint8Array.from({ length: 12 }, (_, c) => (c % 3 === 0 ? 0 : 1));
    const order = bandedOrder(coVisibility(12, take, g.start, g.list, g.obsCamera), take);
    expect(order.every((c) => take[c] === 1)).toBe(true);
    expect(new Set(order).size).toBe(8);
    const small = makeScene({ cameras: 12, points: 100 });
    const layout = buildLayout(small.truth, DEFAULTS);
    const bases = Array.from(layout.poseBase).filter((b) => b >= 0);
    expect(bases).toEqual([...bases].sort((a, b) => a - b));
  });

  it(`solves a ${BANDED_ORDER_MIN_CAMERAS + 50}-camera problem in banded order to the same cameras as PCG`, () => {
    const scene = makeScene({ cameras: BANDED_ORDER_MIN_CAMERAS + 50, points: 6000, minViews: 3, maxViews: 6, seed: 11 });
    const banded = perturbedCopy(scene, { seed: 2 });
    const layout = buildLayout(banded, DEFAULTS);
    const bases = Array.from(layout.poseBase).filter((b) => b >= 0);
    expect(bases).not.toEqual([...bases].sort((a, b) => a - b)); // the banded order is in use
    const denseReport = run(banded, { loss: "squared" });
    expect(denseReport.linearSolver).toBe("dense-cholesky");
    const iterative = perturbedCopy(scene, { seed: 2 });
    const pcgReport = run(iterative, { loss: "squared", denseSchurMaxCameras: 0, bandedDenseMaxCost: 0 });
    expect(Math.abs(pcgReport.finalCost / denseReport.finalCost - 1)).toBeLessThan(1e-4);
    const between = cameraErrors(iterative, banded);
    expect(between.maxRotationDeg).toBeLessThan(1e-3);
  });
});
