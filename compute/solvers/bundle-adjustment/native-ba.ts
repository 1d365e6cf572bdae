/**
 * @module Bundle adjustment's passes over observations and points in a Node-API addon
 * (./native/ba.c, built at `npm ci` by scripts/build-native.mjs where a C compiler is):
 * linearize.ts and schur.ts call it where it loads, and it gives the TypeScript's normal
 * equations and reduced system to the bit (docs/decisions.md, "Bundle adjustment's passes run
 * native").
 */
import { optionalAddon } from "../../util/native-addon.js";

export interface BundleAddon {
  /** schur.ts eliminatePointsDense over points [p0, p1); the arguments are its arrays, flattened (ba.c says which). */
  eliminatePointsDense(
    pointFree: Uint8Array, pointObsStart: Uint32Array, pointObs: Uint32Array, obsCamera: Uint32Array,
    poseBase: Int32Array, intrBase: Int32Array, intrinsicsGroup: Uint32Array,
    w: Float64Array, v: Float64Array, gP: Float64Array, diagP: Float64Array, vinv: Float64Array, s: Float64Array, b: Float64Array,
    entryOfBase: Int32Array, entryBase: Int32Array, entrySize: Int32Array, entryW: Float64Array, entryT: Float64Array,
    mu: number, n: number, ni: number, p0: number, p1: number,
  ): boolean;
  /**
   * linearize.ts's observation loop without ρ, over points [from, to) (byPoints) or observations
   * [from, to); Σ‖r‖², and each observation's whitened squared norm in `normal`'s last array.
   */
  linearize(
    problem: [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array | null, Uint32Array, Uint32Array, Uint32Array],
    layout: [Uint8Array, Uint32Array, Uint32Array, Int32Array, Int32Array, Int32Array],
    normal: [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array],
    ni: number, loss: number, scale: number, byPoints: boolean, from: number, to: number,
  ): number;
}

/** The addon, or null where it was not built or does not load (`BA_NATIVE=0` turns it off, to compare). */
export const nativeBundle = optionalAddon<BundleAddon>(import.meta.url, "./native/build/ba.node", "BA_NATIVE");
