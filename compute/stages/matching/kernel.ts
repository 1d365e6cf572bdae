/**
 * @module The descriptor-distance kernels: for 64-byte rows, the exhaustive search in the native
 * addon (./native/hamming.c, built at `npm ci` where a C compiler is; AVX-512 VPOPCNTQ where the
 * CPU has it) or else the WebAssembly build of ./wasm/hamming.ts (i64.popcnt for the exhaustive
 * search, v128 for the guided search's candidates, so it needs WebAssembly SIMD); the plain
 * TypeScript reference (hamming.ts) for other row sizes or when neither loads. All three give the
 * same neighbours to the bit (test/compute/matching/native-hamming.test.ts, hamming.test.ts).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { CandidateDistances } from "../../geometry/epipolar-band.js";
import { allocNeighbours, type Neighbours } from "../../math/mutual-nearest.js";
import { hammingDistance, nearestNeighboursReference } from "./hamming.js";

const ROW_BYTES = 64;
const PAGE = 65536;

interface HammingExports {
  memory: WebAssembly.Memory;
  nearestNeighbours(a: number, countA: number, b: number, countB: number, outA: number, bestB: number, secondB: number, argB: number): void;
  distancesTo(a: number, b: number, candidates: number, count: number, out: number): void;
}

let instance: { exports: HammingExports; base: number } | null | undefined;

function wasm(): { exports: HammingExports; base: number } | null {
  if (instance !== undefined) return instance;
  try {
    const bytes = readFileSync(new URL("./wasm/hamming.wasm", import.meta.url));
    const exports = new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports as unknown as HammingExports;
    instance = { exports, base: exports.memory.buffer.byteLength }; // everything past the initial pages is ours
  } catch {
    instance = null;
  }
  return instance;
}

/** The addon's exhaustive search (native/hamming.c); `search` names the build the CPU chose. */
interface NativeSearch {
  search: "avx512" | "popcnt" | "portable";
  nearestNeighbours(a: Uint32Array, countA: number, b: Uint32Array, countB: number, outA: Uint32Array, bestB: Uint32Array, secondB: Uint32Array, argB: Int32Array): void;
}

let addon: NativeSearch | null | undefined;

/** The native addon, or null where it was not built (scripts/build-native.mjs) or does not load. */
export function nativeSearch(): NativeSearch | null {
  if (addon !== undefined) return addon;
  try {
    addon = createRequire(import.meta.url)("./native/build/hamming.node") as NativeSearch;
  } catch {
    addon = null;
  }
  return addon;
}

/** The kernel nearestNeighboursWasm and candidateDistances run on 64-byte rows. */
export function wasmKernelName(): "wasm-simd" | "typescript" {
  return wasm() ? "wasm-simd" : "typescript";
}

/** The exhaustive search nearestNeighbours runs on 64-byte rows. */
export function kernelName(): `native-${NativeSearch["search"]}` | "wasm-simd" | "typescript" {
  const native = nativeSearch();
  return native ? `native-${native.search}` : wasmKernelName();
}

/**
 * Copies the A and B rows into the wasm heap past its initial pages, followed by `scratchBytes`
 * for the call's outputs (the heap grows when needed). Returns the addresses and the heap.
 */
function stageRows(kernel: { exports: HammingExports; base: number }, a: Uint32Array, countA: number, b: Uint32Array, countB: number, scratchBytes: number): { aAt: number; bAt: number; scratchAt: number; heap: ArrayBuffer } {
  const { exports, base } = kernel;
  const aAt = base;
  const bAt = aAt + countA * ROW_BYTES;
  const scratchAt = bAt + countB * ROW_BYTES;
  const end = scratchAt + scratchBytes;
  const have = exports.memory.buffer.byteLength;
  if (end > have) exports.memory.grow(Math.ceil((end - have) / PAGE));
  const heap = exports.memory.buffer;
  new Uint32Array(heap, aAt, countA * 16).set(a.subarray(0, countA * 16));
  new Uint32Array(heap, bAt, countB * 16).set(b.subarray(0, countB * 16));
  return { aAt, bAt, scratchAt, heap };
}

