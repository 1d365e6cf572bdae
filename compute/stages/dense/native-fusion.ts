/**
 * @module The dense stage's fusion in a Node-API addon (./native/fusion.c, built at `npm ci` by
 * scripts/build-native.mjs where a C compiler is): fusion.ts calls it where it loads, and it gives
 * fuseTypeScript's cloud to the bit (docs/decisions.md, "Fusion runs native").
 */
import { optionalAddon } from "../../util/native-addon.js";

export interface FusionAddon {
  /** fusion.ts fuseTypeScript over maps given as parallel lists (fusion.c says how they are laid out). */
  fuse(
    depths: Float32Array[], normals: Float32Array[], rgbs: Uint8Array[], cameras: Float64Array,
    maxRelativeDepthError: number, cosMax: number, maxPx: number, minFusedViews: number, seedMaps: number, yieldTo: Uint8Array | null,
  ): [Float32Array, Float32Array, Uint8Array];
}

/** The addon, or null where it was not built or does not load (`FUSION_NATIVE=0` turns it off, to compare). */
export const nativeFusion = optionalAddon<FusionAddon>(import.meta.url, "./native/build/fusion.node", "FUSION_NATIVE");
