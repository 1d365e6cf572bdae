#!/usr/bin/env node
// Builds the compute service's one native addon, matching's descriptor search
// (compute/stages/matching/native/hamming.c), into compute/stages/matching/native/build/hamming.node.
// Run by `postinstall`, so `npm ci` builds it; also by hand after editing the C file.
//
// It needs a C compiler (cc, gcc or clang) and Node-API's headers (node_api.h: beside the running
// Node, or Debian's /usr/include/node, or npm's `nodedir`). Without them it says so and exits 0: the
// stage then runs the WebAssembly kernel (compute/stages/matching/kernel.ts), which gives the same
// matches about 3× slower on a CPU with AVX-512 and as fast on one without. Node-API is a stable
// ABI, so an addon built against one Node's headers loads in later ones (system Node 20 builds,
// Node 22 runs).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dir = path.join(root, "compute", "stages", "matching", "native");
const source = path.join(dir, "hamming.c");
const out = path.join(dir, "build", "hamming.node");

function headerDir() {
  const candidates = [
    process.env.npm_config_nodedir && path.join(process.env.npm_config_nodedir, "include", "node"),
    path.join(path.dirname(path.dirname(process.execPath)), "include", "node"),
    "/usr/include/node",
    "/usr/local/include/node",
  ].filter(Boolean);
  return candidates.find((d) => existsSync(path.join(d, "node_api.h"))) ?? null;
}

function compiler() {
  for (const cc of [process.env.CC, "cc", "gcc", "clang"].filter(Boolean)) {
    try {
      execFileSync(cc, ["--version"], { stdio: "ignore" });
      return cc;
    } catch {
      // not this one
    }
  }
  return null;
}

const include = headerDir();
const cc = compiler();
// The folder exists either way, so that a container build can copy it whether or not it holds the addon.
mkdirSync(path.dirname(out), { recursive: true });
if (!include || !cc) {
  console.log(`build-native: skipped (${!cc ? "no C compiler: cc, gcc or clang" : "no node_api.h"}); matching uses its WebAssembly kernel`);
  process.exit(0);
}
const temporary = `${out}.${process.pid}.tmp`;
try {
  // Node-API's functions are resolved in the running node at load: a shared object with undefined symbols.
  execFileSync(cc, ["-O3", "-std=c11", "-fPIC", "-shared", "-fvisibility=hidden", "-I", include, "-o", temporary, source], { stdio: ["ignore", "inherit", "inherit"] });
  renameSync(temporary, out);
  console.log(`build-native: built ${path.relative(root, out)} with ${cc} (headers ${include})`);
} catch (err) {
  console.log(`build-native: ${cc} could not build ${path.relative(root, source)} (${err.message.split("\n")[0]}); matching uses its WebAssembly kernel`);
}
