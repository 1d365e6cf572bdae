/**
 * @module `npm run bench -- sfm [set-name-filter...] [--quality preview|standard|high] [--no-colmap] [--cold]`:
 * accuracy and speed of ingest → features → matching → sfm (with the pipeline's quality
 * preset, standard by default) on every dataset in ../shared/datasets, against the
 * ground-truth cameras and, where `colmap` is installed, against COLMAP's mapper on the same
 * images. Prints a table and writes bench/out/sfm.json.
 *
 * Our time is the compute service's: its pipeline thread keeps the front workers loaded
 * between jobs and starts them with the service, so they are loaded (untimed, reported once)
 * before the first set, and kept from set to set while their heaps stay small. `--cold` starts
 * them anew inside each set's time instead, as the CLI (one job per process) does. COLMAP's
 * time counts its three processes' start-up.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { FRESH_FRONT, KeptFrontWorkers, type FrontLease } from "../compute/pipeline/front-pool.js";
import { QUALITY_PRESETS, type StagePresets } from "../compute/pipeline/presets.js";
import * as features from "../compute/stages/features/index.js";
import type { RigidTransform } from "../compute/scene/index.js";
import { cameraAccuracy, type CameraAccuracy, type NamedPose } from "../compute/stages/sfm/accuracy.js";
import { ensureColmap, runColmap } from "./colmap.js";
import { datasetInputs, datasetsRoot, listDatasets, repoRoot } from "./datasets.js";
import { placeAsPipeline } from "./pipeline-front.js";


export interface GroundTruth {
  radius: number;
  cameras: NamedPose[];
  outliers: string[];
}

export interface SetResult {
  set: string;
  images: number;
  registered: number;
  outliersRegistered: string[];
  accuracy: CameraAccuracy | null;
  meanReprojectionErrorPx: number;
  /** Median refined focal vs a published K (sets with K.txt only), percent. */
  focalErrorPercent?: number;
  stageSeconds: Record<string, number>;
  totalSeconds: number;
  /** Front workers already loaded (the service's way) or started inside the set's time (`--cold`). */
  frontWorkers?: "kept" | "cold";
  peakRssMiB: number;
  error?: string;
  colmap?: { registered: number; accuracy: CameraAccuracy | null; meanReprojectionErrorPx: number; totalSeconds: number; error?: string };
}

function poseOf(entry: { R: number[][]; t: number[] }): RigidTransform {
  return { R: Float64Array.from(entry.R.flat()), t: Float64Array.from(entry.t) };
}

export async function loadGroundTruth(setDir: string): Promise<GroundTruth | null> {
  const file = path.join(setDir, "gt/cameras.json");
  if (!existsSync(file)) return null;
  const gt = JSON.parse(await readFile(file, "utf8")) as {
    scene: { radius: number };
    images?: Array<{ file: string; R: number[][]; t: number[]; outlier?: boolean }>;
    videos?: Array<{ file: string }>;
    frames?: Array<{ index: number; R: number[][]; t: number[] }>;
  };
  const cameras: NamedPose[] = (gt.images ?? []).filter((i) => !i.outlier).map((i) => ({ name: i.file, camFromWorld: poseOf(i) }));
  for (const video of (gt.videos ?? []).slice(0, 1)) {
    for (const f of gt.frames ?? []) cameras.push({ name: `${video.file}#${f.index}`, camFromWorld: poseOf(f) });
  }
  return { radius: gt.scene.radius, cameras, outliers: (gt.images ?? []).filter((i) => i.outlier).map((i) => i.file) };
}

/** Focal and principal point x of a published K.txt (3×3, row-major), if the set has one. */
async function loadPublishedK(setDir: string): Promise<{ focal: number; cx: number } | null> {
  const file = path.join(setDir, "K.txt");
  if (!existsSync(file)) return null;
  const k = (await readFile(file, "utf8")).trim().split(/\s+/).map(Number);
  return { focal: k[0], cx: k[2] };
}

