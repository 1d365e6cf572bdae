/**
 * @module `npm run bench -- kernels`: the dense stage's photometric cost kernel against a native
 * reference (issue 42, "hot loops at the machine's speed").
 *
 * 1. PatchMatch at the standard preset's settings (3 coarse iterations, 2 pyramid levels, planar
 *    priors, 4 sources, 7×7 samples at stride 2) on a rendered slanted wall of `--width` px:
 *    wall time and plane hypotheses scored, so nanoseconds per (hypothesis × source).
 * 2. The planes it found, every pixel against every source, replayed through four kernels on the
 *    same calls: the WebAssembly SIMD build called from JavaScript as the stage calls it, the
 *    TypeScript reference, and bench/native/ncc.c compiled by gcc (-O3 -march=native) one
 *    sample at a time, eight at a time with AVX2 + FMA gathers, and sixteen at a time with the
 *    dense addon's AVX-512 cost (the wasm kernel's bits). The costs must agree. Then the stage's
 *    planeCost per hypothesis in wasm and, where it loads, in the native addon at the CPU's widest
 *    width (and at AVX2 too on an AVX-512 CPU), alternating.
 * 3. The kernel's share of PatchMatch: calls × the kernel's time per call over PatchMatch's time.
 * 4. The texture scan's z-buffer against bench/native/raster.c (bench/raster-kernel.ts).
 * 5. The matching stage's exhaustive descriptor search against bench/native/hamming.c
 *    (bench/hamming-kernel.ts).
 *
 * `--only=raster` or `--only=hamming` runs that part alone (the first three take about a minute).
 *
 * The window's grey values live in the cache, so memory bandwidth is not this kernel's bound;
 * the native AVX2 version is. Needs gcc (Debian's build-essential) for the native columns.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { loadWasmKernel, MAX_COST, meanOfBest, nccCostReference, planeHomography, windowStatistics, type CostWindow } from "../compute/stages/dense/kernel.js";
import { nativePlaneCost, useNativeIsa } from "../compute/stages/dense/native-plane-cost.js";
import { patchMatch, type PatchMatchInput, type PatchMatchParams, type SourceCamera } from "../compute/stages/dense/patchmatch.js";
import { planeParts } from "../compute/stages/dense/patchmatch-state.js";
import { NO_PLANAR_PRIOR } from "../compute/stages/dense/planar-prior.js";
import { runRasterKernel } from "./raster-kernel.js";
import { runHammingKernel } from "./hamming-kernel.js";
import { buildNative, NATIVE_OUT_DIR } from "./native/build.js";

/** Window samples as the stage lays them out: 7×7 at stride 2, padded with weight 0 to a multiple of 4 (wasm) or 8 (AVX2). */
const RADIUS = 3;
const STEP = 2;
const ROUNDS = 5;

/** A wall n·X = ρ seen by cameras translated along x (centres in wall units); its texture is smooth blobs plus fine grain. */
const WALL_NORMAL = normalize([0.3, 0.15, -1]);
const WALL_RHO = -5;
const CENTRES = [-0.5, -0.25, 0, 0.25, 0.5];

function normalize(v: number[]): number[] {
  const l = Math.hypot(v[0], v[1], v[2]);
  return v.map((x) => x / l);
}

