/** @module Builds a bench's native reference (bench/native/<name>.c) with gcc -O3 -march=native into bench-out/kernels. */
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";

export const NATIVE_OUT_DIR = path.resolve("bench-out/kernels");

/** The built binary's path, or why it could not be built (no gcc: the native rows print n/a). */
export function buildNative(name: string): { binary: string } | { error: string } {
  mkdirSync(NATIVE_OUT_DIR, { recursive: true });
  const binary = path.join(NATIVE_OUT_DIR, name);
  try {
    execFileSync("gcc", ["-O3", "-march=native", "-ffp-contract=off", "-o", binary, path.resolve(`bench/native/${name}.c`), "-lm"], { stdio: "pipe" });
    return { binary };
  } catch (err) {
    return { error: `gcc could not build bench/native/${name}.c (${(err as Error).message.split("\n")[0]}); apt-get install gcc` };
  }
}
