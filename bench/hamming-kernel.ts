/**
 * @module The matching stage's exhaustive descriptor search against native code (`npm run bench
 * -- kernels`, its fifth part; issue 42, "hot loops at the machine's speed"). Two sets of 8,000
 * 64-byte rows, as two photos' AKAZE descriptors at the standard preset's 8,000 keypoints: half
 * of B are A's rows with a tenth of their bits flipped (matches), the rest random, in a shuffled
 * order. Searched by compute/stages/matching/kernel.ts's WebAssembly kernel (i64.popcnt) and by
 * its native addon where it was built (compute/stages/matching/native/, what the stage runs),
 * by the TypeScript reference, and by bench/native/hamming.c (the addon's searches,
 * native/search.h, built with gcc -O3 -march=native: POPCNT, and AVX-512 VPOPCNTQ where the CPU
 * has it). Every output must agree to the bit.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildNative, NATIVE_OUT_DIR } from "./native/build.js";
import { nativeSearch, nearestNeighbours, nearestNeighboursWasm, wasmKernelName } from "../compute/stages/matching/kernel.js";
import { nearestNeighboursReference } from "../compute/stages/matching/hamming.js";
import type { Neighbours } from "../compute/math/mutual-nearest.js";
import { createRng } from "../compute/math/random.js";

/** Keypoints per photo at the standard preset. */
const ROWS = 8000;
/** 32-bit words per 64-byte row. */
const WORDS = 16;

/** A and B as described above; AKAZE's 61 bytes, the last three of each row zero. */
function descriptors(): { a: Uint32Array; b: Uint32Array } {
  const next = createRng(7);
  const word = () => Math.floor(next() * 2 ** 32) >>> 0;
  const a = new Uint32Array(ROWS * WORDS);
  for (let i = 0; i < a.length; i++) a[i] = word();
  const b = new Uint32Array(ROWS * WORDS);
  const order = Array.from({ length: ROWS }, (_, i) => i);
  for (let i = ROWS - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  for (let j = 0; j < ROWS; j++) {
    const source = order[j]!;
    for (let w = 0; w < WORDS; w++) {
      if (j % 2 === 0) {
        let flips = 0;
        for (let bit = 0; bit < 32; bit++) if (next() < 0.1) flips |= 1 << bit;
        b[j * WORDS + w] = (a[source * WORDS + w]! ^ flips) >>> 0;
      } else b[j * WORDS + w] = word();
    }
  }
  for (const rows of [a, b]) for (let i = 0; i < ROWS; i++) rows[i * WORDS + WORDS - 1]! &= 0xff;
  return { a, b };
}

function bestOf(rounds: number, fn: () => Neighbours): { ms: number; result: Neighbours } {
  let ms = Infinity;
  let result = fn();
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    result = fn();
    ms = Math.min(ms, performance.now() - t0);
  }
  return { ms, result };
}

/** The native output file's layout (hamming.c write_result) as Neighbours. */
function readNative(file: string): Neighbours {
  const bytes = readFileSync(file);
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const outA = words.subarray(0, 3 * ROWS);
  const at = 3 * ROWS;
  return {
    bestA: Uint32Array.from({ length: ROWS }, (_, i) => outA[3 * i]!),
    secondA: Uint32Array.from({ length: ROWS }, (_, i) => outA[3 * i + 1]!),
    argA: Int32Array.from({ length: ROWS }, (_, i) => outA[3 * i + 2]! | 0),
    bestB: words.slice(at, at + ROWS),
    secondB: words.slice(at + ROWS, at + 2 * ROWS),
    argB: new Int32Array(words.slice(at + 2 * ROWS, at + 3 * ROWS).buffer),
  };
}

/** Entries of the six arrays that differ. */
function differing(x: Neighbours, y: Neighbours): number {
  let count = 0;
  for (const key of ["bestA", "secondA", "argA", "bestB", "secondB", "argB"] as const) {
    const p = x[key], q = y[key];
    for (let i = 0; i < p.length; i++) if (p[i] !== q[i]) count++;
  }
  return count;
}

