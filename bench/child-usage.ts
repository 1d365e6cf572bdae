/**
 * @module The CPU time of this process's finished children, from /proc/self/stat (cutime +
 * cstime: user and system time of every child and grandchild reaped so far, all their threads).
 * Node's spawn results carry no rusage, so a child's CPU is the difference across its run; run
 * one child at a time, or the differences mix. Linux only.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

let ticksPerSecond: number | undefined;

/** User + system seconds of the children reaped so far. */
export function childrenCpuSeconds(): number {
  ticksPerSecond ??= Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
  const stat = readFileSync("/proc/self/stat", "utf8");
  // The command name (field 2) is in parentheses and may hold spaces: count from after it, where field 3 is the first.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[16 - 3]) + Number(fields[17 - 3])) / ticksPerSecond;
}

/** `work` (which runs children and waits for them), with its wall seconds and its children's CPU seconds. */
export async function measuredChildren<T>(work: () => Promise<T>): Promise<{ result: T; wallS: number; cpuS: number }> {
  const cpu = childrenCpuSeconds();
  const started = performance.now();
  const result = await work();
  return { result, wallS: (performance.now() - started) / 1000, cpuS: childrenCpuSeconds() - cpu };
}
