/**
 * @module The meshes' z-buffer in a Node-API addon (./native/raster.c, built at `npm ci` by
 * scripts/build-native.mjs where a C compiler is): mesh-raster.ts rasterizeDepth calls it where it
 * loads, and it gives the TypeScript's buffer to the bit (docs/decisions.md, "The z-buffer is
 * rasterised native").
 */
import { optionalAddon } from "../util/native-addon.js";

interface RasterAddon {
  /** Fills zbuf; false: a face's corner is not finite, and zbuf is unfinished. */
  rasterizeDepth(indices: Uint32Array, px: Float32Array, py: Float32Array, depth: Float32Array, width: number, height: number, zbuf: Float32Array): boolean;
}

/** The addon, or null where it was not built or does not load. */
export const nativeRaster = optionalAddon<RasterAddon>(import.meta.url, "./native/build/raster.node");