/** Nearest and second-nearest neighbours both ways between packed descriptor rows (`words` 32-bit words each). */
export function nearestNeighbours(a: Uint32Array, countA: number, b: Uint32Array, countB: number, words: number): Neighbours {
  const native = words * 4 === ROW_BYTES ? nativeSearch() : null;
  if (!native) return nearestNeighboursWasm(a, countA, b, countB, words);
  const nb = allocNeighbours(countA, countB);
  const outA = new Uint32Array(3 * countA);
  native.nearestNeighbours(a, countA, b, countB, outA, nb.bestB, nb.secondB, nb.argB);
  for (let i = 0; i < countA; i++) {
    nb.bestA[i] = outA[3 * i];
    nb.secondA[i] = outA[3 * i + 1];
    nb.argA[i] = outA[3 * i + 2] | 0;
  }
  return nb;
}

/** nearestNeighbours on the WebAssembly kernel (or, for other row sizes, the TypeScript reference), whatever the addon. */
export function nearestNeighboursWasm(a: Uint32Array, countA: number, b: Uint32Array, countB: number, words: number): Neighbours {
  const kernel = words * 4 === ROW_BYTES ? wasm() : null;
  if (!kernel) return nearestNeighboursReference(a, countA, b, countB, words);
  const { exports } = kernel;
  const { aAt, bAt, scratchAt: outAAt, heap } = stageRows(kernel, a, countA, b, countB, countA * 12 + countB * 12);
  const bestBAt = outAAt + countA * 12;
  const secondBAt = bestBAt + countB * 4;
  const argBAt = secondBAt + countB * 4;
  new Uint32Array(heap, bestBAt, countB).fill(0xffffffff);
  new Uint32Array(heap, secondBAt, countB).fill(0xffffffff);
  new Int32Array(heap, argBAt, countB).fill(-1);
  exports.nearestNeighbours(aAt, countA, bAt, countB, outAAt, bestBAt, secondBAt, argBAt);
  const nb = allocNeighbours(countA, countB);
  const outA = new Uint32Array(heap, outAAt, countA * 3);
  for (let i = 0; i < countA; i++) {
    nb.bestA[i] = outA[3 * i];
    nb.secondA[i] = outA[3 * i + 1];
    nb.argA[i] = outA[3 * i + 2] | 0;
  }
  nb.bestB.set(new Uint32Array(heap, bestBAt, countB));
  nb.secondB.set(new Uint32Array(heap, secondBAt, countB));
  nb.argB.set(new Int32Array(heap, argBAt, countB));
  return nb;
}

/** Distances from single A rows to chosen B rows, for the guided search (geometry/epipolar-band.ts). */
export function candidateDistances(a: Uint32Array, countA: number, b: Uint32Array, countB: number, words: number): CandidateDistances {
  const kernel = words * 4 === ROW_BYTES ? wasm() : null;
  if (!kernel) {
    const candidates = new Uint32Array(countB);
    const out = new Uint32Array(countB);
    return {
      candidates,
      compute: (i, n) => {
        for (let k = 0; k < n; k++) out[k] = hammingDistance(a, i * words, b, candidates[k] * words, words);
        return out.subarray(0, n);
      },
    };
  }
  const { exports } = kernel;
  const { aAt, bAt, scratchAt: candidatesAt, heap } = stageRows(kernel, a, countA, b, countB, countB * 8);
  const outAt = candidatesAt + countB * 4;
  const out = new Uint32Array(heap, outAt, countB);
  return {
    candidates: new Uint32Array(heap, candidatesAt, countB),
    compute: (i, n) => {
      exports.distancesTo(aAt + i * ROW_BYTES, bAt, candidatesAt, n, outAt);
      return out.subarray(0, n);
    },
  };
}
