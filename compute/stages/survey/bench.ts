/**
 * @module Benchmark of the survey stage on a procedural site: `npx tsx
 * compute/stages/survey/bench.ts [raster side px = 4000] [terrain quads a side = 400] [zlib level = 6]`. A
 * 200 m square of rolling terrain (a grid mesh) with 64 box buildings, textured from one
 * 2048² page of noise, rasterised at the GSD that gives the asked raster side. Prints the
 * stage's report, the files' sizes and the process's peak resident memory.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRng } from "../../math/random.js";
import type { Mesh, TexturedMesh } from "../../scene/index.js";
import { run } from "./index.js";

const SITE_M = 200;
const PAGE = 2048;

function terrainUp(e: number, n: number): number {
  return 3 * Math.sin(e / 23) * Math.cos(n / 31) + 0.02 * e;
}

function buildSite(quads: number): TexturedMesh {
  const rng = createRng(7);
  const positions: number[] = [], uvs: number[] = [], indices: number[] = [];
  const step = SITE_M / quads;
  for (let j = 0; j <= quads; j++) {
    for (let i = 0; i <= quads; i++) {
      const e = i * step, n = j * step;
      positions.push(e, terrainUp(e, n), -n);
      uvs.push(e / SITE_M, 1 - n / SITE_M);
    }
  }
  for (let j = 0; j < quads; j++) {
    for (let i = 0; i < quads; i++) {
      const a = j * (quads + 1) + i;
      indices.push(a, a + 1, a + quads + 2, a, a + quads + 2, a + quads + 1);
    }
  }
  // Boxes: roof and four walls each, on an 8 × 8 grid of lots.
  for (let k = 0; k < 64; k++) {
    const e0 = 10 + (k % 8) * 23 + 4 * rng(), n0 = 10 + Math.floor(k / 8) * 23 + 4 * rng();
    const e1 = e0 + 8 + 6 * rng(), n1 = n0 + 8 + 6 * rng(), top = terrainUp(e0, n0) + 6 + 20 * rng();
    const base = positions.length / 3;
    for (const [e, n] of [[e0, n0], [e1, n0], [e1, n1], [e0, n1]]) {
      positions.push(e, top, -n, e, terrainUp(e, n) - 1, -n);
      uvs.push(e / SITE_M, 1 - n / SITE_M, e / SITE_M, 1 - n / SITE_M);
    }
    indices.push(base, base + 2, base + 4, base, base + 4, base + 6);
    for (let w = 0; w < 4; w++) {
      const t0 = base + 2 * w, t1 = base + 2 * ((w + 1) % 4);
      indices.push(t0, t0 + 1, t1 + 1, t0, t1 + 1, t1);
    }
  }
  const rgb = new Uint8Array(PAGE * PAGE * 3);
  for (let i = 0; i < rgb.length; i++) rgb[i] = 90 + Math.floor(60 * rng()) + (i % 3) * 20;
  const vertexCount = positions.length / 3;
  const mesh: Mesh = { vertexCount, faceCount: indices.length / 3, positions: new Float32Array(positions), colors: new Uint8Array(3 * vertexCount).fill(128), normals: new Float32Array(3 * vertexCount), indices: new Uint32Array(indices) };
  return { mesh, uvs: new Float32Array(uvs), facePage: new Uint16Array(mesh.faceCount), faceView: new Int32Array(mesh.faceCount), pages: [{ width: PAGE, height: PAGE, rgb }] };
}

const side = Number(process.argv[2] ?? 4000);
const quads = Number(process.argv[3] ?? 400);
const deflateLevel = Number(process.argv[4] ?? 6);
const site = buildSite(quads);
const outDir = await mkdtemp(path.join(tmpdir(), "survey-bench-"));
const rssBefore = process.memoryUsage().rss;
const { files, report } = await run({ mesh: site.mesh, textured: site, epsg: 32632, offset: [500_000, 5_200_000, 400], gsd: SITE_M / side }, { outDir, maxRasterSide: side + 2, deflateLevel });
console.log(JSON.stringify({ faces: site.mesh.faceCount, wallMs: Math.round(report.wallMs), counts: report.counts, warnings: report.warnings, files: files.map((f) => [f.product, f.bytes]) }));
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (before the stage ${(rssBefore / 2 ** 20).toFixed(0)} MB)`);
await rm(outDir, { recursive: true });
