import { describe, expect, it } from "vitest";
import { allocatePanelScratch, CHOLESKY_PANEL, choleskySolveUpper, choleskyUpper, choleskyUpperPanels, trailingUpdate } from "../../../../compute/solvers/bundle-adjustment/dense-cholesky.js";
import { Rng } from "./synthetic-scene.js";

/** A random SPD matrix (full storage) that is banded plus an arrow of dense last rows/columns, or fully dense. */
function randomSpd(n: number, band: number, arrow: number, rng: Rng): Float64Array {
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = i; j < n; j++) {
      if (j - i > band && j < n - arrow) continue;
      const v = i === j ? n + 1 : rng.normal() * 0.5;
      a[i * n + j] = v;
      a[j * n + i] = v;
    }
  }
  return a;
}

describe("ba/dense-cholesky", () => {
  it("factors by panels, the trailing rows shared among threads, to the same factor bit for bit", () => {
    const rng = new Rng(5);
    // Sizes around and across panel boundaries; band, arrow and dense rows.
    for (const [n, band, arrow] of [[CHOLESKY_PANEL * 3 + 7, 9, 6], [CHOLESKY_PANEL - 1, 4, 2], [2 * CHOLESKY_PANEL, 2 * CHOLESKY_PANEL - 1, 0], [150, 40, 12]]) {
      const a = randomSpd(n, band, arrow, rng);
      const serial = a.slice();
      expect(choleskyUpper(serial, n, new Int32Array(n))).toBe(true);
      for (const threads of [1, 2, 3]) {
        const panels = a.slice();
        const scratch = allocatePanelScratch(n, (length) => new Int32Array(length));
        let rounds = 0;
        const ok = choleskyUpperPanels(panels, n, scratch, () => {
          rounds++;
          // The threads' shares in reverse order: no share may depend on another's.
          for (let t = threads - 1; t >= 0; t--) trailingUpdate(panels, n, scratch, t, threads);
        });
        expect(ok).toBe(true);
        expect(rounds).toBe(Math.ceil(n / CHOLESKY_PANEL) - 1);
        for (let i = 0; i < n; i++) for (let j = i; j < n; j++) expect(panels[i * n + j]).toBe(serial[i * n + j]);
      }
    }
  });

  it("reports a matrix that is not positive definite when factored by panels", () => {
    const n = 70;
    const a = randomSpd(n, 5, 0, new Rng(3));
    a[50 * n + 50] = -1;
    expect(choleskyUpperPanels(a, n, allocatePanelScratch(n, (length) => new Int32Array(length)), () => undefined)).toBe(false);
  });

  it("solves banded-with-arrow and fully dense SPD systems (both update paths)", () => {
    const rng = new Rng(17);
    for (const [n, band, arrow] of [[40, 3, 2], [60, 59, 0], [25, 0, 5]]) {
      const a = randomSpd(n, band, arrow, rng);
      const x = Float64Array.from({ length: n }, () => rng.normal());
      const b = new Float64Array(n);
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) b[i] += a[i * n + j] * x[j];
      const factor = a.slice();
      // Only the upper triangle is read: poison the lower one to prove it.
      for (let i = 1; i < n; i++) for (let j = 0; j < i; j++) factor[i * n + j] = NaN;
      expect(choleskyUpper(factor, n, new Int32Array(n))).toBe(true);
      choleskySolveUpper(factor, n, b);
      for (let i = 0; i < n; i++) expect(Math.abs(b[i] - x[i])).toBeLessThan(1e-10);
    }
  });

  it("reports a matrix that is not positive definite", () => {
    const a = new Float64Array([1, 2, 2, 1]);
    expect(choleskyUpper(a, 2, new Int32Array(2))).toBe(false);
  });
});
