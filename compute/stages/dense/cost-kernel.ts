/**
 * @module The photometric cost kernel's interface and its plain TypeScript reference: 1 −
 * bilaterally weighted NCC of a reference window against its plane-induced warp into one source
 * image (Schönberger et al., ECCV 2016, §4.1; Galliani et al., ICCV 2015). kernel.ts holds the
 * WebAssembly kernel (and its native addon) behind the same interface, and re-exports this module.
 */
import type { NativePlanes, PlanesLevel } from "./native-planes.js";
import type { NativeWindows, NativeWindowShape } from "./native-window.js";

/** Cost of an invalid hypothesis (window leaves the source image, plane behind the camera, no texture). */
export const MAX_COST = 2;
const MIN_VARIANCE = 1e-5;
/** MIN_VARIANCE as wasm/ncc.ts holds it. */
export const MIN_VARIANCE_F32 = Math.fround(MIN_VARIANCE);

/**
 * The window: per sample its offset (dx, dy) in pixels from the reference pixel centre, the
 * reference grey value and the bilateral weight. Length a multiple of 4 (padding has weight 0).
 */
export interface CostWindow {
  dx: Float32Array;
  dy: Float32Array;
  ref: Float32Array;
  weight: Float32Array;
}

export interface CostKernel {
  /** "native-avx512", "native-avx2": the wasm kernel, its planeCost in the native addon at that width. */
  readonly name: "wasm-simd" | "native-avx512" | "native-avx2" | "typescript";
  /** Register source image `slot` (grey, row-major). */
  setSource(slot: number, grey: Float32Array, width: number, height: number): void;
  /** Offsets are fixed per run; ref values and weights change per reference pixel. */
  setWindow(window: CostWindow): void;
  /**
   * The kernel's own window, to fill in place instead of copying one in with setWindow (the
   * wasm kernel's arrays live in its memory); windowReady then says it holds a new window.
   */
  windowArrays(): CostWindow;
  /**
   * The window from windowArrays() is filled: its statistics (as windowStatistics gives them) and
   * its samples' bounding box, computed by the caller as it filled it. Plain numbers: this runs
   * once per pixel visit.
   */
  windowReady(invWeight: number, mean: number, variance: number, minDx: number, maxDx: number, minDy: number, maxDy: number): void;
  /** Cost against source `slot` of the window centred at (px, py) warped by the 3×3 row-major homography H. */
  cost(slot: number, px: number, py: number, H: Float64Array): number;
  /** Source `slot`'s fixed homography parts: A = K_s·R·K_r⁻¹ (9, row-major), then b = K_s·t (3). */
  setPlaneParts(slot: number, parts: Float64Array): void;
  /**
   * A plane hypothesis's cost over sources 0..sources−1: the mean of the bestK lowest source costs
   * (Gipuma §3.1), source j warped by H = A_j + b_j·mᵀ with m = nᵀ·K_r⁻¹/ρ, formed in float64: the
   * same bits as calling cost() per source with that H.
   */
  planeCost(px: number, py: number, m0: number, m1: number, m2: number, bestK: number, sources: number): number;
  /**
   * Whether the current window is too flat to score: its weighted variance under the kernel's
   * floor, so that cost() and planeCost() give MAX_COST for any plane and source.
   */
  windowIsFlat(): boolean;
  /**
   * The reference window built in the native addon (./native-window.ts) for the reference image
   * and window shapes given, or null where the addon is not loaded: the caller builds windows.
   */
  nativeWindows?(image: { grey: Float32Array; width: number; height: number }, colourScale: number, shapes: readonly NativeWindowShape[]): NativeWindows | null;
  /**
   * A level's plane updates in the native addon (./native-planes.ts), scored on this kernel's
   * sources and window as they are when it is called, or null where the addon is not loaded.
   */
  nativePlanes?(level: PlanesLevel): NativePlanes | null;
}

/** 1/Σw, the weighted mean and the weighted variance of the reference window's grey values. */
export type WindowStatistics = [number, number, number];
/** Min dx, max dx, min dy, max dy over the window's samples. */
export type SampleBox = [number, number, number, number];

/** Most sources a wasm kernel takes (its table is laid out before the images). */
export const MAX_SOURCES = 32;

/** Mean of the k lowest of the first `length` values (reorders them): selection in the order wasm/ncc.ts planeCost repeats. */
export function meanOfBest(values: Float64Array, k: number, length = values.length): number {
  const count = Math.min(k, length);
  if (count <= 0) return MAX_COST;
  let sum = 0;
  for (let i = 0; i < count; i++) {
    let best = i;
    for (let j = i + 1; j < length; j++) if (values[j] < values[best]) best = j;
    const v = values[best];
    values[best] = values[i];
    values[i] = v;
    sum += v;
  }
  return sum / count;
}

/** H = A + b·mᵀ of source slot `j` into `H` (float64, the order of wasm/ncc.ts planeCost). */
export function planeHomography(parts: Float64Array, j: number, m0: number, m1: number, m2: number, H: Float64Array): void {
  const o = 12 * j;
  for (let r = 0; r < 3; r++) {
    const b = parts[o + 9 + r];
    H[3 * r] = parts[o + 3 * r] + b * m0;
    H[3 * r + 1] = parts[o + 3 * r + 1] + b * m1;
    H[3 * r + 2] = parts[o + 3 * r + 2] + b * m2;
  }
}

