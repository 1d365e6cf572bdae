/**
 * @module The photometric cost kernel: 1 − bilaterally weighted NCC of a reference window
 * against its plane-induced warp into one source image (Schönberger et al., ECCV 2016, §4.1;
 * Galliani et al., ICCV 2015). Two implementations behind one interface (./cost-kernel.ts): the
 * WebAssembly SIMD build of ./wasm/ncc.ts (default, here) and the plain TypeScript reference of
 * ./cost-kernel.ts, which the tests compare against it. Where the native addon was built (scripts/build-native.mjs) and the
 * CPU has AVX-512 or AVX2, the wasm kernel's planeCost runs in it instead (./native/plane-cost.c), on the
 * same memory and to the same bits (test/compute/dense/native-plane-cost.test.ts).
 */
import { readFileSync } from "node:fs";
import { bindNative, nativePlaneCost, nativeWindowBuilder, NATIVE_PARAM_BYTES, NATIVE_QUADS_BLOCK, type NativePlaneCost } from "./native-plane-cost.js";
import { nativePlanesFor, type NativePlanes, type PlanesLevel } from "./native-planes.js";
import { NativeWindows, type NativeWindowShape } from "./native-window.js";
import { MAX_SOURCES, MIN_VARIANCE_F32, TypeScriptKernel, windowStatistics, type CostKernel, type CostWindow, type SampleBox } from "./cost-kernel.js";

export { MAX_COST, MAX_SOURCES, meanOfBest, nccCostReference, planeHomography, windowStatistics } from "./cost-kernel.js";
export type { CostKernel, CostWindow, SampleBox, WindowStatistics } from "./cost-kernel.js";

type NccExport = (src: number, width: number, height: number, win: number, n: number, px: number, py: number, ...h: number[]) => number;
type PlaneCostExport = (table: number, sources: number, win: number, n: number, px: number, py: number, m0: number, m1: number, m2: number, bestK: number, scratch: number) => number;

const PAGE = 65536;

/** Bytes of a source's entry in the table wasm/ncc.ts planeCost reads: address, width, height, the addon's quads' address (i32), A and b (12 f64). */
const SOURCE_ENTRY = 112;

/**
 * The wasm kernel owns one linear memory: page 0 holds the module's own static data; from byte
 * 65536 the window scratch, the source table (MAX_SOURCES entries), planeCost's scratch, then the
 * source images, each 16-byte aligned.
 */
class WasmKernel implements CostKernel {
  private readonly slots: Array<{ ptr: number; width: number; height: number }> = [];
  private windowPtr = PAGE;
  private windowLength = 0;
  private tablePtr = PAGE;
  private scratchPtr = PAGE;
  /** The native call's parameter block (NATIVE_PARAM_BYTES), and views of it over the memory's current buffer. */
  private paramsPtr = PAGE;
  private paramViews: { buffer: ArrayBufferLike; f64: Float64Array; i32: Int32Array } | null = null;
  private windows: NativeWindows | null = null;
  private planes: NativePlanes | null = null;
  /** Sources with plane parts set (planeCost uses slots 0..planeSources−1). */
  private planeSources = 0;
  private nextFree = PAGE;
  /** The window's arrays and its statistics-and-box tail as views over the memory's current buffer. */
  private windowViews: { buffer: ArrayBufferLike; window: CostWindow; tail: Float32Array } | null = null;

  constructor(
    private readonly memory: WebAssembly.Memory,
    private readonly ncc: NccExport,
    private readonly plane: PlaneCostExport,
    private readonly native: Required<Pick<NativePlaneCost, "bind" | "planeCost" | "layQuads" | "isa">> | null,
    private readonly windowAddon: Required<Pick<NativePlaneCost, "bind" | "buildWindow">> | null = null,
  ) {}

  /** The addon's width is this thread's (useNativeIsa), read when asked. */
  get name(): "wasm-simd" | "native-avx512" | "native-avx2" {
    return this.native ? `native-${this.native.isa()}` : "wasm-simd";
  }

  /** Reserve the window scratch and the source table; call before setSource so the layout is fixed. */
  reserveWindow(length: number): void {
    this.windowPtr = PAGE;
    this.windowLength = length;
    // dx, dy, ref, weight (4 floats per sample), then the 3 window statistics and the 4 bounds of the box.
    this.tablePtr = align16(PAGE + 16 * length + 28);
    this.scratchPtr = this.tablePtr + SOURCE_ENTRY * MAX_SOURCES;
    this.paramsPtr = align16(this.scratchPtr + 8 * MAX_SOURCES);
    this.nextFree = align16(this.paramsPtr + NATIVE_PARAM_BYTES);
    this.ensure(this.nextFree);
    // A reused kernel's memory holds what its last user left: the window's padding must read as
    // samples at the centre with weight 0.
    new Uint8Array(this.memory.buffer, this.windowPtr, this.tablePtr - this.windowPtr).fill(0);
    this.slots.length = 0;
    this.planeSources = 0;
    this.windows = null;
    this.planes?.release();
    this.planes = null;
    this.windowViews = null;
    this.paramViews = null;
  }

