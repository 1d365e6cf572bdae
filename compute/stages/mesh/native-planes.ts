/**
 * @module The mesh stage's plane search in a Node-API addon (./native/planes.c, built at `npm ci`
 * by scripts/build-native.mjs where a C compiler is): planes.ts calls it where it loads, and it
 * gives the TypeScript's planes to the bit (docs/decisions.md, "The plane search runs native").
 */
import { optionalAddon } from "../../util/native-addon.js";

export interface PlanesAddon {
  /** planes.ts bestHypothesis' scoring: the first hypothesis (4 numbers each, a NaN x for none made) with the most inliers, or -1. */
  bestHypothesis(poolPositions: Float32Array, poolNormals: Float32Array, hypotheses: Float64Array, inlierDistance: number, minNormalCosine: number): number;
  /** planes.ts inliersOfTypeScript into `out`; returns how many. */
  inliersOf(positions: Float32Array, normals: Float32Array, taken: Uint8Array, count: number, plane: Float64Array, inlierDistance: number, minNormalCosine: number, out: Uint32Array): number;
  /** The indices i < count where taken[i] is 0, ascending, into `out`; returns how many. */
  freeIndices(taken: Uint8Array, count: number, out: Uint32Array): number;
}

/** The addon, or null where it was not built or does not load (`PLANES_NATIVE=0` turns it off, to compare). */
export const nativePlanes = optionalAddon<PlanesAddon>(import.meta.url, "./native/build/planes.node", "PLANES_NATIVE");