async function benchSet(set: string, setDir: string, workRoot: string, preset: StagePresets, withColmap: boolean, front: FrontLease): Promise<SetResult> {
  const gt = await loadGroundTruth(setDir);
  const files = await datasetInputs(setDir);
  const seconds: Record<string, number> = {};
  const started = performance.now();
  const result: SetResult = { set, images: 0, registered: 0, outliersRegistered: [], accuracy: null, meanReprojectionErrorPx: 0, stageSeconds: seconds, totalSeconds: 0, peakRssMiB: 0 };
  try {
    // As the pipeline places them: matched again against simulated oblique views when photos are left out.
    const { images, placed } = await placeAsPipeline(files, path.join(workRoot, set.replace(/\//g, "_")), preset, seconds, front);
    result.images = images.length;
    const { model, report } = placed.sfm;
    const publishedK = await loadPublishedK(setDir);
    if (publishedK && model.views.length > 0) {
      // The published K is for the original size; ingest may have downscaled (2·cx ≈ original width).
      const focals = model.views.map((v) => v.intrinsics.focal / (v.intrinsics.width / (2 * publishedK.cx))).sort((a, b) => a - b);
      result.focalErrorPercent = (100 * Math.abs(focals[focals.length >> 1] - publishedK.focal)) / publishedK.focal;
    }
    result.registered = model.views.length;
    result.meanReprojectionErrorPx = report.counts.meanReprojectionErrorPx;
    result.outliersRegistered = model.views.filter((v) => gt?.outliers.includes(v.name)).map((v) => v.name);
    if (gt) result.accuracy = cameraAccuracy(model.views.map((v) => ({ name: v.name, camFromWorld: v.camFromWorld })), gt.cameras, gt.radius);
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
  }
  result.totalSeconds = (performance.now() - started) / 1000;
  result.peakRssMiB = process.resourceUsage().maxRSS / 1024;
  if (gt && withColmap && (await ensureColmap())) {
    const colmap = await runColmap(files, workRoot);
    result.colmap = {
      registered: colmap.poses.length,
      accuracy: colmap.poses.length >= 3 ? cameraAccuracy(colmap.poses, gt.cameras, gt.radius) : null,
      meanReprojectionErrorPx: colmap.meanReprojectionErrorPx,
      totalSeconds: colmap.seconds,
      error: colmap.error,
    };
  }
  return result;
}

function fmt(value: number | undefined, digits = 2): string {
  return value === undefined || !Number.isFinite(value) ? "-" : value.toFixed(digits);
}

const HEADER = ["set", "reg/total", "rot med/max °", "ctr med/max %r", "reproj px", "ingest s", "feat s", "match s", "kp s", "sfm s", "RSS MiB", "COLMAP reg", "COLMAP rot/ctr", "COLMAP reproj", "COLMAP s", "ours/COLMAP"];

function row(r: SetResult): string {
  const a = r.accuracy;
  const c = r.colmap;
  // COLMAP's time covers reading the images, feature extraction, matching and mapping: compare
  // with ingest (decoding) + features + matching + sfm, since the front workers start during ingest.
  const ours = (r.stageSeconds.ingest ?? 0) + (r.stageSeconds.features ?? 0) + (r.stageSeconds.matching ?? 0) + (r.stageSeconds.keypoints ?? 0) + (r.stageSeconds.sfm ?? 0);
  const cells = [
    r.set,
    `${r.registered}/${r.images}`,
    a ? `${fmt(a.medianRotationErrorDeg, 3)}/${fmt(a.maxRotationErrorDeg, 3)}` : "-",
    a ? `${fmt(a.medianCenterErrorPercent)}/${fmt(a.maxCenterErrorPercent)}` : "-",
    fmt(r.meanReprojectionErrorPx),
    fmt(r.stageSeconds.ingest, 1),
    fmt(r.stageSeconds.features, 1),
    fmt(r.stageSeconds.matching, 1),
    fmt(r.stageSeconds.keypoints, 1),
    fmt(r.stageSeconds.sfm, 1),
    fmt(r.peakRssMiB, 0),
    c ? String(c.registered) : "n/a",
    c?.accuracy ? `${fmt(c.accuracy.medianRotationErrorDeg, 3)}/${fmt(c.accuracy.medianCenterErrorPercent)}` : "-",
    c ? fmt(c.meanReprojectionErrorPx) : "-",
    c ? fmt(c.totalSeconds, 1) : "-",
    c && c.totalSeconds > 0 ? fmt(ours / c.totalSeconds) : "-",
  ];
  const notes: string[] = [];
  if (r.error) notes.push(`  ${r.set}: failed: ${r.error}`);
  if (r.focalErrorPercent !== undefined) notes.push(`  ${r.set}: median focal ${fmt(r.focalErrorPercent)}% from the published K`);
  if (r.outliersRegistered.length > 0) notes.push(`  ${r.set}: outlier images registered: ${r.outliersRegistered.join(", ")}`);
  if (c?.error) notes.push(`  ${r.set}: COLMAP: ${c.error}`);
  return [cells.join(" | "), ...notes].join("\n");
}

function printTable(results: SetResult[]): void {
  console.log(HEADER.join(" | "));
  for (const r of results) console.log(row(r));
}

export async function run(args: string[]): Promise<void> {
  const qualityIndex = args.indexOf("--quality");
  const quality = qualityIndex >= 0 ? (args[qualityIndex + 1] as keyof typeof QUALITY_PRESETS) : "standard";
  const preset = QUALITY_PRESETS[quality];
  if (!preset) throw new Error(`bench sfm: unknown quality ${quality}`);
  const filters = args.filter((a, i) => !a.startsWith("--") && args[i - 1] !== "--quality");
  const chosen = await listDatasets(filters);
  const workRoot = await mkdtemp(path.join(tmpdir(), "bench-sfm-"));
  const results: SetResult[] = [];
  const kept = args.includes("--cold") ? null : new KeptFrontWorkers();
  try {
    if (kept) {
      const started = performance.now();
      const count = preset.features.workers ?? features.DEFAULTS.workers;
      kept.prepare(count);
      const workers = kept.acquire(count);
      await workers.heapBytes();
      await kept.release(workers);
      console.log(`front workers loaded in ${((performance.now() - started) / 1000).toFixed(2)} s (service start-up, not counted; --cold counts it per set)`);
    }
    for (const set of chosen) {
      console.log(`running ${set}...`);
      const result = await benchSet(set, path.join(datasetsRoot, set), workRoot, preset, !args.includes("--no-colmap"), kept ?? FRESH_FRONT);
      result.frontWorkers = kept ? "kept" : "cold";
      results.push(result);
      console.log(`${HEADER.join(" | ")}\n${row(result)}`);
    }
  } finally {
    await kept?.close();
    await rm(workRoot, { recursive: true, force: true });
  }
  printTable(results);
  const outDir = path.join(repoRoot, "bench/out");
  await mkdir(outDir, { recursive: true });
  await writeFile(path.join(outDir, "sfm.json"), JSON.stringify(results, null, 2));
  console.log(`wrote ${path.join(outDir, "sfm.json")}`);
}
