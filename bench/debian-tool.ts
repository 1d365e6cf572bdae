/**
 * @module A Debian tool a bench compares against (COLMAP, GDAL, native OpenCV): whether it runs,
 * after `apt-get install` of its package when the bench runs as root and apt-get exists. The guide
 * lets benchmarks install comparison tools; `npm test` never needs one.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";

const exec = promisify(execFile);
const checked = new Map<string, Promise<boolean>>();

/** True when `works()` does, installing Debian's `pkg` first if it does not and this process may; checked once per package. */
export function ensureDebianTool(pkg: string, works: () => Promise<boolean>): Promise<boolean> {
  let result = checked.get(pkg);
  if (!result) {
    result = (async () => {
      if (await works()) return true;
      if (process.getuid?.() !== 0 || !existsSync("/usr/bin/apt-get")) return false;
      console.log(`bench: trying apt-get install -y ${pkg}`);
      await exec("apt-get", ["install", "-y", pkg], { maxBuffer: 1 << 26, env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } }).catch((e: unknown) => {
        console.log(`bench: apt-get install ${pkg} failed: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`);
      });
      return works();
    })();
    checked.set(pkg, result);
  }
  return result;
}

/** A `works` for ensureDebianTool: the command exits 0. */
export function runs(command: string, args: string[]): () => Promise<boolean> {
  return () => exec(command, args, { maxBuffer: 1 << 24 }).then(() => true, () => false);
}
