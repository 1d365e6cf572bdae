/**
 * @module `npm run bench -- dense [set-name-filter...] [--quality=preview|standard|high]`:
 * the whole chain ingest → features → matching → sfm → dense → mesh on each dataset in
 * ../shared/datasets, with the stage options of the pipeline's quality preset
 * (compute/pipeline QUALITY_PRESETS; export is left out, bench/front.ts and the export tests
 * cover it). The stages are called one by one rather than through runPipeline because the
 * accuracy figures need the in-memory cameras and cloud, which runPipeline only writes to files.
 *
 * For sets with gt/surface.ply: the reconstructed camera centres are aligned to the true ones
 * by a robust similarity (geometry/similarity.ts), the dense points are mapped through it, and
 * accuracy (median distance to the true surface samples), completeness (share of samples with
 * a point within τ) and F-score are computed at τ = 1 % of scene.radius (datasets/README.md).
 * Prints wall time per stage and in total, peak RSS, point and face counts; writes
 * bench/out/dense.json.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Quality } from "../shared/jobs.js";
import { robustSimilarity } from "../compute/geometry/similarity.js";
import { KdTree } from "../compute/math/kdtree.js";
import { QUALITY_PRESETS } from "../compute/pipeline/presets.js";
import { cameraCenter, type PointCloud, type SparseModel } from "../compute/scene/index.js";
import * as dense from "../compute/stages/dense/index.js";
import * as features from "../compute/stages/features/index.js";
import * as ingest from "../compute/stages/ingest/index.js";
import * as matching from "../compute/stages/matching/index.js";
import * as mesh from "../compute/stages/mesh/index.js";
import * as sfm from "../compute/stages/sfm/index.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const datasetsRoot = path.resolve(repoRoot, "../shared/datasets");
const INPUT = /\.(jpe?g|png|heic|mp4)$/i;

interface SurfaceAccuracy {
  tau: number;
  accuracyMedian: number;
  precision: number;
  completeness: number;
  fScore: number;
  alignedCameras: number;
}

interface SetResult {
  set: string;
  images: number;
  registered: number;
  points: number;
  faces: number;
  stageSeconds: Record<string, number>;
  totalSeconds: number;
  peakRssMiB: number;
  denseKernel: string;
  surface: SurfaceAccuracy | null;
  error?: string;
}

interface GroundTruth {
  radius: number;
  centres: Map<string, Float64Array>;
  surface: Float32Array | null;
}

async function loadGroundTruth(setDir: string): Promise<GroundTruth | null> {
  const file = path.join(setDir, "gt/cameras.json");
  if (!existsSync(file)) return null;
  const gt = JSON.parse(await readFile(file, "utf8")) as { scene: { radius: number }; images?: Array<{ file: string; center: number[]; outlier?: boolean }> };
  const centres = new Map((gt.images ?? []).filter((i) => !i.outlier).map((i) => [i.file, Float64Array.from(i.center)]));
  const surfaceFile = path.join(setDir, "gt/surface.ply");
  return { radius: gt.scene.radius, centres, surface: existsSync(surfaceFile) ? readPlyPositions(await readFile(surfaceFile)) : null };
}

/** x, y, z of a binary little-endian PLY whose vertices are all float32 properties (the datasets' surface.ply). */
function readPlyPositions(bytes: Buffer): Float32Array {
  const headerEnd = bytes.indexOf("end_header\n") + "end_header\n".length;
  const header = bytes.subarray(0, headerEnd).toString("latin1");
  if (!header.includes("binary_little_endian")) throw new Error("bench dense: surface.ply is not binary little endian");
  const count = Number(/element vertex (\d+)/.exec(header)?.[1] ?? 0);
  const properties = header.split("\n").filter((l) => l.startsWith("property float")).length;
  const data = new DataView(bytes.buffer, bytes.byteOffset + headerEnd);
  const out = new Float32Array(3 * count);
  for (let i = 0; i < count; i++) for (let a = 0; a < 3; a++) out[3 * i + a] = data.getFloat32(4 * (properties * i + a), true);
  return out;
}

