/**
 * @module Node's on-disk compile cache (module.enableCompileCache, Node ≥ 22.1) for the
 * threads this process starts.
 *
 * Why: every worker thread compiles the tsx loader, sharp and OpenCV.js's 10 MB of JavaScript
 * again. With the cache, two front workers were ready in 650–730 ms instead of 870–1000 ms
 * (1.2–1.4 instead of 1.7–1.9 s of CPU) on the 2-core development machine, which on a
 * 10-image job of 640-px photos is a twentieth of its front. A worker reads
 * NODE_COMPILE_CACHE from the environment it is given when it starts, so setting the variable
 * before the first `new Worker` is enough; the current thread's own later loads are cached too.
 * Node checks each entry against its source's hash, so a stale cache is only a miss.
 */
import module from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";

let enabled = false;

/** Idempotent; does nothing on a Node without the API (the compute runtime is Node 22). */
export function useCompileCache(): void {
  if (enabled) return;
  enabled = true;
  const enable = (module as { enableCompileCache?: (dir?: string) => unknown }).enableCompileCache;
  if (!enable) return;
  process.env.NODE_COMPILE_CACHE ??= path.join(tmpdir(), "photogrammetry-compile-cache");
  enable(process.env.NODE_COMPILE_CACHE);
}
