/**
 * @module The dense stage's geometric filter and fusion in a Node-API addon (./native/fusion.c,
 * built at `npm ci` by scripts/build-native.mjs where a C compiler is): filter.ts and fusion.ts call
 * it where it loads, and it gives geometricFilterTypeScript's maps and fuseTypeScript's cloud to the
 * bit (docs/decisions.md, "Fusion runs native").
 */
import { optionalAddon } from "../../util/native-addon.js";

export interface FusionAddon {
  /** fusion.ts fuseTypeScript over maps given as parallel lists (fusion.c says how they are laid out). */
  fuse(
    depths: Float32Array[], normals: Float32Array[], rgbs: Uint8Array[], cameras: Float64Array,
    maxRelativeDepthError: number, cosMax: number, maxPx: number, minFusedViews: number, seedMaps: number, yieldTo: Uint8Array | null,
  ): [Float32Array, Float32Array, Uint8Array];
  /** filter.ts geometricFilterTypeScript for one reference map (fusion.c says how the sources are laid out). */
  geometricFilter(
    refDepth: Float32Array, width: number, height: number, focal: number, cx: number, cy: number, sourceDepths: Float32Array[], sources: Float64Array,
    maxErr2: number, maxRel: number, minConsistentViews: number, priorConsistentViews: number, onPrior: Uint8Array | null,
  ): Float32Array;
}

/** The addon, or null where it was not built or does not load (`FUSION_NATIVE=0` turns it off, to compare). */
export const nativeFusion = optionalAddon<FusionAddon>(import.meta.url, "./native/build/fusion.node", "FUSION_NATIVE");
