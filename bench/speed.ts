/**
 * @module `npm run bench -- speed [set-name-filter...] [--quality Q] [--no-colmap]`: issue 42,
 * "Fast on every capture". Runs the whole pipeline (standard preset by default) on every set
 * in ../shared/datasets, each in a process of its own (speed-job.ts), and COLMAP's sparse-only
 * run (colmap.ts) on the same images after it (not on a video set), one at a time so that neither shares the cores
 * with the other. Prints per stage the wall time, the CPU time (user + system of every thread),
 * the average cores in use (CPU / wall) and the peak memory, the same for COLMAP's three
 * steps, then a summary with the ratio of our whole pipeline's wall time to COLMAP's sparse
 * run's (target ≤ 0.5 at standard; also of the CPU times, which others' work on the cores
 * hardly moves) and the job's cores (target ≥ 1.8 on two cores). Writes
 * bench/out/speed.json.
 *
 * Our time is the job's (runPipeline's call to its return, front workers started inside it, as
 * the CLI runs a job); the process's, with Node and tsx starting, is printed beside it. COLMAP's
 * counts its three processes from spawn to exit. The load average before and after each set is
 * printed: work of others on the cores lengthens wall times, hardly CPU times.
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Quality } from "../shared/jobs.js";
import { measuredChildren } from "./child-usage.js";
import { colmapTakes, ensureColmap, runColmap, type ColmapStep } from "./colmap.js";
import { datasetInputs, datasetsRoot, listDatasets, repoRoot } from "./datasets.js";
import type { SpeedJobFigures } from "./speed-job.js";

const exec = promisify(execFile);

/** Issue 42's targets: our whole pipeline against COLMAP's sparse run (standard preset), and the job's average cores. */
const RATIO_TARGET = 0.5;
const CORES_TARGET = 1.8;

interface ColmapFigures {
  registered: number;
  wallS: number;
  cpuS: number;
  peakRssMiB?: number;
  steps: ColmapStep[];
  error?: string;
}

interface SetSpeed {
  set: string;
  pipeline?: SpeedJobFigures;
  /** The pipeline's process from spawn to exit, with Node's and tsx's start-up and its children. */
  process: { wallS: number; cpuS: number };
  colmap?: ColmapFigures;
  /** One-minute load average before the pipeline and after COLMAP. */
  load: [number, number];
  error?: string;
}

function fmt(value: number | undefined, digits = 1): string {
  return value === undefined || !Number.isFinite(value) ? "-" : value.toFixed(digits);
}

function cores(cpuS: number | undefined, wallS: number | undefined): string {
  return cpuS === undefined || !wallS ? "-" : fmt(cpuS / wallS, 2);
}

async function runPipelineJob(setDir: string, outDir: string, quality: Quality): Promise<Pick<SetSpeed, "pipeline" | "process" | "error">> {
  const jobArgs = [...process.execArgv, path.join(repoRoot, "bench", "speed-job.ts"), setDir, outDir, quality];
  const args = jobArgs.includes("tsx") ? jobArgs : ["--import", "tsx", ...jobArgs];
  try {
    const { result, wallS, cpuS } = await measuredChildren(() => exec(process.execPath, args, { maxBuffer: 64 * 2 ** 20, cwd: repoRoot }));
    const pipeline = JSON.parse(result.stdout.trim().split("\n").pop()!) as SpeedJobFigures;
    return { pipeline, process: { wallS, cpuS }, error: pipeline.error };
  } catch (err) {
    return { process: { wallS: NaN, cpuS: NaN }, error: err instanceof Error ? err.message.split("\n")[0] : String(err) };
  }
}

async function runColmapMeasured(files: Array<{ path: string; name: string }>, workRoot: string): Promise<ColmapFigures> {
  const run = await runColmap(files, workRoot);
  const peaks = run.steps.flatMap((s) => (s.peakRssMiB === undefined ? [] : [s.peakRssMiB]));
  return {
    registered: run.poses.length,
    wallS: run.seconds,
    cpuS: run.steps.reduce((sum, s) => sum + s.cpuS, 0),
    ...(peaks.length > 0 ? { peakRssMiB: Math.max(...peaks) } : {}),
    steps: run.steps,
    error: run.error,
  };
}

function printSet(r: SetSpeed, quality: Quality): void {
  const p = r.pipeline;
  console.log(`\n${r.set} (${quality}): ${p ? `${p.images} photos of ${p.files} inputs, ${p.registered} registered` : "no figures"}${r.error ? `; FAILED: ${r.error}` : ""}`);
  console.log(`  load average ${fmt(r.load[0], 2)} before, ${fmt(r.load[1], 2)} after`);
  if (p) {
    console.log("  | stage | wall s | CPU s | cores | peak MiB |\n  |---|---|---|---|---|");
    for (const s of p.stages) console.log(`  | ${s.stage} | ${fmt(s.wallS)} | ${fmt(s.cpuS)} | ${cores(s.cpuS, s.wallS)} | ${fmt(s.peakRssMiB, 0)} |`);
    console.log(`  | **job** | ${fmt(p.job.wallS)} | ${fmt(p.job.cpuS)} | ${cores(p.job.cpuS, p.job.wallS)} | ${fmt(p.job.peakRssMiB, 0)} |`);
    console.log(`  process (spawn to exit, with Node and tsx starting): ${fmt(r.process.wallS)} s wall, ${fmt(r.process.cpuS)} s CPU`);
    console.log(`  report.json stage wall s: ${Object.entries(p.reportStageS).map(([stage, s]) => `${stage} ${fmt(s)}`).join(", ")}`);
  }
  const c = r.colmap;
  if (!c) return;
  console.log(`  COLMAP sparse: ${c.registered} registered${c.error ? `; ${c.error}` : ""}`);
  if (c.steps.length === 0) return;
  console.log("  | COLMAP step | wall s | CPU s | cores | peak MiB |\n  |---|---|---|---|---|");
  for (const s of c.steps) console.log(`  | ${s.step} | ${fmt(s.wallS)} | ${fmt(s.cpuS)} | ${cores(s.cpuS, s.wallS)} | ${fmt(s.peakRssMiB, 0)} |`);
  console.log(`  | **sparse run** | ${fmt(c.wallS)} | ${fmt(c.cpuS)} | ${cores(c.cpuS, c.wallS)} | ${fmt(c.peakRssMiB, 0)} |`);
  if (p && c.wallS > 0 && !c.error) console.log(`  ours whole / COLMAP sparse: ${fmt(p.job.wallS / c.wallS, 2)} in wall time (target ≤ ${RATIO_TARGET} at standard), ${cpuRatio(r)} in CPU time`);
}