function hash(a: number, b: number): number {
  let h = (a * 374761393 + b * 668265263) | 0;
  h = Math.imul(h ^ (h >>> 13), 1274126177);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

function wallGrey(x: number, y: number): number {
  const grain = hash(Math.floor(x * 400), Math.floor(y * 400)) - 0.5;
  return 0.5 + 0.2 * Math.sin(9 * x + 2 * Math.sin(5 * y)) + 0.15 * Math.cos(11 * y + 3 * Math.sin(4 * x)) + 0.1 * grain;
}

function renderView(width: number, height: number, focal: number, centreX: number): Float32Array {
  const grey = new Float32Array(width * height);
  for (let row = 0; row < height; row++) {
    for (let col = 0; col < width; col++) {
      const rx = (col + 0.5 - width / 2) / focal;
      const ry = (row + 0.5 - height / 2) / focal;
      const d = (WALL_RHO - WALL_NORMAL[0] * centreX) / (WALL_NORMAL[0] * rx + WALL_NORMAL[1] * ry + WALL_NORMAL[2]);
      grey[row * width + col] = wallGrey(d * rx + centreX, d * ry);
    }
  }
  return grey;
}

export function wallInput(width: number): PatchMatchInput {
  const height = Math.round((width * 3) / 4);
  const focal = 0.9 * width;
  const ref = CENTRES.indexOf(0);
  const identity = Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]);
  const sources: SourceCamera[] = CENTRES.flatMap((c, i) => (i === ref ? [] : [{ width, height, focal, cx: width / 2, cy: height / 2, grey: renderView(width, height, focal, c), R: identity, t: Float64Array.from([-c, 0, 0]) }]));
  // The standard preset's dense settings (compute/pipeline/presets.ts, dense/options.ts).
  const params: PatchMatchParams = {
    iterations: 3, windowRadius: RADIUS, windowStep: STEP, bestK: 3, sigmaColor: 0.2, sigmaSpatial: RADIUS * STEP, kernel: "wasm", seed: 1,
    pyramidLevels: 2, refineIterations: 1, planarPrior: { ...NO_PLANAR_PRIOR, weight: 0.3, iterations: 2 },
  };
  return { width, height, focal, cx: width / 2, cy: height / 2, grey: renderView(width, height, focal, 0), sources, depthMin: 3, depthMax: 9, params };
}

/** The window of the reference pixel (col, row), as the stage's loadWindow builds it, padded to `length` samples. */
function windowAt(input: PatchMatchInput, col: number, row: number, length: number): CostWindow {
  const win: CostWindow = { dx: new Float32Array(length), dy: new Float32Array(length), ref: new Float32Array(length), weight: new Float32Array(length) };
  const centre = input.grey[row * input.width + col];
  let i = 0;
  for (let sy = -RADIUS; sy <= RADIUS; sy++) {
    for (let sx = -RADIUS; sx <= RADIUS; sx++, i++) {
      const v = input.grey[(row + sy * STEP) * input.width + col + sx * STEP];
      win.dx[i] = sx * STEP;
      win.dy[i] = sy * STEP;
      win.ref[i] = v;
      win.weight[i] = Math.exp(-(sx * sx + sy * sy) * STEP * STEP / (2 * (RADIUS * STEP) ** 2)) * Math.exp(-((v - centre) ** 2) / (2 * 0.2 ** 2));
    }
  }
  return win;
}

/** One hypothesis: pixel centre, the plane's m = nᵀ·K_r⁻¹/ρ, and its homography into source 0 (row-major, float64). */
interface Call {
  px: number;
  py: number;
  m: [number, number, number];
  H: Float64Array;
}

/** Every pixel's final plane (the planes PatchMatch scores late in its search), as patchmatch-state.ts hypothesisCost forms them. */
function replayCalls(input: PatchMatchInput, depth: Float32Array, normal: Float32Array, margin: number): Call[] {
  const { width, height, focal, cx, cy } = input;
  const parts = planeParts(input, input.sources[0]);
  const calls: Call[] = [];
  for (let row = margin; row < height - margin; row++) {
    for (let col = margin; col < width - margin; col++) {
      const p = row * width + col;
      const d = depth[p];
      if (!(d > 0)) continue;
      const [nx, ny, nz] = [normal[3 * p], normal[3 * p + 1], normal[3 * p + 2]];
      const px = col + 0.5;
      const py = row + 0.5;
      const rho = d * (nx * ((px - cx) / focal) + ny * ((py - cy) / focal) + nz);
      if (!(rho < 0)) continue;
      const m: [number, number, number] = [nx / focal / rho, ny / focal / rho, (nz - (nx * cx) / focal - (ny * cy) / focal) / rho];
      const H = new Float64Array(9);
      planeHomography(parts, 0, m[0], m[1], m[2], H);
      calls.push({ px, py, m, H });
    }
  }
  return calls;
}

function bestOf(rounds: number, fn: () => void): number {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    fn();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

/** The workload file of bench/native/ncc.c. */
function writeWorkload(file: string, source: SourceCamera, win: CostWindow, calls: Call[]): void {
  const n = win.dx.length;
  const header = Int32Array.from([source.width, source.height, n, calls.length]);
  const hyp = new Float32Array(11 * calls.length);
  calls.forEach((c, k) => {
    hyp[11 * k] = c.px;
    hyp[11 * k + 1] = c.py;
    hyp.set(c.H, 11 * k + 2);
  });
  const winData = new Float32Array(4 * n + 3);
  winData.set(win.dx, 0);
  winData.set(win.dy, n);
  winData.set(win.ref, 2 * n);
  winData.set(win.weight, 3 * n);
  winData.set(windowStatistics(win), 4 * n);
  writeFileSync(file, Buffer.concat([header, source.grey, winData, hyp].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength))));
}

