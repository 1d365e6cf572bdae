#!/usr/bin/env node
// Builds the dashboard's browser code (dashboard/) into dist/dashboard/assets/ (Workers static
// assets, wrangler.jsonc `assets`): three bundles — dashboard.js (upload checks and progress,
// live status), viewer.js (three.js, bundled here: never loaded from a CDN) and ortho-preview.js
// (geotiff.js, for a survey's orthophoto) — and the
// stylesheet. Run by predev/pretest and friends, so a clean clone needs no extra step; esbuild
// takes well under a second.
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.join(root, "dist", "dashboard", "assets");
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { dashboard: path.join(root, "dashboard", "dashboard.ts"), viewer: path.join(root, "dashboard", "viewer.ts"), "ortho-preview": path.join(root, "dashboard", "ortho-preview.ts") },
  outdir: out,
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  sourcemap: false,
  logLevel: "warning",
});
copyFileSync(path.join(root, "dashboard", "dashboard.css"), path.join(out, "dashboard.css"));
