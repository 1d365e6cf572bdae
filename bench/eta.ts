/**
 * @module `npm run bench -- eta [set filters...] [--photos=<dir>...] [--quality=standard] [--sparse-only]`:
 * how truthful the time left is that a client sees while a job runs.
 *
 * Runs the whole pipeline on each chosen set of `../shared/datasets` (or a folder of photos),
 * records every progress event with its time, and prints at 10, 25, 50, 75 and 90 % of the job's
 * real wall time the total the client was told, as a ratio of the real total (1.00 is exact, 0.50
 * told half of the real time). Three estimators from the same events, side by side: the one the
 * job runner sends (the pipeline's own time left, each stage at its measured pace over the job's
 * weights from stage-costs.ts); the elapsed time extrapolated linearly over the percentage with
 * the job's weights; the same with the former fixed weights
 * (`FIXED_*_WEIGHTS`, replayed from the events' stage fractions), as every job was told before.
 * Also per stage its wall time and share.
 * Writes bench/out/eta-<quality>-<sets>.json with every event.
 */
import { mkdtemp, readdir, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Quality } from "../shared/jobs.js";
import type { Stage } from "../shared/records.js";
import { runPipeline } from "../compute/pipeline/index.js";
import { FIXED_FULL_WEIGHTS, FIXED_SPARSE_WEIGHTS, ProgressTracker, completionAt, type ProgressEvent, type StageWeights } from "../compute/pipeline/progress.js";
import { datasetInputs, datasetsRoot, listDatasets, repoRoot } from "./datasets.js";

const CHECKPOINTS = [0.1, 0.25, 0.5, 0.75, 0.9];

interface TimedEvent extends ProgressEvent {
  atMs: number;
}

interface EtaRow {
  name: string;
  quality: Quality;
  sparseOnly: boolean;
  files: number;
  wallS: number;
  stages: Array<{ stage: Stage; wallS: number; share: number }>;
  /** Told total / real total at each checkpoint: the pipeline's stage-paced time left (what the job runner sends), the linear extrapolation with the job's weights, and with the fixed weights. */
  toldPaced: number[];
  told: number[];
  toldFixed: number[];
  error?: string;
  /** Every progress event: [ms since start, stage, stage fraction, overall %, time left ms or null], to replay other weights or estimators. */
  events: Array<[number, Stage, number, number, number | null]>;
}

/**
 * The told total / real total at each checkpoint, as the job runner computes it from the newest
 * event before it (progress.ts `completionAt`): with `paced`, the event's own time left counted
 * down (none told yet: NaN, the client holds the edge's first estimate), else (and once that has
 * run out) the linear extrapolation of its overall progress.
 */
function toldRatios(events: Array<{ atMs: number; progress: number; remainingMs?: number }>, totalMs: number, paced: boolean): number[] {
  return CHECKPOINTS.map((q) => {
    const at = q * totalMs;
    let last: { atMs: number; progress: number; remainingMs?: number } | undefined;
    for (const e of events) if (e.atMs <= at) last = e;
    if (!last) return NaN;
    const told = paced && last.remainingMs !== undefined ? { at: last.atMs, leftMs: last.remainingMs } : null;
    // The job runner sends no estimate before the pipeline tells one (the edge's first stands): NaN.
    if (paced && !told) return NaN;
    const end = completionAt(at, told, at, last.progress);
    return end === undefined ? NaN : end / totalMs;
  });
}

/** The same stage fractions mapped through other weights. */
function replay(events: TimedEvent[], weights: StageWeights): Array<{ atMs: number; progress: number }> {
  const out: Array<{ atMs: number; progress: number }> = [];
  let at = 0;
  const tracker = new ProgressTracker(weights, (e) => out.push({ atMs: at, progress: e.progress }));
  for (const e of events) {
    at = e.atMs;
    if (e.progress === 100) tracker.finish(e.stage, e.filesProcessed);
    else tracker.update(e.stage, e.stageFraction);
  }
  return out;
}

function stageShares(events: TimedEvent[], totalMs: number): EtaRow["stages"] {
  const firstAt = new Map<Stage, number>();
  for (const e of events) if (!firstAt.has(e.stage)) firstAt.set(e.stage, e.atMs);
  const order = [...firstAt.entries()];
  return order.map(([stage, start], i) => {
    const end = i + 1 < order.length ? order[i + 1][1] : totalMs;
    return { stage, wallS: (end - start) / 1000, share: (end - start) / totalMs };
  });
}

