/**
 * @module Loading an optional Node-API addon (built at `npm ci` by scripts/build-native.mjs
 * where a C compiler is): the addon, or null where it was not built, does not load here, or the
 * environment variable that names it is "0" (to compare against the TypeScript it stands in for).
 */
import { createRequire } from "node:module";

/** A loader that tries once, on first use: `path` is relative to the module at `moduleUrl`. */
export function optionalAddon<T>(moduleUrl: string, path: string, offVariable?: string): () => T | null {
  let addon: T | null | undefined;
  return () => {
    if (addon === undefined) {
      try {
        addon = offVariable && process.env[offVariable] === "0" ? null : (createRequire(moduleUrl)(path) as T);
      } catch {
        addon = null;
      }
    }
    return addon;
  };
}
