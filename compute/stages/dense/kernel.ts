/**
 * @module The photometric cost kernel: 1 − bilaterally weighted NCC of a reference window
 * against its plane-induced warp into one source image (Schönberger et al., ECCV 2016, §4.1;
 * Galliani et al., ICCV 2015). Two implementations behind one interface: the WebAssembly SIMD
 * build of ./wasm/ncc.ts (default) and the plain TypeScript reference below, which the
 * tests compare against it.
 */
import { readFileSync } from "node:fs";

/** Cost of an invalid hypothesis (window leaves the source image, plane behind the camera, no texture). */
export const MAX_COST = 2;
const MIN_VARIANCE = 1e-5;

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
  readonly name: "wasm-simd" | "typescript";
  /** Register source image `slot` (grey, row-major). */
  setSource(slot: number, grey: Float32Array, width: number, height: number): void;
  /** Offsets are fixed per run; ref values and weights change per reference pixel. */
  setWindow(window: CostWindow): void;
  /** Cost against source `slot` of the window centred at (px, py) warped by the 3×3 row-major homography H. */
  cost(slot: number, px: number, py: number, H: Float64Array): number;
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

class TypeScriptKernel implements CostKernel {
  readonly name = "typescript" as const;
  private readonly sources: Array<{ grey: Float32Array; width: number; height: number }> = [];
  private window: CostWindow | undefined;

  setSource(slot: number, grey: Float32Array, width: number, height: number): void {
    this.sources[slot] = { grey, width, height };
  }

  setWindow(window: CostWindow): void {
    this.window = window;
  }

  cost(slot: number, px: number, py: number, H: Float64Array): number {
    const s = this.sources[slot];
    return nccCostReference(s.grey, s.width, s.height, this.window!, px, py, H);
  }
}

type NccExport = (src: number, width: number, height: number, win: number, n: number, px: number, py: number, ...h: number[]) => number;

const PAGE = 65536;

/**
 * The wasm kernel owns one linear memory: page 0 holds the module's own static data, the window
 * scratch follows at byte 65536, then the source images, each 16-byte aligned.
 */
class WasmKernel implements CostKernel {
  readonly name = "wasm-simd" as const;
  private readonly slots: Array<{ ptr: number; width: number; height: number }> = [];
  private windowPtr = PAGE;
  private windowLength = 0;
  private nextFree = PAGE;

  constructor(
    private readonly memory: WebAssembly.Memory,
    private readonly ncc: NccExport,
  ) {}

  /** Reserve the window scratch; call before setSource so the layout is fixed. */
  reserveWindow(length: number): void {
    this.windowPtr = PAGE;
    this.windowLength = length;
    // dx, dy, ref, weight (4 floats per sample), then the 3 window statistics.
    this.nextFree = align16(PAGE + 16 * length + 16);
    this.slots.length = 0;
  }

  setSource(slot: number, grey: Float32Array, width: number, height: number): void {
    const ptr = this.nextFree;
    this.nextFree = align16(ptr + 4 * grey.length);
    this.ensure(this.nextFree);
    new Float32Array(this.memory.buffer, ptr, grey.length).set(grey);
    this.slots[slot] = { ptr, width, height };
  }

  setWindow(window: CostWindow): void {
    const n = window.dx.length;
    if (n !== this.windowLength) this.reserveWindowChecked(n);
    const view = new Float32Array(this.memory.buffer, this.windowPtr, 4 * n);
    view.set(window.dx, 0);
    view.set(window.dy, n);
    view.set(window.ref, 2 * n);
    view.set(window.weight, 3 * n);
    new Float32Array(this.memory.buffer, this.windowPtr + 16 * n, 3).set(windowStatistics(window));
  }

  cost(slot: number, px: number, py: number, H: Float64Array): number {
    const s = this.slots[slot];
    return this.ncc(s.ptr, s.width, s.height, this.windowPtr, this.windowLength, px, py, H[0], H[1], H[2], H[3], H[4], H[5], H[6], H[7], H[8]);
  }

  private reserveWindowChecked(n: number): void {
    if (this.slots.length > 0) throw new Error("dense: window size changed after sources were loaded");
    this.reserveWindow(n);
  }

  private ensure(bytes: number): void {
    const have = this.memory.buffer.byteLength;
    if (bytes > have) this.memory.grow(Math.ceil((bytes - have) / PAGE));
  }
}

/** 1/Σw, the weighted mean and the weighted variance of the reference window (read by wasm/ncc.ts). */
function windowStatistics(window: CostWindow): [number, number, number] {
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

function align16(n: number): number {
  return (n + 15) & ~15;
}

const WASM_URL = new URL("./wasm/ncc.wasm", import.meta.url);

/** The wasm SIMD kernel for a window of `windowLength` samples, or undefined when it cannot load. */
export function loadWasmKernel(windowLength: number): CostKernel | undefined {
  try {
    const module = new WebAssembly.Module(readFileSync(WASM_URL));
    const instance = new WebAssembly.Instance(module, {});
    const memory = instance.exports.memory as WebAssembly.Memory;
    const kernel = new WasmKernel(memory, instance.exports.nccCost as NccExport);
    kernel.reserveWindow(windowLength);
    return kernel;
  } catch {
    return undefined;
  }
}

export function createKernel(kind: "wasm" | "typescript", windowLength: number): CostKernel {
  if (kind === "wasm") {
    const wasm = loadWasmKernel(windowLength);
    if (wasm) return wasm;
  }
  return new TypeScriptKernel();
}