async function runOne(name: string, files: Array<{ path: string; name: string }>, quality: Quality, sparseOnly: boolean): Promise<EtaRow> {
  const workDir = await mkdtemp(path.join(tmpdir(), "eta-"));
  const events: TimedEvent[] = [];
  const started = performance.now();
  const row: EtaRow = { name, quality, sparseOnly, files: files.length, wallS: 0, stages: [], toldPaced: [], told: [], toldFixed: [], events: [] };
  try {
    await runPipeline({
      files,
      workDir: path.join(workDir, "work"),
      outDir: path.join(workDir, "out"),
      quality,
      sparseOnly,
      onProgress: (e) => events.push({ ...e, atMs: performance.now() - started }),
    });
  } catch (err) {
    row.error = (err as Error).message;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  const totalMs = performance.now() - started;
  row.wallS = totalMs / 1000;
  row.stages = stageShares(events, totalMs);
  row.toldPaced = toldRatios(events, totalMs, true);
  row.told = toldRatios(events, totalMs, false);
  row.toldFixed = toldRatios(replay(events, sparseOnly ? FIXED_SPARSE_WEIGHTS : FIXED_FULL_WEIGHTS), totalMs, false);
  row.events = events.map((e) => [Math.round(e.atMs), e.stage, Number(e.stageFraction.toFixed(4)), e.progress, e.remainingMs === undefined ? null : Math.round(e.remainingMs)]);
  return row;
}

const ratio = (r: number) => (Number.isNaN(r) ? "  –  " : r.toFixed(2));

export async function run(args: string[]): Promise<void> {
  const quality = (args.find((a) => a.startsWith("--quality="))?.slice(10) ?? "standard") as Quality;
  const sparseOnly = args.includes("--sparse-only");
  const folders = args.filter((a) => a.startsWith("--photos=")).map((a) => path.resolve(a.slice(9)));
  const filters = args.filter((a) => !a.startsWith("--"));
  const inputs: Array<{ name: string; files: Array<{ path: string; name: string }> }> = [];
  for (const dir of folders) {
    const names = (await readdir(dir)).filter((n) => /\.(jpe?g|png|heic|mp4|mov)$/i.test(n)).sort();
    const base = path.basename(dir);
    inputs.push({ name: base === "photos" ? path.basename(path.dirname(dir)) : base, files: names.map((n) => ({ path: path.join(dir, n), name: n })) });
  }
  if (folders.length === 0 || filters.length > 0) {
    for (const set of await listDatasets(filters)) inputs.push({ name: set, files: await datasetInputs(path.join(datasetsRoot, set)) });
  }
  const rows: EtaRow[] = [];
  console.log(`quality ${quality}${sparseOnly ? ", sparse only" : ""}; told total / real total at ${CHECKPOINTS.map((q) => `${q * 100} %`).join(", ")} of the job`);
  for (const input of inputs) {
    const row = await runOne(input.name, input.files, quality, sparseOnly);
    rows.push(row);
    const shares = row.stages.map((s) => `${s.stage} ${s.wallS.toFixed(1)} s (${(100 * s.share).toFixed(0)} %)`).join(", ");
    console.log(`${row.name}: ${row.files} files, ${row.wallS.toFixed(1)} s${row.error ? `, FAILED: ${row.error}` : ""}`);
    console.log(`  stages: ${shares}`);
    console.log(`  told/real, job weights, stage pace (sent): ${row.toldPaced.map(ratio).join("  ")}`);
    console.log(`  told/real, job weights, linear:            ${row.told.map(ratio).join("  ")}`);
    console.log(`  told/real, fixed weights, linear (before): ${row.toldFixed.map(ratio).join("  ")}`);
  }
  const outDir = path.join(repoRoot, "bench", "out");
  await mkdir(outDir, { recursive: true });
  const tag = [quality, sparseOnly ? "sparse" : "", ...inputs.map((i) => path.basename(i.name))].filter(Boolean).join("-");
  await writeFile(path.join(outDir, `eta-${tag}.json`), JSON.stringify(rows));
}
