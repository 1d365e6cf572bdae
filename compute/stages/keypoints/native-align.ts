/**
 * @module The keypoints stage's patch alignment in a Node-API addon (./native/align.c, built at
 * `npm ci` by scripts/build-native.mjs where a C compiler is): image-task.ts calls it where it
 * loads, and it gives align.ts alignPatch's warps and outcomes to the bit (docs/decisions.md,
 * "Keypoints are aligned native").
 */
import { optionalAddon } from "../../util/native-addon.js";

export interface AlignAddon {
  /** align.ts alignPatch for every observation of one image (align.c says how the arguments are laid out). */
  alignObservations(
    levels: Array<[Float32Array, Float32Array, Float32Array]>, widths: Int32Array, heights: Int32Array,
    xy: Float32Array, tracks: Uint32Array, spacing: Float64Array, levelOf: Int32Array, warps: Float64Array,
    patches: Float32Array, offsets: Float32Array, maxIterations: number, minZncc: number, maxShiftLevelPx: number, outcome: Uint8Array,
  ): void;
}

/** The addon, or null where it was not built or does not load (`KEYPOINTS_NATIVE=0` turns it off, to compare). */
export const nativeAlign = optionalAddon<AlignAddon>(import.meta.url, "./native/build/align.node", "KEYPOINTS_NATIVE");
