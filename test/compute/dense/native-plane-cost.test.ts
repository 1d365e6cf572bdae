import { describe, expect, it } from "vitest";
import { createKernel, loadWasmKernel, MAX_COST, type CostKernel, type CostWindow } from "../../../compute/stages/dense/kernel.js";
import { nativePlaneCost, useNativeIsa, type NativeIsa } from "../../../compute/stages/dense/native-plane-cost.js";
import { rng } from "../../support/fixtures.js";
import { canBuildNative, nativeIsas } from "../../support/native-build.js";
import { atEachWidth } from "../../support/native-widths.js";

/** A window of `n` samples (a multiple of 4): a grid at `step` px, the last few padded with weight 0, clamped at a border sometimes. */
function window(n: number, step: number, random: () => number, clamp: number): CostWindow {
  const side = Math.ceil(Math.sqrt(n));
  const win = { dx: new Float32Array(n), dy: new Float32Array(n), ref: new Float32Array(n), weight: new Float32Array(n) };
  const used = n - (n % 4 === 0 && n > 4 ? Math.floor(random() * 4) : 0);
  for (let i = 0; i < used; i++) {
    win.dx[i] = step * ((i % side) - Math.floor(side / 2));
    win.dy[i] = step * (Math.floor(i / side) - Math.floor(side / 2));
    if (clamp === 1) win.dx[i] = Math.max(win.dx[i], -1);
    if (clamp === 2) win.dy[i] = Math.max(win.dy[i], -2);
    win.ref[i] = random();
    win.weight[i] = 0.1 + 0.9 * random();
  }
  return win;
}

/** The same sources (images and homography parts) in both kernels. */
function loadSources(kernels: CostKernel[], random: () => number, count: number): void {
  for (let j = 0; j < count; j++) {
    const width = 60 + Math.floor(80 * random());
    const height = 50 + Math.floor(70 * random());
    const grey = new Float32Array(width * height).map(() => random());
    // A = K_s·R·K_r⁻¹ near the identity, b = K_s·t: the reference's pixels shifted, sheared and seen in perspective.
    const parts = Float64Array.from([1 + 0.2 * (random() - 0.5), 0.1 * (random() - 0.5), 20 * (random() - 0.5), 0.1 * (random() - 0.5), 1 + 0.2 * (random() - 0.5), 20 * (random() - 0.5), 2e-3 * (random() - 0.5), 2e-3 * (random() - 0.5), 1, 40 * (random() - 0.5), 40 * (random() - 0.5), 0.3 * (random() - 0.5)]);
    for (const kernel of kernels) {
      kernel.setSource(j, grey, width, height);
      kernel.setPlaneParts(j, parts);
    }
  }
}

const ISAS = nativeIsas();

describe("dense/native plane cost", () => {
  it("is built wherever a C compiler and Node-API's header are, and runs the stage's plane cost at the CPU's widest vectors", () => {
    if (!canBuildNative() || ISAS.length === 0) return;
    expect(nativePlaneCost(), "the native addon is missing: run `node scripts/build-native.mjs` (npm ci's postinstall)").not.toBeNull();
    expect(createKernel("wasm", 52).name).toBe(`native-${ISAS[0]}`);
    expect(loadWasmKernel(52, false)!.name).toBe("wasm-simd");
    // Narrowed on this thread, and back.
    if (ISAS.includes("avx2")) {
      expect(useNativeIsa("avx2")).toBe(true);
      const narrow = loadWasmKernel(4)!;
      expect(narrow.name).toBe("native-avx2");
      // The AVX2 cost reads the image itself, so no quads are laid; widened again, the AVX-512
      // cost refuses those sources rather than read quads at address 0.
      narrow.setSource(0, new Float32Array(100).fill(0.5), 10, 10);
      narrow.setPlaneParts(0, Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0));
      narrow.setWindow({ dx: Float32Array.of(-1, 0, 1, 0), dy: Float32Array.of(0, -1, 0, 1), ref: Float32Array.of(0.1, 0.5, 0.9, 0.3), weight: new Float32Array(4).fill(1) });
      expect(narrow.planeCost(5.5, 5.5, 0, 0, -0.2, 1, 1)).toBe(MAX_COST);
      expect(useNativeIsa(ISAS[0])).toBe(true);
      if (ISAS[0] === "avx512") expect(() => narrow.planeCost(5.5, 5.5, 0, 0, -0.2, 1, 1)).toThrow(TypeError);
    }
  });

  it("gives the WebAssembly kernel's plane costs to the bit at every width the CPU has, for every window length's remainder of 16 samples, at borders and behind the camera", () => {
    if (!nativePlaneCost()) return;
    atEachWidth((isa) => compareWithWasm(isa));
  });

  it("refuses a parameter block or memory it cannot read", () => {
    const native = nativePlaneCost();
    if (!native) return;
    expect(() => native.bind(new ArrayBuffer(64), 8)).toThrow(TypeError);
    expect(() => native.bind(new Float64Array(16) as unknown as ArrayBuffer, 0)).toThrow(TypeError);
    // A block whose addresses lie past the memory's end.
    const memory = new ArrayBuffer(1024);
    const block = new Int32Array(memory, 48, 6);
    block.set([4096, 1, 0, 52, 1, 0]);
    native.bind(memory, 0);
    expect(() => native.planeCost()).toThrow(TypeError);
  });
});

/** The addon at `isa` against the wasm kernel on random windows, sources and planes: every cost the same to the bit. */
function compareWithWasm(isa: NativeIsa | null): void {
  const random = rng(29);
  let scored = 0;
  let invalid = 0;
  let mixed = 0;
  for (const n of [4, 8, 12, 16, 20, 36, 52, 64]) {
    const native = loadWasmKernel(n)!;
    const wasm = loadWasmKernel(n, false)!;
    if (isa) expect(native.name).toBe(`native-${isa}`);
    const sources = 2 + (n % 5);
    loadSources([native, wasm], random, sources);
    for (let trial = 0; trial < 250; trial++) {
      const win = window(n, 1 + (trial % 2), random, trial % 3);
      native.setWindow(win);
      wasm.setWindow(win);
      const px = Math.floor(100 * random()) + 0.5;
      const py = Math.floor(90 * random()) + 0.5;
      // Mostly planes in front of every source; one in eight tilted so far that it passes behind one.
      const tilt = trial % 8 === 0 ? 0.05 : 2e-3;
      const m = [(random() - 0.5) * tilt, (random() - 0.5) * tilt, -0.1 - 0.4 * random()];
      const bestK = 1 + (trial % sources);
      // All the sources, or in one trial of three a leading run of them.
      const lead = trial % 3 === 1 ? 1 + (trial % sources) : sources;
      const expected = wasm.planeCost(px, py, m[0], m[1], m[2], bestK, lead);
      const got = native.planeCost(px, py, m[0], m[1], m[2], bestK, lead);
      expect(Object.is(got, expected), `n ${n}, trial ${trial}: ${got} against ${expected}`).toBe(true);
      if (expected === MAX_COST) invalid++;
      else if (expected > MAX_COST / bestK) mixed++;
      else scored++;
      // Halfway, the sources are loaded again after the first ones: the memory grows (its old
      // buffer detached) between two calls, and the addon must read the new one.
      if (trial === 125) loadSources([native, wasm], random, sources);
    }
  }
  // Every kind of hypothesis came up: scored in full, some sources out of reach, none in reach.
  expect(scored).toBeGreaterThan(400);
  expect(mixed).toBeGreaterThan(50);
  expect(invalid).toBeGreaterThan(50);
}
