/**
 * @module One export in a process of its own, so its peak memory is its own:
 * `tsx bench/export-job.ts <points> <faces> <format,...>`. Builds a cloud of `points` points and
 * a mesh of `faces` faces (a deterministic grid, no texture), runs the export stage with the given
 * formats into a temporary folder, and prints one JSON line: the resident memory when the stage
 * began, its peak (sampled every 10 ms, and the process's maxRSS), the stage's wall time per
 * format and the bytes written.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Mesh, PointCloud } from "../compute/scene/index.js";
import { run } from "../compute/stages/export/index.js";
import type { Format } from "../shared/formats.js";

export interface ExportFigures {
  points: number;
  faces: number;
  formats: string[];
  startMiB: number;
  peakMiB: number;
  /** Peak minus start: what the stage itself held. */
  aboveStartMiB: number;
  wallS: number;
  bytes: number;
  msByFormat: Record<string, number>;
}

/** A surface-like cloud: points on a wavy sheet, unit normals, colours varying along it. */
function cloudOf(count: number): PointCloud {
  const side = Math.ceil(Math.sqrt(count));
  const cloud: PointCloud = { count, positions: new Float32Array(3 * count), colors: new Uint8Array(3 * count), normals: new Float32Array(3 * count) };
  for (let i = 0; i < count; i++) {
    const u = (i % side) / side, v = Math.floor(i / side) / side;
    cloud.positions.set([40 * u, 2 * Math.sin(12 * u) * Math.cos(9 * v), 30 * v], 3 * i);
    cloud.normals.set([0, 1, 0], 3 * i);
    cloud.colors.set([(255 * u) | 0, (255 * v) | 0, 128], 3 * i);
  }
  return cloud;
}

/** A grid mesh of about `faces` triangles over the same sheet. */
function meshOf(faces: number): Mesh {
  const cells = Math.max(1, Math.round(Math.sqrt(faces / 2)));
  const verticesPerRow = cells + 1;
  const vertexCount = verticesPerRow * verticesPerRow;
  const mesh: Mesh = { vertexCount, faceCount: 2 * cells * cells, positions: new Float32Array(3 * vertexCount), colors: new Uint8Array(3 * vertexCount), normals: new Float32Array(3 * vertexCount), indices: new Uint32Array(6 * cells * cells) };
  for (let v = 0; v < vertexCount; v++) {
    const u = (v % verticesPerRow) / cells, w = Math.floor(v / verticesPerRow) / cells;
    mesh.positions.set([40 * u, 2 * Math.sin(12 * u) * Math.cos(9 * w), 30 * w], 3 * v);
    mesh.normals.set([0, 1, 0], 3 * v);
    mesh.colors.set([(255 * u) | 0, (255 * w) | 0, 128], 3 * v);
  }
  let at = 0;
  for (let row = 0; row < cells; row++) {
    for (let col = 0; col < cells; col++) {
      const a = row * verticesPerRow + col, b = a + 1, c = a + verticesPerRow, d = c + 1;
      mesh.indices.set([a, c, b, b, c, d], at);
      at += 6;
    }
  }
  return mesh;
}

async function main(): Promise<void> {
  const [points, faces] = [Number(process.argv[2]), Number(process.argv[3])];
  const formats = process.argv[4].split(",") as Format[];
  const cloud = cloudOf(points);
  const mesh = meshOf(faces);
  const outDir = await mkdtemp(path.join(tmpdir(), "bench-export-"));
  const start = process.memoryUsage.rss();
  let peak = start;
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, 10);
  const began = performance.now();
  try {
    const { files, report } = await run({ views: [], cloud, mesh }, { formats, outDir });
    const wallS = (performance.now() - began) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage.rss(), process.resourceUsage().maxRSS * 1024);
    const msByFormat = Object.fromEntries(Object.entries(report.counts).filter(([key]) => key.startsWith("ms_")).map(([key, ms]) => [key.slice(3), ms]));
    const figures: ExportFigures = {
      points, faces: mesh.faceCount, formats, startMiB: start / 2 ** 20, peakMiB: peak / 2 ** 20, aboveStartMiB: (peak - start) / 2 ** 20,
      wallS, bytes: files.reduce((sum, f) => sum + f.bytes, 0), msByFormat,
    };
    console.log(JSON.stringify(figures));
  } finally {
    clearInterval(sampler);
    await rm(outDir, { recursive: true, force: true });
  }
}

await main();
