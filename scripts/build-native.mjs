#!/usr/bin/env node
// Builds the compute service's native addons: matching's descriptor search
// (compute/stages/matching/native/hamming.c), dense's plane cost and window
// (compute/stages/dense/native/plane-cost.c), dense's filter and fusion, bundle adjustment's
// passes, the keypoints' alignment, the mesh's plane search (compute/stages/mesh/native/planes.c)
// and the meshes' z-buffer (compute/geometry/native/raster.c), each into a build/ folder beside
// its source.
// Run by `postinstall`, so `npm ci` builds them; also by hand after editing a C file.
//
// It needs a C compiler (cc, gcc or clang) and Node-API's headers (node_api.h: beside the running
// Node, or Debian's /usr/include/node, or npm's `nodedir`). Without them it says so and exits 0: the
// stage then runs its WebAssembly kernel (compute/stages/matching/kernel.ts,
// compute/stages/dense/kernel.ts), which gives the same bits more slowly on a CPU with AVX-512 or AVX2. Node-API is a stable
// ABI, so an addon built against one Node's headers loads in later ones (system Node 20 builds,
// Node 22 runs).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The addons: each stage keeps the WebAssembly kernel it falls back to. */
const ADDONS = [
  { source: "compute/stages/matching/native/hamming.c", out: "compute/stages/matching/native/build/hamming.node", flags: [], fallback: "matching uses its WebAssembly kernel" },
  // The dense cost must give the wasm kernel's bits: no fused multiply-add.
  { source: "compute/stages/dense/native/plane-cost.c", out: "compute/stages/dense/native/build/plane-cost.node", flags: ["-ffp-contract=off"], fallback: "dense uses its WebAssembly kernel" },
  // Bundle adjustment's linearisation and point elimination must give the TypeScript's bits too.
  { source: "compute/solvers/bundle-adjustment/native/ba.c", out: "compute/solvers/bundle-adjustment/native/build/ba.node", flags: ["-ffp-contract=off"], fallback: "bundle adjustment runs in TypeScript" },
  { source: "compute/stages/dense/native/fusion.c", out: "compute/stages/dense/native/build/fusion.node", flags: ["-ffp-contract=off"], fallback: "dense fusion runs in TypeScript" },
  { source: "compute/stages/keypoints/native/align.c", out: "compute/stages/keypoints/native/build/align.node", flags: ["-ffp-contract=off"], fallback: "keypoints are aligned in TypeScript" },
  { source: "compute/stages/mesh/native/planes.c", out: "compute/stages/mesh/native/build/planes.node", flags: ["-ffp-contract=off"], fallback: "the mesh's plane search runs in TypeScript" },
  { source: "compute/geometry/native/raster.c", out: "compute/geometry/native/build/raster.node", flags: ["-ffp-contract=off"], fallback: "the z-buffer is rasterised in TypeScript" },
];

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
for (const addon of ADDONS) {
  const source = path.join(root, addon.source);
  const out = path.join(root, addon.out);
  // The folder exists either way, so that a container build can copy it whether or not it holds the addon.
  mkdirSync(path.dirname(out), { recursive: true });
  if (!include || !cc) {
    console.log(`build-native: skipped ${addon.source} (${!cc ? "no C compiler: cc, gcc or clang" : "no node_api.h"}); ${addon.fallback}`);
    continue;
  }
  const temporary = `${out}.${process.pid}.tmp`;
  try {
    // Node-API's functions are resolved in the running node at load: a shared object with undefined symbols.
    execFileSync(cc, ["-O3", "-std=c11", ...addon.flags, "-fPIC", "-shared", "-fvisibility=hidden", "-I", include, "-o", temporary, source], { stdio: ["ignore", "inherit", "inherit"] });
    renameSync(temporary, out);
    console.log(`build-native: built ${addon.out} with ${cc} (headers ${include})`);
  } catch (err) {
    console.log(`build-native: ${cc} could not build ${addon.source} (${err.message.split("\n")[0]}); ${addon.fallback}`);
  }
}
