/**
 * @module `npm run bench -- scale [--sizes=50,200,800] [--width=640] [--quality=standard] [--sparse-only]`:
 * how cost grows with the photo count (issue "Large captures"). For each size it renders a
 * drone survey with known cameras (test/support/survey-scene.ts; cached in
 * bench-out/scale/survey-<n>-<width>/, so a rerun only reconstructs), reconstructs it with the
 * compute pipeline in a process of its own (scale-job.ts), and prints per stage the wall time,
 * the CPU time, the peak memory and the time per photo, then registration and camera errors.
 * The verdict line compares the wall time per photo of the largest size with the smallest's.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { WorkerPool } from "../compute/util/pool.js";
import { surveyCapture } from "../test/support/survey-scene.js";
import type { RenderTask } from "./scale-render.js";
import type { JobFigures } from "./scale-job.js";

const run$ = promisify(execFile);
const repoRoot = path.resolve(fileURLToPath(import.meta.url), "../..");

function option(args: string[], name: string, fallback: string): string {
  return args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
}

/** Render the survey of `images` photos unless the folder already holds all of them; returns its folder. */
async function renderSurvey(images: number, width: number): Promise<string> {
  const height = Math.round((width * 3) / 4);
  const dir = path.join(repoRoot, "bench-out", "scale", `survey-${images}-${width}`);
  const photos = path.join(dir, "photos");
  const truthFile = path.join(dir, "truth.json");
  if (existsSync(truthFile) && (await readdir(photos)).filter((n) => n.endsWith(".jpg")).length === images) return dir;
  await rm(dir, { recursive: true, force: true });
  await mkdir(photos, { recursive: true });
  const seed = 11;
  const capture = surveyCapture(images, seed, height / width);
  const started = performance.now();
  const pool = new WorkerPool<RenderTask, { R: number[]; t: number[] }>(new URL("./scale-render.ts", import.meta.url), { size: availableParallelism() });
  try {
    const poses = await Promise.all(capture.names.map((_, index) => pool.run({ images, seed, width, height, index, dir: photos })));
    const cameras = poses.map((pose, k) => ({ name: `${capture.names[k]}.jpg`, ...pose }));
    await writeFile(truthFile, JSON.stringify({ sceneRadius: capture.sceneRadius, cameras }));
  } finally {
    await pool.close();
  }
  console.log(`rendered ${images} photos ${width}×${height} in ${((performance.now() - started) / 1000).toFixed(0)} s → ${path.relative(repoRoot, dir)}`);
  return dir;
}

function fmt(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : "-";
}

export async function run(args: string[]): Promise<void> {
  const sizes = option(args, "sizes", "50,200,800").split(",").map(Number);
  const width = Number(option(args, "width", "640"));
  const quality = option(args, "quality", "standard");
  const sparseOnly = args.includes("--sparse-only");
  const results: Array<{ images: number; figures: JobFigures }> = [];
  for (const images of sizes) {
    const dir = await renderSurvey(images, width);
    const outDir = path.join(dir, `out-${quality}${sparseOnly ? "-sparse" : ""}`);
    await rm(outDir, { recursive: true, force: true });
    const jobArgs = [...process.execArgv, path.join(repoRoot, "bench", "scale-job.ts"), path.join(dir, "photos"), path.join(dir, "truth.json"), outDir, quality, ...(sparseOnly ? ["--sparse-only"] : [])];
    const { stdout } = await run$(process.execPath, jobArgs.includes("tsx") ? jobArgs : ["--import", "tsx", ...jobArgs], { maxBuffer: 64 * 2 ** 20, cwd: repoRoot });
    const figures = JSON.parse(stdout.trim().split("\n").pop()!) as JobFigures;
    results.push({ images, figures });
    console.log(`\n${images} photos (${width} px, ${quality}${sparseOnly ? ", sparse only" : ""}): ${figures.registered}/${figures.photos} registered; rotation median ${fmt(figures.rotationMedianDeg, 3)}° max ${fmt(figures.rotationMaxDeg, 3)}°, centre median ${fmt(figures.centreMedianPercent, 3)} % max ${fmt(figures.centreMaxPercent, 3)} % of the flown area's half-diagonal${figures.error ? `; FAILED: ${figures.error}` : ""}`);
    console.log("  stage      wall s   cpu s   peak MiB   wall ms/photo");
    for (const s of figures.stages) console.log(`  ${s.stage.padEnd(9)} ${fmt(s.wallS, 1).padStart(7)} ${fmt(s.cpuS, 1).padStart(7)} ${fmt(s.peakRssMiB, 0).padStart(10)} ${fmt((1000 * s.wallS) / images, 0).padStart(14)}`);
    console.log(`  total     ${fmt(figures.wallS, 1).padStart(7)} ${fmt(figures.cpuS, 1).padStart(7)} ${fmt(figures.peakRssMiB, 0).padStart(10)} ${fmt((1000 * figures.wallS) / images, 0).padStart(14)}`);
  }
  if (results.length >= 2) {
    const first = results[0];
    const last = results[results.length - 1];
    const ratio = last.figures.wallS / last.images / (first.figures.wallS / first.images);
    console.log(`\nwall time per photo, ${last.images} against ${first.images} photos: ${ratio.toFixed(2)}× (target ≤ 1.5×)`);
  }
  await mkdir(path.join(repoRoot, "bench", "out"), { recursive: true });
  await writeFile(path.join(repoRoot, "bench", "out", "scale.json"), JSON.stringify(results, null, 2));
}