/** Align cameras to the truth by name, map the cloud into the true frame and score it at τ = 1 % of the radius. */
function surfaceAccuracy(model: SparseModel, cloud: PointCloud, gt: GroundTruth): SurfaceAccuracy | null {
  if (!gt.surface || cloud.count === 0) return null;
  const src: number[] = [];
  const dst: number[] = [];
  for (const view of model.views) {
    const truth = gt.centres.get(view.name);
    if (!truth) continue;
    src.push(...cameraCenter(view.camFromWorld));
    dst.push(...truth);
  }
  const sim = robustSimilarity(src, dst, src.length / 3);
  if (!sim) return null;
  const aligned = new Float64Array(3 * cloud.count);
  for (let i = 0; i < cloud.count; i++) {
    const p = cloud.positions.subarray(3 * i, 3 * i + 3);
    for (let r = 0; r < 3; r++) aligned[3 * i + r] = sim.s * (sim.R[3 * r] * p[0] + sim.R[3 * r + 1] * p[1] + sim.R[3 * r + 2] * p[2]) + sim.t[r];
  }
  const tau = 0.01 * gt.radius;
  const toTruth = nearestDistances(aligned, gt.surface);
  const toCloud = nearestDistances(gt.surface, aligned);
  const precision = toTruth.filter((d) => d <= tau).length / toTruth.length;
  const completeness = toCloud.filter((d) => d <= tau).length / toCloud.length;
  const sorted = Float64Array.from(toTruth).sort();
  return {
    tau,
    accuracyMedian: sorted[Math.floor(sorted.length / 2)],
    precision,
    completeness,
    fScore: precision + completeness > 0 ? (2 * precision * completeness) / (precision + completeness) : 0,
    alignedCameras: sim.inlierCount,
  };
}

/** Distance from each query point to its nearest point of `points` (both 3·n). */
function nearestDistances(queries: Float32Array | Float64Array, points: Float32Array | Float64Array): Float64Array {
  const tree = new KdTree(points);
  const out = new Float64Array(queries.length / 3);
  for (let i = 0; i < out.length; i++) {
    const x = queries[3 * i];
    const y = queries[3 * i + 1];
    const z = queries[3 * i + 2];
    const j = tree.nearest(x, y, z);
    out[i] = Math.hypot(points[3 * j] - x, points[3 * j + 1] - y, points[3 * j + 2] - z);
  }
  return out;
}

async function inputsOf(setDir: string): Promise<Array<{ path: string; name: string }>> {
  const imagesDir = path.join(setDir, "images");
  const dir = existsSync(imagesDir) ? imagesDir : setDir;
  const names = (await readdir(dir)).filter((n) => INPUT.test(n)).sort();
  // Video sets: the first video only (the others are the same footage in another container).
  const chosen = dir === setDir ? names.slice(0, 1) : names;
  return chosen.map((name) => ({ path: path.join(dir, name), name }));
}

async function timed<T>(seconds: Record<string, number>, stage: string, work: () => Promise<T> | T): Promise<T> {
  const started = performance.now();
  const result = await work();
  seconds[stage] = (performance.now() - started) / 1000;
  return result;
}