  setSource(slot: number, grey: Float32Array, width: number, height: number): void {
    if (slot >= MAX_SOURCES) throw new Error(`dense: at most ${MAX_SOURCES} source views per reference view`);
    const ptr = this.nextFree;
    this.nextFree = align16(ptr + 4 * grey.length);
    this.ensure(this.nextFree);
    new Float32Array(this.memory.buffer, ptr, grey.length).set(grey);
    this.slots[slot] = { ptr, width, height };
    // The AVX2 cost reads the image itself; only the AVX-512 one reads quads (./native/plane-cost.h).
    const quads = this.native?.isa() === "avx512" ? this.placeQuads(ptr, width, height) : 0;
    new Int32Array(this.memory.buffer, this.tablePtr + SOURCE_ENTRY * slot, 4).set([ptr, width, height, quads]);
  }

  /**
   * The source at `grey` as the addon's AVX-512 planeCost reads it (./native/plane-cost.h): per
   * pixel its four bilinear corners side by side, laid out by the addon (a loop here took 46 ns a
   * pixel).
   */
  private placeQuads(grey: number, width: number, height: number): number {
    const ptr = this.nextFree;
    this.nextFree = align16(ptr + 16 * width * height);
    this.ensure(this.nextFree);
    const buffer = this.memory.buffer;
    bindNative(this.native!, buffer, this.paramsPtr);
    new Int32Array(buffer, this.paramsPtr + NATIVE_QUADS_BLOCK, 4).set([grey, ptr, width, height]);
    this.native!.layQuads();
    return ptr;
  }

  setPlaneParts(slot: number, parts: Float64Array): void {
    if (!this.slots[slot]) throw new Error("dense: plane parts of a source that was not set");
    new Float64Array(this.memory.buffer, this.tablePtr + SOURCE_ENTRY * slot + 16, 12).set(parts.subarray(0, 12));
    this.planeSources = Math.max(this.planeSources, slot + 1);
  }

  planeCost(px: number, py: number, m0: number, m1: number, m2: number, bestK: number, sources: number): number {
    const n = Math.min(sources, this.planeSources);
    if (this.native) return this.nativePlaneCost(px, py, m0, m1, m2, bestK, n);
    return this.plane(this.tablePtr, n, this.windowPtr, this.windowLength, px, py, m0, m1, m2, bestK, this.scratchPtr);
  }

  /** planeCost in the addon: the arguments written into the parameter block, the result read from it. */
  private nativePlaneCost(px: number, py: number, m0: number, m1: number, m2: number, bestK: number, sources: number): number {
    // The views are dropped whenever the memory grows (ensure), so the buffer is read only then:
    // the memory's buffer getter was 2 % of PatchMatch when read per call (a CPU profile).
    let views = this.paramViews;
    if (views === null) {
      const buffer = this.memory.buffer;
      views = { buffer, f64: new Float64Array(buffer, this.paramsPtr, 6), i32: new Int32Array(buffer, this.paramsPtr + 48, 6) };
      this.paramViews = views;
    }
    const buffer = views.buffer;
    bindNative(this.native!, buffer, this.paramsPtr);
    const { f64, i32 } = views;
    f64[0] = px;
    f64[1] = py;
    f64[2] = m0;
    f64[3] = m1;
    f64[4] = m2;
    i32[0] = this.tablePtr;
    i32[1] = sources;
    i32[2] = this.windowPtr;
    i32[3] = this.windowLength;
    i32[4] = bestK;
    i32[5] = this.scratchPtr;
    this.native!.planeCost();
    return f64[5];
  }

  nativeWindows(image: { grey: Float32Array; width: number; height: number }, colourScale: number, shapes: readonly NativeWindowShape[]): NativeWindows | null {
    if (!this.windowAddon) return null;
    const place = (data: Float32Array | Float64Array): number => {
      const ptr = this.nextFree;
      this.nextFree = align16(ptr + data.byteLength);
      this.ensure(this.nextFree);
      new Uint8Array(this.memory.buffer, ptr, data.byteLength).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      return ptr;
    };
    const layout = { params: this.paramsPtr, window: this.windowPtr, windowLength: this.windowLength };
    this.windows = new NativeWindows(this.memory, this.windowAddon, layout, image, colourScale, shapes, place);
    return this.windows;
  }

