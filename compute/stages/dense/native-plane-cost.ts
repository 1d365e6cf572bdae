/**
 * @module The dense stage's native plane cost (./native/plane-cost.c): loading the addon, and
 * binding it to the wasm kernel's memory on this thread. kernel.ts calls it from its planeCost
 * where it loads; the addon gives the wasm kernel's bits (docs/decisions.md, "The plane cost runs
 * native where the CPU has AVX-512").
 */
import { createRequire } from "node:module";

/** The addon: planeCost only on a CPU with AVX-512F and DQ. */
export interface NativePlaneCost {
  bind(memory: ArrayBufferLike, params: number): void;
  planeCost?: () => void;
}

/**
 * Bytes of a call's parameter block in the wasm memory: f64 px, py, m0, m1, m2, result; then i32
 * table, sources, win, n, bestK, scratch. Arguments travel through it because a Node-API call
 * with a dozen numbers costs ~110 ns here and one with none ~12 ns.
 */
export const NATIVE_PARAM_BYTES = 6 * 8 + 6 * 4;

let addon: NativePlaneCost | null | undefined;

/** The native plane cost, or null where it was not built (scripts/build-native.mjs), does not load, or the CPU lacks AVX-512. */
export function nativePlaneCost(): Required<NativePlaneCost> | null {
  if (addon === undefined) {
    try {
      addon = createRequire(import.meta.url)("./native/build/plane-cost.node") as NativePlaneCost;
    } catch {
      addon = null;
    }
  }
  return addon?.planeCost ? (addon as Required<NativePlaneCost>) : null;
}

/** The buffer and parameter block the addon reads on this thread: one binding per thread, as in the addon. */
let boundBuffer: ArrayBufferLike | null = null;
let boundParams = -1;

/** Points the addon at `buffer` and its block at `params`, unless it reads them already. */
export function bindNative(native: Required<NativePlaneCost>, buffer: ArrayBufferLike, params: number): void {
  if (boundBuffer === buffer && boundParams === params) return;
  native.bind(buffer, params);
  boundBuffer = buffer;
  boundParams = params;
}
