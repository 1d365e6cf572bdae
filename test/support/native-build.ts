/** @module Whether this machine can build the compute service's native addons (scripts/build-native.mjs). */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/** What scripts/build-native.mjs needs: a C compiler and Node-API's header. */
export function canBuildNative(): boolean {
  const compiler = ["cc", "gcc", "clang"].some((cc) => {
    try {
      execFileSync(cc, ["--version"], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  });
  const headers = [path.join(path.dirname(path.dirname(process.execPath)), "include", "node"), "/usr/include/node", "/usr/local/include/node"];
  return compiler && headers.some((dir) => existsSync(path.join(dir, "node_api.h")));
}

/** Whether the CPU reports every one of these flags (Linux's /proc/cpuinfo; elsewhere assumed not). */
export function cpuHas(...flags: string[]): boolean {
  try {
    const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
    return flags.every((flag) => new RegExp(`\\b${flag}\\b`).test(cpuinfo));
  } catch {
    return false;
  }
}

/** The widths the dense addon's plane cost runs at on this CPU, widest first: AVX-512 (F and DQ) where it has it, and AVX2. */
export function nativeIsas(): Array<"avx512" | "avx2"> {
  return [...(cpuHas("avx512f", "avx512dq") ? (["avx512"] as const) : []), ...(cpuHas("avx2") ? (["avx2"] as const) : [])];
}