interface NativeTimes {
  avx2NsPerCall: number;
  scalarNsPerCall: number;
  avx512NsPerCall: number;
  avx2: Float32Array;
  scalar: Float32Array;
  avx512: Float32Array;
}

function runNative(source: SourceCamera, win8: CostWindow, calls: Call[]): NativeTimes | string {
  const built = buildNative("ncc");
  if ("error" in built) return built.error;
  const { binary } = built;
  const workload = path.join(NATIVE_OUT_DIR, "workload.bin");
  const costsFile = path.join(NATIVE_OUT_DIR, "costs.bin");
  writeWorkload(workload, source, win8, calls);
  const line = execFileSync(binary, [workload, String(ROUNDS), costsFile], { encoding: "utf8" });
  const times = JSON.parse(line) as { avx2NsPerCall: number; scalarNsPerCall: number; avx512NsPerCall: number };
  const bytes = readFileSync(costsFile);
  const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  return { ...times, avx2: all.slice(0, calls.length), scalar: all.slice(calls.length, 2 * calls.length), avx512: all.slice(2 * calls.length) };
}

function maxDifference(a: ArrayLike<number>, b: ArrayLike<number>): { max: number; disagree: number } {
  let max = 0;
  let disagree = 0;
  for (let i = 0; i < a.length; i++) {
    // Both at MAX_COST, or both below it and close: a call near the image border may fall either side in float32.
    if ((a[i] >= MAX_COST) !== (b[i] >= MAX_COST)) {
      disagree++;
      continue;
    }
    max = Math.max(max, Math.abs(a[i] - b[i]));
  }
  return { max, disagree };
}

