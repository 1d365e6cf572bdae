/**
 * @module PatchMatch's plane updates at a pixel in the dense addon (./native/planes.h), to the bits
 * of patchmatch-state.ts propagate and tryHypothesis: one call propagates a pixel's neighbours'
 * planes, or tries its refinement's hypotheses, where the TypeScript made one call into the addon
 * per hypothesis. A pixel with a prior triangle stays in TypeScript (its share needs Math.exp's
 * bits), and so does every pixel where the addon is absent or the CPU has neither AVX-512 nor AVX2.
 */
import { bindNative, nativePlaneUpdates, NATIVE_PLANES_BLOCK } from "./native-plane-cost.js";

/** One PatchMatch level's planes and the camera they are measured in (patchmatch-state.ts). */
export interface PlanesLevel {
  depth: Float32Array;
  normal: Float32Array;
  photo: Float32Array;
  cost: Float32Array;
  changedIn: Int32Array;
  /** Per pixel, how many of the leading sources its cost takes; null: `sources` everywhere. */
  sourcesAt: Uint8Array | null;
  width: number;
  height: number;
  margin: number;
  sources: number;
  bestK: number;
  focal: number;
  cx: number;
  cy: number;
  depthMin: number;
  depthMax: number;
}

/** Where the wasm kernel keeps what scoring reads, as byte addresses in its memory (kernel.ts). */
export interface PlanesKernelLayout {
  params: number;
  table: number;
  window: number;
  windowLength: number;
  scratch: number;
  planeSources: number;
}

type PlaneUpdates = NonNullable<ReturnType<typeof nativePlaneUpdates>>;

/** The level the addon's planes are bound to on this thread (one binding per thread, as in the addon). */
let boundLevel: NativePlanes | null = null;

export class NativePlanes {
  private views: { buffer: ArrayBufferLike; i32: Int32Array; f64: Float64Array } | null = null;
  /** Hypotheses scored while another level was bound. */
  private evaluatedBefore = 0;
  private readonly geometry: Float64Array;
  private readonly sizes: Int32Array;

  constructor(
    private readonly memory: WebAssembly.Memory,
    private readonly addon: PlaneUpdates,
    private readonly layout: PlanesKernelLayout,
    private readonly level: PlanesLevel,
  ) {
    this.geometry = Float64Array.of(level.focal, level.cx, level.cy, level.depthMin, level.depthMax);
    this.sizes = Int32Array.of(level.width, level.height, level.margin, level.sources, layout.planeSources, level.bestK, layout.table, layout.window, layout.windowLength, layout.scratch);
  }

  /** Where the caller writes tryPlanes' hypotheses (d, nx, ny, nz; up to 4), just before it calls it. */
  hypotheses(): Float64Array {
    return (this.views ?? this.block()).f64;
  }

  /** The memory grew: its old buffer's views are gone. */
  invalidate(): void {
    this.views = null;
  }

  /** patchmatch-state.ts propagate at (col, row), on a window that is not flat. */
  propagate(col: number, row: number, count: number, since: number, sweep: number): void {
    const i32 = this.ready();
    i32[0] = col;
    i32[1] = row;
    i32[2] = count;
    i32[3] = since;
    i32[4] = sweep;
    this.addon.propagatePlanes();
  }

  /** The first `count` of `hypotheses` tried in turn at (col, row), on a window that is not flat. */
  tryPlanes(col: number, row: number, count: number, sweep: number): void {
    const i32 = this.ready();
    i32[0] = col;
    i32[1] = row;
    i32[2] = count;
    i32[4] = sweep;
    this.addon.tryPlanes();
  }

  /** Hypotheses scored here so far. */
  evaluated(): number {
    return this.evaluatedBefore + (boundLevel === this ? this.addon.planesEvaluated() : 0);
  }

  /** The level is done: the addon lets go of its planes. */
  release(): void {
    if (boundLevel !== this) return;
    this.evaluatedBefore += this.addon.planesEvaluated();
    boundLevel = null;
  }

  /** The block's integers, with the memory and this level bound. */
  private ready(): Int32Array {
    const { buffer, i32 } = this.views ?? this.block();
    bindNative(this.addon, buffer, this.layout.params);
    if (boundLevel !== this) {
      boundLevel?.release();
      const { depth, normal, photo, cost, changedIn, sourcesAt } = this.level;
      this.addon.bindPlanes(depth, normal, photo, cost, changedIn, sourcesAt, this.geometry, this.sizes);
      boundLevel = this;
    }
    return i32;
  }

  private block(): { buffer: ArrayBufferLike; i32: Int32Array; f64: Float64Array } {
    const buffer = this.memory.buffer;
    const at = this.layout.params + NATIVE_PLANES_BLOCK;
    const views = { buffer, i32: new Int32Array(buffer, at, 8), f64: new Float64Array(buffer, at + 32, 16) };
    this.views = views;
    return views;
  }
}

/** The addon's plane updates for `level` on the kernel's memory, or null where they are not built or the CPU has neither AVX-512 nor AVX2. */
export function nativePlanesFor(memory: WebAssembly.Memory, layout: PlanesKernelLayout, level: PlanesLevel): NativePlanes | null {
  const updates = nativePlaneUpdates();
  return updates ? new NativePlanes(memory, updates, layout, level) : null;
}