  nativePlanes(level: PlanesLevel): NativePlanes | null {
    if (!this.native) return null;
    this.planes?.release();
    const layout = { params: this.paramsPtr, table: this.tablePtr, window: this.windowPtr, windowLength: this.windowLength, scratch: this.scratchPtr, planeSources: this.planeSources };
    this.planes = nativePlanesFor(this.memory, layout, level);
    return this.planes;
  }

  setWindow(window: CostWindow): void {
    const n = window.dx.length;
    if (n !== this.windowLength) this.reserveWindowChecked(n);
    const own = this.windowArrays();
    own.dx.set(window.dx);
    own.dy.set(window.dy);
    own.ref.set(window.ref);
    own.weight.set(window.weight);
    this.windowReady(...windowStatistics(window), ...sampleBox(window));
  }

  windowArrays(): CostWindow {
    // Views over the memory; growing it (setSource) detaches them, so they are made again then. A
    // detached view has length 0: cheaper to read per window than the memory's buffer getter.
    if (this.windowViews === null || this.windowViews.tail.length === 0) {
      const n = this.windowLength;
      const at = (k: number, length: number) => new Float32Array(this.memory.buffer, this.windowPtr + 4 * k * n, length);
      this.windowViews = { buffer: this.memory.buffer, window: { dx: at(0, n), dy: at(1, n), ref: at(2, n), weight: at(3, n) }, tail: at(4, 7) };
    }
    return this.windowViews.window;
  }

  windowIsFlat(): boolean {
    // The kernel compares the float32 variance it is given with its float32 floor (wasm/ncc.ts).
    this.windowArrays();
    return this.windowViews!.tail[2] < MIN_VARIANCE_F32;
  }

  windowReady(invWeight: number, mean: number, variance: number, minDx: number, maxDx: number, minDy: number, maxDy: number): void {
    this.windowArrays();
    const tail = this.windowViews!.tail;
    tail[0] = invWeight;
    tail[1] = mean;
    tail[2] = variance;
    tail[3] = minDx;
    tail[4] = maxDx;
    tail[5] = minDy;
    tail[6] = maxDy;
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
    if (bytes > have) {
      this.memory.grow(Math.ceil((bytes - have) / PAGE));
      this.paramViews = null;
      this.windows?.invalidate();
      this.planes?.invalidate();
    }
  }
}

/** Min dx, max dx, min dy, max dy over the samples (read by wasm/ncc.ts corners()). */
function sampleBox(window: CostWindow): SampleBox {
  let minDx = Infinity;
  let maxDx = -Infinity;
  let minDy = Infinity;
  let maxDy = -Infinity;
  for (let i = 0; i < window.dx.length; i++) {
    minDx = Math.min(minDx, window.dx[i]);
    maxDx = Math.max(maxDx, window.dx[i]);
    minDy = Math.min(minDy, window.dy[i]);
    maxDy = Math.max(maxDy, window.dy[i]);
  }
  return [minDx, maxDx, minDy, maxDy];
}

function align16(n: number): number {
  return (n + 15) & ~15;
}

const WASM_URL = new URL("./wasm/ncc.wasm", import.meta.url);

/**
 * The wasm SIMD kernel for a window of `windowLength` samples, or undefined when it cannot load;
 * its planeCost native where nativePlaneCost() is, unless `native` is false.
 */
export function loadWasmKernel(windowLength: number, native = true): CostKernel | undefined {
  try {
    const module = new WebAssembly.Module(readFileSync(WASM_URL));
    const instance = new WebAssembly.Instance(module, {});
    const memory = instance.exports.memory as WebAssembly.Memory;
    const kernel = new WasmKernel(memory, instance.exports.nccCost as NccExport, instance.exports.planeCost as PlaneCostExport, native ? nativePlaneCost() : null, native ? nativeWindowBuilder() : null);
    kernel.reserveWindow(windowLength);
    return kernel;
  } catch {
    return undefined;
  }
}

/**
 * A wasm kernel a finished PatchMatch level handed back (releaseKernel), on this thread. The next
 * level reuses its memory, whose pages are mapped already: a fresh memory's first touch costs ~12
 * µs per 4-KiB page on this machine, ~0.15 s for one 800-px view's four sources and their quads.
 */
let spareKernel: WasmKernel | null = null;

export function createKernel(kind: "wasm" | "typescript", windowLength: number): CostKernel {
  if (kind === "wasm") {
    const spare = spareKernel;
    spareKernel = null;
    if (spare) {
      spare.reserveWindow(windowLength);
      return spare;
    }
    const wasm = loadWasmKernel(windowLength);
    if (wasm) return wasm;
  }
  return new TypeScriptKernel(windowLength);
}

/** Hands a kernel from createKernel back for the next one to reuse; the caller must not use it again. */
export function releaseKernel(kernel: CostKernel): void {
  if (kernel instanceof WasmKernel) spareKernel = kernel;
}