export async function run(args: string[]): Promise<void> {
  const only = args.find((a) => a.startsWith("--only="))?.slice("--only=".length);
  if (only === "raster") return runRasterKernel(ROUNDS);
  if (only === "hamming") return runHammingKernel(ROUNDS);
  if (only !== undefined) throw new Error(`kernels: --only=${only} is not a part (raster, hamming)`);
  const width = Number(args.find((a) => a.startsWith("--width="))?.slice("--width=".length) ?? 800);
  const input = wallInput(width);
  console.log(`kernels bench: PatchMatch on a rendered ${input.width}×${input.height} wall, ${input.sources.length} sources, standard settings; ${ROUNDS} rounds, best kept`);

  const t0 = performance.now();
  const out = patchMatch(input);
  const patchMatchMs = performance.now() - t0;
  const calls = out.evaluations * input.sources.length;
  const within = Array.from(out.depth).filter((d, p) => {
    const col = p % input.width;
    const row = Math.floor(p / input.width);
    const rx = (col + 0.5 - input.cx) / input.focal;
    const ry = (row + 0.5 - input.cy) / input.focal;
    const truth = WALL_RHO / (WALL_NORMAL[0] * rx + WALL_NORMAL[1] * ry + WALL_NORMAL[2]);
    return d > 0 && Math.abs(d / truth - 1) < 0.01;
  }).length;
  console.log(`PatchMatch (${out.kernel}): ${patchMatchMs.toFixed(0)} ms, ${out.evaluations.toLocaleString("en")} hypotheses × ${input.sources.length} sources = ${(calls / 1e6).toFixed(2)} M kernel calls, ${((1e6 * patchMatchMs) / calls).toFixed(1)} ns per call overall; depth within 1 % of the wall on ${((100 * within) / (input.width * input.height)).toFixed(1)} % of pixels`);

  const margin = RADIUS * STEP + 1;
  const replay = replayCalls(input, out.depth, out.normal, margin);
  const centreCol = Math.floor(input.width / 2);
  const centreRow = Math.floor(input.height / 2);
  const win4 = windowAt(input, centreCol, centreRow, 52);
  const win8 = windowAt(input, centreCol, centreRow, 56);
  const source = input.sources[0];

  const wasm = loadWasmKernel(win4.dx.length);
  if (!wasm) throw new Error("kernels: the wasm kernel did not load");
  wasm.setSource(0, source.grey, source.width, source.height);
  wasm.setWindow(win4);
  const wasmCosts = new Float32Array(replay.length);
  const wasmMs = bestOf(ROUNDS, () => {
    for (let k = 0; k < replay.length; k++) wasmCosts[k] = wasm.cost(0, replay[k].px, replay[k].py, replay[k].H);
  });
  const tsCosts = new Float32Array(replay.length);
  const tsMs = bestOf(ROUNDS, () => {
    for (let k = 0; k < replay.length; k++) tsCosts[k] = nccCostReference(source.grey, source.width, source.height, win4, replay[k].px, replay[k].py, replay[k].H);
  });
  // The stage's path: one call per hypothesis scores every source (bestK of them averaged), in
  // the wasm kernel and, where it loads, the native addon (the stage's choice there).
  const planeKernelOf = (native: boolean) => {
    const kernel = loadWasmKernel(win4.dx.length, native)!;
    input.sources.forEach((s, j) => {
      kernel.setSource(j, s.grey, s.width, s.height);
      kernel.setPlaneParts(j, planeParts(input, s));
    });
    kernel.setWindow(win4);
    return kernel;
  };
  const planeKernel = planeKernelOf(false);
  const nativePlaneKernel = nativePlaneCost() ? planeKernelOf(true) : null;
  const bestK = input.params.bestK;
  const planeCosts = new Float64Array(replay.length);
  const nativePlaneCosts = new Float64Array(replay.length);
  let planeMs = Infinity;
  let nativePlaneMs = Infinity;
  // On an AVX-512 CPU the addon's AVX2 width too (what a CPU without AVX-512 runs): useNativeIsa
  // switches this thread's plane cost from the next call on.
  const widest = nativePlaneCost()?.isa() ?? null;
  const avx2Too = widest === "avx512" && useNativeIsa("avx2") && useNativeIsa("avx512");
  const avx2PlaneCosts = new Float64Array(replay.length);
  let avx2PlaneMs = Infinity;
  // Alternating, so that all see the same spells of a shared machine.
  for (let round = 0; round < ROUNDS; round++) {
    planeMs = Math.min(planeMs, bestOf(1, () => {
      for (let k = 0; k < replay.length; k++) planeCosts[k] = planeKernel.planeCost(replay[k].px, replay[k].py, replay[k].m[0], replay[k].m[1], replay[k].m[2], bestK, input.sources.length);
    }));
    if (nativePlaneKernel) nativePlaneMs = Math.min(nativePlaneMs, bestOf(1, () => {
      for (let k = 0; k < replay.length; k++) nativePlaneCosts[k] = nativePlaneKernel.planeCost(replay[k].px, replay[k].py, replay[k].m[0], replay[k].m[1], replay[k].m[2], bestK, input.sources.length);
    }));
    if (nativePlaneKernel && avx2Too) {
      useNativeIsa("avx2");
      avx2PlaneMs = Math.min(avx2PlaneMs, bestOf(1, () => {
        for (let k = 0; k < replay.length; k++) avx2PlaneCosts[k] = nativePlaneKernel.planeCost(replay[k].px, replay[k].py, replay[k].m[0], replay[k].m[1], replay[k].m[2], bestK, input.sources.length);
      }));
      useNativeIsa("avx512");
    }
  }
  // The same hypotheses as the stage scored them before planeCost: H built in JS, one call per source, the mean in JS.
  const allParts = input.sources.map((s) => planeParts(input, s));
  const H = new Float64Array(9);
  const sourceCosts = new Float64Array(input.sources.length);
  const perSourceMs = bestOf(ROUNDS, () => {
    for (let k = 0; k < replay.length; k++) {
      const { px, py, m } = replay[k];
      for (let j = 0; j < allParts.length; j++) {
        const parts = allParts[j];
        planeHomography(parts, 0, m[0], m[1], m[2], H);
        sourceCosts[j] = planeKernel.cost(j, px, py, H);
      }
      meanOfBest(sourceCosts, bestK);
    }
  });
  const early = wasmCosts.filter((c) => c >= MAX_COST).length / replay.length;
  const native = runNative(source, win8, replay);

  const perCall = (ms: number) => (1e6 * ms) / replay.length;
  const rows: Array<[string, number, string]> = [
    ["wasm SIMD (4 wide), called from JS", perCall(wasmMs), "—"],
    ["TypeScript reference (float64)", perCall(tsMs), describe(maxDifference(tsCosts, wasmCosts))],
  ];
  if (typeof native !== "string") {
    rows.push(["native C, one sample at a time", native.scalarNsPerCall, describe(maxDifference(native.scalar, wasmCosts))]);
    rows.push(["native C, AVX2 + FMA (8 wide, gathers)", native.avx2NsPerCall, describe(maxDifference(native.avx2, wasmCosts))]);
    // ncc.c gives −1 on a CPU without AVX-512.
    if (native.avx512NsPerCall >= 0) rows.push(["native C, AVX-512 (16 wide, a 16-byte load of each sample's four corners, the wasm kernel's bits)", native.avx512NsPerCall, describe(maxDifference(native.avx512, wasmCosts))]);
    else console.log("native C, AVX-512: n/a (this CPU has no AVX-512)");
  }
  const fastest = Math.min(...rows.map((r) => r[1]));
  console.log(`\nreplayed: ${replay.length.toLocaleString("en")} calls (every pixel's final plane into one source), ${(100 * early).toFixed(1)} % end early (window leaves the source)`);
  console.log("| kernel | ns per call | × fastest | costs against wasm |");
  console.log("|---|---|---|---|");
  for (const [name, ns, agreement] of rows) console.log(`| ${name} | ${ns.toFixed(1)} | ${(ns / fastest).toFixed(2)} | ${agreement} |`);
  if (typeof native === "string") console.log(`native columns: n/a, ${native}`);
  const sources = input.sources.length;
  console.log(`\nevery source (${sources}), best ${bestK} averaged, per hypothesis: one wasm call per source with H and the mean in JS ${perCall(perSourceMs).toFixed(0)} ns; one planeCost call in wasm ${perCall(planeMs).toFixed(0)} ns`);
  if (nativePlaneKernel) {
    const same = planeCosts.every((c, k) => Object.is(c, nativePlaneCosts[k]));
    console.log(`one planeCost call in the native addon at ${widest} (the stage's kernel here): ${perCall(nativePlaneMs).toFixed(0)} ns, ${(planeMs / nativePlaneMs).toFixed(2)}× wasm's speed; ${same ? "the same bits" : "COSTS DIFFER from wasm's"}`);
    if (avx2Too) {
      const avx2Same = planeCosts.every((c, k) => Object.is(c, avx2PlaneCosts[k]));
      console.log(`the addon at avx2 (a CPU without AVX-512 runs it): ${perCall(avx2PlaneMs).toFixed(0)} ns, ${(planeMs / avx2PlaneMs).toFixed(2)}× wasm's speed; ${avx2Same ? "the same bits" : "COSTS DIFFER from wasm's"}`);
    }
  } else console.log("the native plane cost: not loaded (not built, or neither AVX-512 nor AVX2 on this CPU)");
  // The kernel the stage ran (out.kernel): the addon's plane cost where it loaded.
  const stageNs = perCall(nativePlaneKernel ? nativePlaneMs : planeMs) / input.sources.length;
  const kernelShare = (calls * stageNs) / (1e6 * patchMatchMs);
  console.log(`\nthe ${out.kernel} kernel's share of PatchMatch: ${(100 * kernelShare).toFixed(0)} % (${(calls / 1e6).toFixed(2)} M source costs × ${stageNs.toFixed(1)} ns of ${patchMatchMs.toFixed(0)} ms)`);
  if (typeof native !== "string" && !nativePlaneKernel) {
    const saved = (calls * (stageNs - native.avx2NsPerCall)) / 1e6;
    console.log(`a kernel at the native AVX2 speed would take PatchMatch from ${patchMatchMs.toFixed(0)} to ${(patchMatchMs - saved).toFixed(0)} ms (${((100 * saved) / patchMatchMs).toFixed(0)} % less)`);
  }
  await runRasterKernel(ROUNDS);
  runHammingKernel(ROUNDS);
}

function describe(d: { max: number; disagree: number }): string {
  return `max |Δ| ${d.max.toExponential(1)}${d.disagree > 0 ? `, ${d.disagree} calls on opposite sides of the border test` : ""}`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  run(process.argv.slice(2)).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
