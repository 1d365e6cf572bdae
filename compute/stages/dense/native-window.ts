/**
 * @module PatchMatch's reference window built in the dense addon (./native/bilateral-window.h),
 * to the bits of patchmatch-state.ts buildWindow: the grey values under the samples, their
 * bilateral weights and the statistics, written straight into the wasm kernel's window. Only
 * windows clear of the image border; a window with a weight only Math.exp can decide (about 1
 * sample in 2,000 lies next to a float32 halfway point) is left to the TypeScript, which builds
 * it as before. The window's building was a tenth of PatchMatch in a CPU profile (`npm run bench
 * -- kernels`); docs/decisions.md, "The reference window is built native".
 */
import { EXP_TABLE } from "./bilateral-weight.js";
import { bindNative, NATIVE_WINDOW_BLOCK, type NativePlaneCost } from "./native-plane-cost.js";

/** A window shape as PatchMatch keeps it: each sample's spatial weight; the offsets are the window's own dx, dy. */
export interface NativeWindowShape {
  spatialWeight: Float32Array;
  sampleCount: number;
  reach: number;
}

/** Where the kernel placed what the addon reads, as byte addresses in its memory. */
export interface NativeWindowLayout {
  params: number;
  window: number;
  windowLength: number;
}

/** Copies `data` into the kernel's memory and returns its byte address (kernel.ts). */
export type PlaceInMemory = (data: Float32Array | Float64Array) => number;

/** status written by the addon (bilateral-window.h). */
const FLAT = 1;
const TYPESCRIPT = 2;

export class NativeWindows {
  /** Whether the last window built is too flat to score (its float32 variance under the kernel's floor). */
  flat = false;
  private views: { buffer: ArrayBufferLike; f64: Float64Array; i32: Int32Array } | null = null;
  private readonly shapes: Array<{ spatial: number; sampleCount: number; reach: number }>;
  private readonly grey: number;
  private readonly table: number;

  constructor(
    private readonly memory: WebAssembly.Memory,
    private readonly addon: Required<Pick<NativePlaneCost, "bind" | "buildWindow">>,
    private readonly layout: NativeWindowLayout,
    private readonly image: { grey: Float32Array; width: number; height: number },
    private readonly colourScale: number,
    shapes: readonly NativeWindowShape[],
    place: PlaceInMemory,
  ) {
    this.grey = place(image.grey);
    this.table = place(EXP_TABLE);
    this.shapes = shapes.map((s) => ({ spatial: place(s.spatialWeight), sampleCount: s.sampleCount, reach: s.reach }));
  }

  /** The memory grew: its old buffer's views are gone. */
  invalidate(): void {
    this.views = null;
  }

  /**
   * Builds the window of `shapes[shape]` at (col, row), clear of the border, whose offsets the
   * caller has written into the window's dx, dy. Returns its float64 variance (and sets `flat`), or
   * NaN when the caller must build it itself.
   */
  build(shape: number, col: number, row: number): number {
    let views = this.views;
    if (views === null) {
      const buffer = this.memory.buffer;
      const at = this.layout.params + NATIVE_WINDOW_BLOCK;
      views = { buffer, f64: new Float64Array(buffer, at, 2), i32: new Int32Array(buffer, at + 16, 12) };
      this.views = views;
    }
    bindNative(this.addon, views.buffer, this.layout.params);
    const { f64, i32 } = views;
    const s = this.shapes[shape];
    f64[0] = this.colourScale;
    i32[0] = col;
    i32[1] = row;
    i32[2] = this.grey;
    i32[3] = this.image.width;
    i32[4] = this.image.height;
    i32[5] = s.spatial;
    i32[6] = s.sampleCount;
    i32[7] = this.layout.window;
    i32[8] = this.layout.windowLength;
    i32[9] = this.table;
    i32[10] = s.reach;
    this.addon.buildWindow();
    const status = i32[11];
    if (status === TYPESCRIPT) return NaN;
    this.flat = status === FLAT;
    return f64[1];
  }
}
