import { describe, expect, it } from "vitest";
import { createKernel, MAX_COST, meanOfBest, nccCostReference, type CostWindow } from "../../../compute/stages/dense/kernel.js";

/** Deterministic uniform numbers in [0, 1) (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomWindow(random: () => number): CostWindow {
  const n = 52; // 7×7 samples padded to a multiple of 4
  const win = { dx: new Float32Array(n), dy: new Float32Array(n), ref: new Float32Array(n), weight: new Float32Array(n) };
  for (let i = 0; i < 49; i++) {
    win.dx[i] = 2 * ((i % 7) - 3);
    win.dy[i] = 2 * (Math.floor(i / 7) - 3);
    win.ref[i] = random();
    win.weight[i] = 0.2 + 0.8 * random();
  }
  return win;
}

describe("dense/kernel", () => {
  it("gives the same costs from the wasm SIMD build and the TypeScript reference", () => {
    const random = rng(7);
    const width = 97;
    const height = 61;
    const grey = new Float32Array(width * height).map(() => random());
    const wasm = createKernel("wasm", 52);
    const ts = createKernel("typescript", 52);
    expect(["wasm-simd", "native-avx512"]).toContain(wasm.name);
    wasm.setSource(0, grey, width, height);
    ts.setSource(0, grey, width, height);
    let compared = 0;
    let invalid = 0;
    for (let trial = 0; trial < 400; trial++) {
      const win = randomWindow(random);
      // Some windows correlate with the source: copy warped source values into the reference.
      const H = new Float64Array([0.9 + 0.2 * random(), 0.1 * (random() - 0.5), 40 * random() - 10, 0.1 * (random() - 0.5), 0.9 + 0.2 * random(), 30 * random() - 8, 1e-4 * (random() - 0.5), 1e-4 * (random() - 0.5), 1]);
      const px = 20 + random() * 60;
      const py = 15 + random() * 30;
      if (trial % 2 === 0) for (let i = 0; i < 49; i++) win.ref[i] = grey[Math.min(width * height - 1, Math.floor(py + win.dy[i]) * width + Math.floor(px + win.dx[i]))] + 0.05 * random();
      wasm.setWindow(win);
      ts.setWindow(win);
      const a = wasm.cost(0, px, py, H);
      const b = ts.cost(0, px, py, H);
      expect(b).toBe(nccCostReference(grey, width, height, win, px, py, H));
      expect(Math.abs(a - b)).toBeLessThan(1e-4);
      if (b === MAX_COST) invalid++;
      else compared++;
    }
    // Both outcomes were exercised: valid costs and windows that leave the image.
    expect(compared).toBeGreaterThan(100);
    expect(invalid).toBeGreaterThan(10);
  });

  it("scores a window against itself as 0 and its negative as 2", () => {
    const random = rng(3);
    const width = 40;
    const height = 40;
    const grey = new Float32Array(width * height).map(() => random());
    const win = randomWindow(random);
    const px = 20.5;
    const py = 19.5;
    for (let i = 0; i < 49; i++) win.ref[i] = grey[(py - 0.5 + win.dy[i]) * width + (px - 0.5 + win.dx[i])];
    const identity = new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]);
    for (const kind of ["wasm", "typescript"] as const) {
      const kernel = createKernel(kind, 52);
      kernel.setSource(0, grey, width, height);
      kernel.setWindow(win);
      expect(kernel.cost(0, px, py, identity)).toBeLessThan(1e-5);
      kernel.setWindow({ ...win, ref: win.ref.map((v) => 1 - v) });
      expect(kernel.cost(0, px, py, identity)).toBeGreaterThan(2 - 1e-5);
    }
  });

  it("tells a flat window, which scores MAX_COST on any plane, from one with texture", () => {
    const random = rng(3);
    const width = 97;
    const height = 61;
    const grey = new Float32Array(width * height).map(() => random());
    const parts = Float64Array.from([1, 0, 2, 0, 1, -1, 0, 0, 1, 0.5, 0.2, 0.01]);
    for (const kind of ["wasm", "typescript"] as const) {
      const kernel = createKernel(kind, 52);
      kernel.setSource(0, grey, width, height);
      kernel.setPlaneParts(0, parts);
      const textured = randomWindow(random);
      // Grey steps far below a grey level (variance ~1e-8 against the kernel's floor of 1e-5).
      const flat = { ...textured, ref: textured.ref.map((_, i) => 0.5 + 1e-4 * (i % 3)) };
      kernel.setWindow(flat);
      expect(kernel.windowIsFlat()).toBe(true);
      expect(kernel.planeCost(40.5, 30.5, 1e-3, -1e-3, -0.3, 1, 1)).toBe(MAX_COST);
      kernel.setWindow(textured);
      expect(kernel.windowIsFlat()).toBe(false);
      expect(kernel.planeCost(40.5, 30.5, 1e-3, -1e-3, -0.3, 1, 1)).toBeLessThan(MAX_COST);
    }
  });

  it("scores a plane against every source in one call with the same bits as one call per source, windows at the border included", () => {
    const random = rng(11);
    const sizes = [[97, 61], [80, 70], [64, 90]];
    const greys = sizes.map(([w, h]) => new Float32Array(w * h).map(() => random()));
    const wasm = createKernel("wasm", 52);
    const ts = createKernel("typescript", 52);
    // A = K_s·R·K_r⁻¹ near the identity, b = K_s·t: each source sees the reference's pixels shifted and sheared a little.
    const parts = sizes.map(() => Float64Array.from([1 + 0.1 * (random() - 0.5), 0.05 * (random() - 0.5), 10 * (random() - 0.5), 0.05 * (random() - 0.5), 1 + 0.1 * (random() - 0.5), 10 * (random() - 0.5), 1e-4 * (random() - 0.5), 1e-4 * (random() - 0.5), 1, 30 * (random() - 0.5), 30 * (random() - 0.5), 0.1 * (random() - 0.5)]));
    for (const kernel of [wasm, ts]) {
      sizes.forEach(([w, h], j) => kernel.setSource(j, greys[j], w, h));
      parts.forEach((p, j) => kernel.setPlaneParts(j, p));
    }
    const H = new Float64Array(9);
    const costs = new Float64Array(sizes.length);
    let inside = 0;
    let outside = 0;
    for (let trial = 0; trial < 600; trial++) {
      const win = randomWindow(random);
      // Every third window is clamped at the reference image's left or top border, as the stage clamps it.
      if (trial % 3 === 0) for (let i = 0; i < 49; i++) win.dx[i] = Math.max(win.dx[i], -2);
      if (trial % 3 === 1) for (let i = 0; i < 49; i++) win.dy[i] = Math.max(win.dy[i], -4);
      wasm.setWindow(win);
      ts.setWindow(win);
      const px = Math.floor(90 * random()) + 0.5;
      const py = Math.floor(80 * random()) + 0.5;
      const m = [(random() - 0.5) * 2e-3, (random() - 0.5) * 2e-3, -0.2 - 0.3 * random()];
      for (let j = 0; j < sizes.length; j++) {
        for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) H[3 * r + c] = parts[j][3 * r + c] + parts[j][9 + r] * m[c];
        costs[j] = wasm.cost(j, px, py, H);
        if (costs[j] === MAX_COST) outside++;
        else inside++;
      }
      // A leading run of the sources as well (a pixel outside an added source's part of the frame).
      const lead = 1 + (inside + outside) % sizes.length;
      const perLeading = meanOfBest(costs.slice(0, lead), 2);
      const perSource = meanOfBest(costs, 2);
      expect(wasm.planeCost(px, py, m[0], m[1], m[2], 2, sizes.length)).toBe(perSource);
      expect(Math.abs(ts.planeCost(px, py, m[0], m[1], m[2], 2, sizes.length) - perSource)).toBeLessThan(1e-4);
      expect(wasm.planeCost(px, py, m[0], m[1], m[2], 2, lead)).toBe(perLeading);
      expect(Math.abs(ts.planeCost(px, py, m[0], m[1], m[2], 2, lead) - perLeading)).toBeLessThan(1e-4);
    }
    // Both kinds of window were scored: inside every source, and leaving one.
    expect(inside).toBeGreaterThan(300);
    expect(outside).toBeGreaterThan(100);
  });
});
