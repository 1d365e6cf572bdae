/**
 * @module Bundle adjustment's point elimination in a Node-API addon (./native/schur.c, built at
 * `npm ci` by scripts/build-native.mjs where a C compiler is): schur.ts eliminatePointsDense calls
 * it where it loads, and it gives the TypeScript's reduced system to the bit (docs/decisions.md,
 * "The points are eliminated native").
 */
import { createRequire } from "node:module";

interface SchurAddon {
  /** schur.ts eliminatePointsDense over points [p0, p1); the arguments are its arrays, flattened (schur.c says which). */
  eliminatePointsDense(
    pointFree: Uint8Array, pointObsStart: Uint32Array, pointObs: Uint32Array, obsCamera: Uint32Array,
    poseBase: Int32Array, intrBase: Int32Array, intrinsicsGroup: Uint32Array,
    w: Float64Array, v: Float64Array, gP: Float64Array, diagP: Float64Array, vinv: Float64Array, s: Float64Array, b: Float64Array,
    entryOfBase: Int32Array, entryBase: Int32Array, entrySize: Int32Array, entryW: Float64Array, entryT: Float64Array,
    mu: number, n: number, ni: number, p0: number, p1: number,
  ): boolean;
}

let addon: SchurAddon | null | undefined;

/** The addon, or null where it was not built or does not load (`BA_NATIVE=0` turns it off, to compare). */
export function nativeSchur(): SchurAddon | null {
  if (addon === undefined) {
    try {
      addon = process.env.BA_NATIVE === "0" ? null : (createRequire(import.meta.url)("./native/build/schur.node") as SchurAddon);
    } catch {
      addon = null;
    }
  }
  return addon;
}
