/**
 * @module The dense stage's native plane cost (./native/plane-cost.c): loading the addon, and
 * binding it to the wasm kernel's memory on this thread. kernel.ts calls it from its planeCost
 * where it loads; the addon gives the wasm kernel's bits with AVX-512 or AVX2 (docs/decisions.md,
 * "The plane cost runs native where the CPU has AVX-512", "The plane cost runs native with AVX2
 * too").
 */
import { createRequire } from "node:module";

/** The width the addon's plane cost runs at. */
export type NativeIsa = "avx512" | "avx2";

/**
 * The addon: planeCost, layQuads and the planes' updates (./native-planes.ts) on a CPU with
 * AVX-512F and DQ or with AVX2 (isa() says which, useIsa() narrows it on this thread);
 * buildWindow (./native-window.ts) with AVX-512 VL or AVX2.
 */
export interface NativePlaneCost {
  bind(memory: ArrayBufferLike, params: number): void;
  isa?: () => NativeIsa;
  useIsa?: (isa: NativeIsa) => boolean;
  planeCost?: () => void;
  layQuads?: () => void;
  buildWindow?: () => void;
  bindPlanes?: (depth: Float32Array, normal: Float32Array, photo: Float32Array, cost: Float32Array, changedIn: Int32Array, sourcesAt: Uint8Array | null, geometry: Float64Array, sizes: Int32Array) => void;
  propagatePlanes?: () => void;
  tryPlanes?: () => void;
  planesEvaluated?: () => number;
}

/**
 * Bytes of a call's parameter block in the wasm memory: planeCost's f64 px, py, m0, m1, m2,
 * result, then i32 table, sources, win, n, bestK, scratch; from NATIVE_WINDOW_BLOCK buildWindow's
 * (./native-window.ts); from NATIVE_QUADS_BLOCK layQuads' i32 grey, quads, width, height; from
 * NATIVE_PLANES_BLOCK the planes' i32 col, row, count, since, sweep (and 3 unused), then f64 d, nx,
 * ny, nz of up to 4 hypotheses (./native-planes.ts).
 * Arguments travel through it because a Node-API call with a dozen numbers costs ~110 ns here and
 * one with none ~12 ns.
 */
export const NATIVE_WINDOW_BLOCK = 72;
export const NATIVE_QUADS_BLOCK = NATIVE_WINDOW_BLOCK + 2 * 8 + 12 * 4;
export const NATIVE_PLANES_BLOCK = NATIVE_QUADS_BLOCK + 4 * 4;
export const NATIVE_PARAM_BYTES = NATIVE_PLANES_BLOCK + 8 * 4 + 16 * 8;

let addon: NativePlaneCost | null | undefined;

function loadAddon(): NativePlaneCost | null {
  if (addon === undefined) {
    try {
      addon = createRequire(import.meta.url)("./native/build/plane-cost.node") as NativePlaneCost;
    } catch {
      addon = null;
    }
  }
  return addon;
}

/** The native plane cost, or null where it was not built (scripts/build-native.mjs), does not load, or the CPU has neither AVX-512 nor AVX2. */
export function nativePlaneCost(): Required<Pick<NativePlaneCost, "bind" | "planeCost" | "layQuads" | "isa">> | null {
  const loaded = loadAddon();
  return loaded?.planeCost && loaded.layQuads && loaded.isa ? (loaded as Required<NativePlaneCost>) : null;
}

/**
 * Runs the plane cost, the planes' updates and the window at `isa` on this thread from now on
 * (for kernels and levels made after the call); false where the addon is absent or the CPU lacks
 * it. The
 * stage never calls it: the addon picks the widest the CPU has. Tests and the kernels bench do,
 * to hold the AVX2 path to the wasm kernel's bits on an AVX-512 machine.
 */
export function useNativeIsa(isa: NativeIsa): boolean {
  return loadAddon()?.useIsa?.(isa) ?? false;
}

/** The native planes' updates, or null where the addon was not built, does not load, or the CPU has neither AVX-512 nor AVX2. */
export function nativePlaneUpdates(): Required<Pick<NativePlaneCost, "bind" | "bindPlanes" | "propagatePlanes" | "tryPlanes" | "planesEvaluated">> | null {
  const loaded = loadAddon();
  return loaded?.planeCost && loaded.bindPlanes && loaded.propagatePlanes && loaded.tryPlanes && loaded.planesEvaluated ? (loaded as Required<NativePlaneCost>) : null;
}

/** The native window building, or null where the addon was not built or does not load. */
export function nativeWindowBuilder(): Required<Pick<NativePlaneCost, "bind" | "buildWindow">> | null {
  const loaded = loadAddon();
  return loaded?.buildWindow ? (loaded as Required<NativePlaneCost>) : null;
}

/** The buffer and parameter block the addon reads on this thread: one binding per thread, as in the addon. */
let boundBuffer: ArrayBufferLike | null = null;
let boundParams = -1;

/** Points the addon at `buffer` and its block at `params`, unless it reads them already. */
export function bindNative(native: Pick<NativePlaneCost, "bind">, buffer: ArrayBufferLike, params: number): void {
  if (boundBuffer === buffer && boundParams === params) return;
  native.bind(buffer, params);
  boundBuffer = buffer;
  boundParams = params;
}