async function benchSet(set: string, quality: Quality, workRoot: string): Promise<SetResult> {
  const setDir = path.join(datasetsRoot, set);
  const preset = QUALITY_PRESETS[quality];
  const seconds: Record<string, number> = {};
  const result: SetResult = { set, images: 0, registered: 0, points: 0, faces: 0, stageSeconds: seconds, totalSeconds: 0, peakRssMiB: 0, denseKernel: "-", surface: null };
  const started = performance.now();
  try {
    const gt = await loadGroundTruth(setDir);
    const files = await inputsOf(setDir);
    const { images } = await timed(seconds, "ingest", () => ingest.run({ files, workDir: path.join(workRoot, set.replace(/\//g, "_")) }, preset.ingest));
    result.images = images.length;
    const detected = await timed(seconds, "features", () => features.run({ images }, preset.features));
    const matched = await timed(seconds, "matching", () => matching.run({ images, features: detected.features }, preset.matching));
    const { model } = await timed(seconds, "sfm", () => sfm.run({ images, features: detected.features, pairs: matched.pairs, tracks: matched.tracks }, preset.sfm));
    result.registered = model.views.length;
    const densified = await timed(seconds, "dense", () => dense.run({ images, model }, preset.dense));
    result.points = densified.cloud.count;
    result.denseKernel = densified.report.counts.kernelWasm ? "wasm-simd" : "typescript";
    const meshed = await timed(seconds, "mesh", () => mesh.run({ cloud: densified.cloud, views: model.views, images }, preset.mesh));
    result.faces = meshed.mesh.faceCount;
    if (gt) result.surface = surfaceAccuracy(model, densified.cloud, gt);
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
  }
  result.totalSeconds = (performance.now() - started) / 1000;
  result.peakRssMiB = process.resourceUsage().maxRSS / 1024;
  return result;
}

function fmt(value: number | undefined, digits = 2): string {
  return value === undefined || !Number.isFinite(value) ? "-" : value.toFixed(digits);
}

function printTable(results: SetResult[], quality: Quality): void {
  console.log(`quality ${quality}; τ = 1 % of scene radius; accuracy in % of radius`);
  const stages = ["ingest", "features", "matching", "sfm", "dense", "mesh"];
  console.log(["set", "reg/img", "points", "faces", "acc %r", "prec", "compl", "F", ...stages.map((s) => `${s} s`), "total s", "peak RSS MiB", "kernel"].join(" | "));
  for (const r of results) {
    const s = r.surface;
    const radius = s ? s.tau / 0.01 : NaN;
    console.log(
      [
        r.set,
        `${r.registered}/${r.images}`,
        String(r.points),
        String(r.faces),
        s ? fmt((100 * s.accuracyMedian) / radius, 3) : "-",
        s ? fmt(s.precision, 3) : "-",
        s ? fmt(s.completeness, 3) : "-",
        s ? fmt(s.fScore, 3) : "-",
        ...stages.map((st) => fmt(r.stageSeconds[st], 1)),
        fmt(r.totalSeconds, 1),
        fmt(r.peakRssMiB, 0),
        r.denseKernel,
      ].join(" | "),
    );
    if (r.error) console.log(`  ${r.set}: failed: ${r.error}`);
  }
}

export async function run(args: string[]): Promise<void> {
  const quality = (args.find((a) => a.startsWith("--quality="))?.split("=")[1] ?? "preview") as Quality;
  if (!(quality in QUALITY_PRESETS)) throw new Error(`bench dense: unknown quality ${quality}`);
  const filters = args.filter((a) => !a.startsWith("--"));
  const sets: string[] = [];
  for (const group of ["synthetic", "real"]) {
    const dir = path.join(datasetsRoot, group);
    if (!existsSync(dir)) continue;
    for (const name of (await readdir(dir)).sort()) sets.push(`${group}/${name}`);
  }
  const chosen = sets.filter((s) => filters.length === 0 || filters.some((f) => s.includes(f)));
  const workRoot = await mkdtemp(path.join(tmpdir(), "bench-dense-"));
  const results: SetResult[] = [];
  try {
    for (const set of chosen) {
      console.log(`running ${set}...`);
      results.push(await benchSet(set, quality, workRoot));
    }
  } finally {
    await rm(workRoot, { recursive: true, force: true });
  }
  printTable(results, quality);
  const outDir = path.join(repoRoot, "bench/out");
  await mkdir(outDir, { recursive: true });
  await writeFile(path.join(outDir, "dense.json"), JSON.stringify(results, null, 2));
  console.log(`wrote ${path.join(outDir, "dense.json")}`);
}