/** Plain TypeScript reference of wasm/ncc.ts, in float64 (the wasm build takes the window's own sums from the host, windowStatistics). */
export function nccCostReference(src: Float32Array, width: number, height: number, win: CostWindow, px: number, py: number, H: ArrayLike<number>): number {
  const { dx, dy, ref, weight } = win;
  let sw = 0;
  let sr = 0;
  let ss = 0;
  let srr = 0;
  let sss = 0;
  let srs = 0;
  for (let i = 0; i < dx.length; i++) {
    const u = px + dx[i];
    const v = py + dy[i];
    const hz = H[6] * u + H[7] * v + H[8];
    if (!(hz > 1e-8)) return MAX_COST;
    const sx = (H[0] * u + H[1] * v + H[2]) / hz - 0.5;
    const sy = (H[3] * u + H[4] * v + H[5]) / hz - 0.5;
    if (!(sx >= 0 && sy >= 0 && sx < width - 1 && sy < height - 1)) return MAX_COST;
    const ix = Math.floor(sx);
    const iy = Math.floor(sy);
    const fx = sx - ix;
    const fy = sy - iy;
    const p = iy * width + ix;
    const top = src[p] + fx * (src[p + 1] - src[p]);
    const bottom = src[p + width] + fx * (src[p + width + 1] - src[p + width]);
    const val = top + fy * (bottom - top);
    const w = weight[i];
    const r = ref[i];
    sw += w;
    sr += w * r;
    ss += w * val;
    srr += w * r * r;
    sss += w * val * val;
    srs += w * r * val;
  }
  const inv = 1 / sw;
  const meanR = sr * inv;
  const meanS = ss * inv;
  const varR = srr * inv - meanR * meanR;
  const varS = sss * inv - meanS * meanS;
  if (varR < MIN_VARIANCE || varS < MIN_VARIANCE) return MAX_COST;
  const ncc = (srs * inv - meanR * meanS) / Math.sqrt(varR * varS);
  return 1 - Math.max(-1, Math.min(1, ncc));
}

/** The cost kernel in plain TypeScript (float64): the reference the tests hold the wasm kernel and the addon to, and the fallback where wasm cannot load. */
export class TypeScriptKernel implements CostKernel {
  readonly name = "typescript" as const;
  private readonly sources: Array<{ grey: Float32Array; width: number; height: number }> = [];
  private window: CostWindow;
  /** Per source: A (9) and b (3) of planeCost; scratch H and per-source costs. */
  private parts = new Float64Array(0);
  private readonly H = new Float64Array(9);
  private costs = new Float64Array(0);
  private flat = false;

  constructor(windowLength: number) {
    this.window = { dx: new Float32Array(windowLength), dy: new Float32Array(windowLength), ref: new Float32Array(windowLength), weight: new Float32Array(windowLength) };
  }

  setPlaneParts(slot: number, parts: Float64Array): void {
    if (this.parts.length < 12 * (slot + 1)) {
      const grown = new Float64Array(12 * (slot + 1));
      grown.set(this.parts);
      this.parts = grown;
      this.costs = new Float64Array(slot + 1);
    }
    this.parts.set(parts.subarray(0, 12), 12 * slot);
  }

  planeCost(px: number, py: number, m0: number, m1: number, m2: number, bestK: number, sources: number): number {
    const { costs, H } = this;
    const n = Math.min(sources, costs.length);
    for (let j = 0; j < n; j++) {
      planeHomography(this.parts, j, m0, m1, m2, H);
      costs[j] = this.cost(j, px, py, H);
    }
    return meanOfBest(costs, bestK, n);
  }

  setSource(slot: number, grey: Float32Array, width: number, height: number): void {
    this.sources[slot] = { grey, width, height };
  }

  setWindow(window: CostWindow): void {
    this.window = window;
    this.flat = windowStatistics(window)[2] < MIN_VARIANCE;
  }

  windowArrays(): CostWindow {
    return this.window;
  }

  windowReady(_invWeight: number, _mean: number, variance: number): void {
    // The variance nccCostReference computes from the same samples in the same order.
    this.flat = variance < MIN_VARIANCE;
  }

  windowIsFlat(): boolean {
    return this.flat;
  }

  cost(slot: number, px: number, py: number, H: Float64Array): number {
    const s = this.sources[slot];
    return nccCostReference(s.grey, s.width, s.height, this.window, px, py, H);
  }
}

/** 1/Σw, the weighted mean and the weighted variance of the reference window (read by wasm/ncc.ts). */
export function windowStatistics(window: CostWindow): WindowStatistics {
  let sw = 0;
  let sr = 0;
  let srr = 0;
  for (let i = 0; i < window.ref.length; i++) {
    const w = window.weight[i];
    const r = window.ref[i];
    sw += w;
    sr += w * r;
    srr += w * r * r;
  }
  const inv = 1 / sw;
  const mean = sr * inv;
  return [inv, mean, srr * inv - mean * mean];
}