function ratioOf(r: SetSpeed): number | undefined {
  return r.pipeline && r.colmap && !r.colmap.error && r.colmap.wallS > 0 ? r.pipeline.job.wallS / r.colmap.wallS : undefined;
}

/** Our job's CPU time over COLMAP's: the ratio that others' work on the cores hardly moves. */
function cpuRatio(r: SetSpeed): string {
  return ratioOf(r) === undefined || !r.colmap!.cpuS ? "-" : fmt(r.pipeline!.job.cpuS / r.colmap!.cpuS, 2);
}

function printSummary(results: SetSpeed[], quality: Quality): void {
  console.log(`\nSummary (${quality}; wall and CPU in s, peak in MiB; cores = CPU / wall):`);
  console.log("| set | photos | ours reg | ours wall | ours CPU | ours cores | ours peak | COLMAP reg | COLMAP wall | COLMAP CPU | COLMAP cores | COLMAP peak | ratio | CPU ratio |");
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of results) {
    const p = r.pipeline;
    const c = r.colmap;
    const colmapCells = c && !c.error ? [String(c.registered), fmt(c.wallS), fmt(c.cpuS), cores(c.cpuS, c.wallS), fmt(c.peakRssMiB, 0)] : [c?.error ? "failed" : "n/a", "-", "-", "-", "-"];
    console.log(`| ${[r.set, p ? String(p.images) : "-", p ? String(p.registered) : "-", fmt(p?.job.wallS), fmt(p?.job.cpuS), cores(p?.job.cpuS, p?.job.wallS), fmt(p?.job.peakRssMiB, 0), ...colmapCells, fmt(ratioOf(r), 2), cpuRatio(r)].join(" | ")} |`);
  }
  const ratios = results.filter((r) => ratioOf(r) !== undefined);
  const jobs = results.filter((r) => r.pipeline && !r.error);
  if (ratios.length > 0) console.log(`ratio ≤ ${RATIO_TARGET}: ${ratios.filter((r) => ratioOf(r)! <= RATIO_TARGET).length} of ${ratios.length} sets with a COLMAP run${quality === "standard" ? "" : ` (the target is at standard; this ran ${quality})`}`);
  if (jobs.length > 0) console.log(`job's cores ≥ ${CORES_TARGET}: ${jobs.filter((r) => r.pipeline!.job.cpuS / r.pipeline!.job.wallS >= CORES_TARGET).length} of ${jobs.length} sets (${availableParallelism()} cores here)`);
}

function commitOf(): string {
  const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repoRoot }).toString().trim();
  const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: repoRoot }).toString().trim();
  return dirty ? `${head} with uncommitted changes` : head;
}

export async function run(args: string[]): Promise<void> {
  const qualityIndex = args.indexOf("--quality");
  const parsed = Quality.safeParse(qualityIndex >= 0 ? args[qualityIndex + 1] : "standard");
  if (!parsed.success) throw new Error(`bench speed: --quality must be one of ${Quality.options.join(", ")}`);
  const quality = parsed.data;
  const filters = args.filter((a, i) => !a.startsWith("--") && (qualityIndex < 0 || i !== qualityIndex + 1));
  const sets = await listDatasets(filters);
  const withColmap = !args.includes("--no-colmap") && (await ensureColmap());
  console.log(`bench speed: ${sets.length} sets, ${quality}, COLMAP ${withColmap ? "beside" : "not run"}; commit ${commitOf()}; ${availableParallelism()} cores`);
  const workRoot = await mkdtemp(path.join(tmpdir(), "bench-speed-"));
  const results: SetSpeed[] = [];
  try {
    for (const set of sets) {
      const setDir = path.join(datasetsRoot, set);
      const before = loadavg()[0];
      const job = await runPipelineJob(setDir, path.join(workRoot, set.replace(/\//g, "_")), quality);
      const files = await datasetInputs(setDir);
      // A video set has no COLMAP figures: its sparse run would need the frames extracted first.
      const colmap = withColmap && colmapTakes(files) ? await runColmapMeasured(files, workRoot) : undefined;
      const result: SetSpeed = { set, ...job, ...(colmap ? { colmap } : {}), load: [before, loadavg()[0]] };
      results.push(result);
      printSet(result, quality);
    }
  } finally {
    await rm(workRoot, { recursive: true, force: true });
  }
  printSummary(results, quality);
  const outDir = path.join(repoRoot, "bench/out");
  await mkdir(outDir, { recursive: true });
  await writeFile(path.join(outDir, "speed.json"), JSON.stringify({ quality, commit: commitOf(), cores: availableParallelism(), results }, null, 2));
  console.log(`wrote ${path.join(outDir, "speed.json")}`);
}
