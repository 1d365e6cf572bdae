/**
 * @module `npm run bench -- export [--points=N] [--faces=N]`: the export stage's own memory and
 * time on a model the size of the 800-photo survey's (31.4 M dense points; a 3.2 M-face mesh by
 * default), each format in a fresh process (export-job.ts) and then all six together, as a job
 * writes them. Prints per run the memory the stage held above its start, its wall time and the
 * bytes written; writes bench/out/export.json.
 */
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { repoRoot } from "./datasets.js";
import type { ExportFigures } from "./export-job.js";

const run$ = promisify(execFile);
const MODEL_FORMATS = ["ply", "las", "stl", "glb", "gltf", "obj"];

function flag(args: string[], name: string, fallback: number): number {
  const given = args.find((a) => a.startsWith(`--${name}=`));
  return given ? Number(given.slice(name.length + 3)) : fallback;
}

export async function run(args: string[]): Promise<void> {
  const points = flag(args, "points", 31_400_000);
  const faces = flag(args, "faces", 3_200_000);
  const runs = [...MODEL_FORMATS.map((f) => [f]), MODEL_FORMATS];
  const results: ExportFigures[] = [];
  console.log(`export of ${points.toLocaleString("en")} points and ${faces.toLocaleString("en")} faces, one process per run`);
  for (const formats of runs) {
    const { stdout } = await run$(process.execPath, [...process.execArgv, path.join(repoRoot, "bench", "export-job.ts"), String(points), String(faces), formats.join(",")], { maxBuffer: 1 << 20 });
    const figures = JSON.parse(stdout.trim().split("\n").at(-1) as string) as ExportFigures;
    results.push(figures);
    console.log(`${formats.join(",").padEnd(24)} held ${figures.aboveStartMiB.toFixed(0).padStart(5)} MiB above its start (${figures.startMiB.toFixed(0)} → ${figures.peakMiB.toFixed(0)}), ${figures.wallS.toFixed(1)} s, ${(figures.bytes / 2 ** 20).toFixed(0)} MiB written`);
  }
  await mkdir(path.join(repoRoot, "bench", "out"), { recursive: true });
  await writeFile(path.join(repoRoot, "bench", "out", "export.json"), JSON.stringify(results, null, 2));
}