function runNative(a: Uint32Array, b: Uint32Array, rounds: number): { scalar: { ms: number; result: Neighbours }; avx512: { ms: number; result: Neighbours } | null } | string {
  const built = buildNative("hamming");
  if ("error" in built) return built.error;
  const input = Buffer.alloc(8 + 4 * (a.length + b.length));
  input.writeUInt32LE(ROWS, 0);
  input.writeUInt32LE(ROWS, 4);
  Buffer.from(a.buffer, a.byteOffset, 4 * a.length).copy(input, 8);
  Buffer.from(b.buffer, b.byteOffset, 4 * b.length).copy(input, 8 + 4 * a.length);
  const inputFile = path.join(NATIVE_OUT_DIR, "hamming-input.bin");
  const prefix = path.join(NATIVE_OUT_DIR, "hamming-out");
  writeFileSync(inputFile, input);
  const printed = execFileSync(built.binary, [inputFile, String(rounds), prefix], { encoding: "utf8" });
  const ms = (name: string) => Number(/^(\S+) (\S+)$/m.exec(printed.split("\n").find((line) => line.startsWith(name)) ?? "")?.[2]);
  const scalar = { ms: ms("scalar"), result: readNative(`${prefix}-scalar.bin`) };
  const avx512 = Number.isFinite(ms("avx512")) ? { ms: ms("avx512"), result: readNative(`${prefix}-avx512.bin`) } : null;
  return { scalar, avx512 };
}

/** Prints the searches' times per distance and their agreement. */
export function runHammingKernel(rounds: number): void {
  const { a, b } = descriptors();
  const ours = bestOf(rounds, () => nearestNeighboursWasm(a, ROWS, b, ROWS, WORDS));
  const addon = nativeSearch();
  const ourNative = addon ? bestOf(rounds, () => nearestNeighbours(a, ROWS, b, ROWS, WORDS)) : null;
  const reference = bestOf(1, () => nearestNeighboursReference(a, ROWS, b, ROWS, WORDS));
  const native = runNative(a, b, rounds);
  const distances = ROWS * ROWS;
  console.log(`\nthe matching stage's exhaustive search: ${ROWS.toLocaleString("en")} × ${ROWS.toLocaleString("en")} rows of 64 bytes, half of B near an A row; ${rounds} rounds, best kept (the TypeScript reference: one)`);
  console.log("| search | ms | ns per distance | × native POPCNT | entries differing from the kernel's |");
  console.log("|---|---|---|---|---|");
  const base = typeof native === "string" ? NaN : native.scalar.ms;
  const row = (name: string, ms: number, diff: string) => console.log(`| ${name} | ${ms.toFixed(1)} | ${((ms * 1e6) / distances).toFixed(2)} | ${Number.isNaN(base) ? "n/a" : (ms / base).toFixed(2)} | ${diff} |`);
  row(`kernel.ts nearestNeighboursWasm (${wasmKernelName()})`, ours.ms, "—");
  if (addon && ourNative) row(`kernel.ts nearestNeighbours (the stage's: native addon, ${addon.search})`, ourNative.ms, String(differing(ourNative.result, ours.result)));
  else console.log("the stage's native addon: not built (scripts/build-native.mjs), so the stage runs the wasm kernel");
  row("TypeScript reference (hamming.ts)", reference.ms, String(differing(reference.result, ours.result)));
  if (typeof native === "string") {
    console.log(`native rows: n/a, ${native}`);
    return;
  }
  row("bench/native/hamming.c, POPCNT (gcc -O3 -march=native)", native.scalar.ms, String(differing(native.scalar.result, ours.result)));
  if (native.avx512) row("bench/native/hamming.c, AVX-512 VPOPCNTQ, 8 rows at a time", native.avx512.ms, String(differing(native.avx512.result, ours.result)));
  else console.log("AVX-512 row: n/a (this CPU has no AVX-512 VPOPCNTDQ)");
}
