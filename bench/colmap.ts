/**
 * @module COLMAP beside the pipeline: Debian's `colmap` (3.8, installed by apt-get when the
 * bench runs as root), its sparse-only run on a set's images (CPU SIFT feature_extractor,
 * exhaustive_matcher, incremental mapper) with each step's wall time, CPU time and peak
 * memory, and its model read back as camera poses. Used by the sfm, dense, subsets and speed
 * benches.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import type { NamedPose } from "../compute/stages/sfm/accuracy.js";
import { measuredChildren } from "./child-usage.js";
import { ensureDebianTool, runs } from "./debian-tool.js";

const exec = promisify(execFile);
/** The n/a notice is printed once. */
let colmapReported = false;

/** True when `colmap` runs; installs Debian's package first when root and apt-get can. */
export async function ensureColmap(): Promise<boolean> {
  const found = await ensureDebianTool("colmap", runs("colmap", ["help"]));
  if (!found && !colmapReported) console.log("bench: colmap not available; COLMAP columns are n/a");
  colmapReported = true;
  return found;
}

/** One COLMAP command: wall seconds from spawn to exit, CPU seconds (user + system, every thread), peak resident MiB (GNU time's %M; undefined without /usr/bin/time). */
export interface ColmapStep {
  step: string;
  wallS: number;
  cpuS: number;
  peakRssMiB?: number;
}

export interface ColmapRun {
  poses: NamedPose[];
  meanReprojectionErrorPx: number;
  /** Wall seconds of the three steps of the sparse run, from the first spawn to the mapper's exit. */
  seconds: number;
  /** feature_extractor, exhaustive_matcher, mapper (those that ran). */
  steps: ColmapStep[];
  error?: string;
}

/** Row-major rotation of the unit quaternion (w, x, y, z), COLMAP's images.txt order. */
function quaternionRotation(w: number, x: number, y: number, z: number): Float64Array {
  return new Float64Array([
    1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
    2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
    2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
  ]);
}

export function parseImagesTxt(text: string): NamedPose[] {
  const lines = text.split("\n").filter((l) => l.length > 0 && !l.startsWith("#"));
  const poses: NamedPose[] = [];
  // Two lines per image: the pose line, then its 2-D points.
  for (let i = 0; i < lines.length; i += 2) {
    const f = lines[i].trim().split(/\s+/);
    const [qw, qx, qy, qz, tx, ty, tz] = f.slice(1, 8).map(Number);
    poses.push({ name: f.slice(9).join(" "), camFromWorld: { R: quaternionRotation(qw, qx, qy, qz), t: new Float64Array([tx, ty, tz]) } });
  }
  return poses;
}

/** Observation-weighted mean of points3D.txt's per-point ERROR (as COLMAP's own summary). */
function parsePointsError(text: string): number {
  let sum = 0;
  let n = 0;
  for (const line of text.split("\n")) {
    if (line.length === 0 || line.startsWith("#")) continue;
    const f = line.trim().split(/\s+/);
    const views = (f.length - 8) / 2;
    sum += Number(f[7]) * views;
    n += views;
  }
  return n === 0 ? 0 : sum / n;
}

const TIME = "/usr/bin/time";

/** Runs `colmap args`, timed; under GNU time (when installed) for its peak memory, written to `dir`. */
async function measuredColmap(args: string[], dir: string): Promise<ColmapStep> {
  const usage = path.join(dir, `${args[0]}.time`);
  const withTime = existsSync(TIME);
  const { wallS, cpuS } = await measuredChildren(() =>
    withTime ? exec(TIME, ["-f", "%M", "-o", usage, "colmap", ...args], { maxBuffer: 1 << 26 }) : exec("colmap", args, { maxBuffer: 1 << 26 }),
  );
  // GNU time writes the maximum resident set size in KiB; a failed command's file starts with "Command exited…".
  const kib = withTime ? Number((await readFile(usage, "utf8")).trim().split("\n").pop()) : NaN;
  return { step: args[0], wallS, cpuS, ...(Number.isFinite(kib) ? { peakRssMiB: kib / 1024 } : {}) };
}

/** Whether COLMAP's sparse run can take `files`: photos only (a video would need its frames extracted first). */
export function colmapTakes(files: Array<{ name: string }>): boolean {
  return !files.some((f) => /\.(mp4|mov)$/i.test(f.name));
}

/** COLMAP's sparse run on `files` in a folder of its own under `workRoot` (removed after), and its largest model's poses. */
export async function runColmap(files: Array<{ path: string; name: string }>, workRoot: string): Promise<ColmapRun> {
  if (!colmapTakes(files)) return { poses: [], meanReprojectionErrorPx: 0, seconds: 0, steps: [], error: "video input: COLMAP needs frames, skipped" };
  const dir = await mkdtemp(path.join(workRoot, "colmap-"));
  const imageDir = path.join(dir, "images");
  await mkdir(imageDir);
  for (const f of files) await symlink(f.path, path.join(imageDir, f.name));
  const db = path.join(dir, "database.db");
  const sparse = path.join(dir, "sparse");
  const text = path.join(dir, "text");
  await mkdir(sparse);
  await mkdir(text);
  const steps: ColmapStep[] = [];
  const started = performance.now();
  try {
    steps.push(await measuredColmap(["feature_extractor", "--database_path", db, "--image_path", imageDir, "--SiftExtraction.use_gpu", "0"], dir));
    steps.push(await measuredColmap(["exhaustive_matcher", "--database_path", db, "--SiftMatching.use_gpu", "0"], dir));
    steps.push(await measuredColmap(["mapper", "--database_path", db, "--image_path", imageDir, "--output_path", sparse], dir));
    const seconds = (performance.now() - started) / 1000;
    const models = (await readdir(sparse)).sort();
    let best: ColmapRun = { poses: [], meanReprojectionErrorPx: 0, seconds, steps, error: "mapper produced no model" };
    for (const m of models) {
      const out = path.join(text, m);
      await mkdir(out);
      await exec("colmap", ["model_converter", "--input_path", path.join(sparse, m), "--output_path", out, "--output_type", "TXT"], { maxBuffer: 1 << 26 });
      const poses = parseImagesTxt(await readFile(path.join(out, "images.txt"), "utf8"));
      if (poses.length > best.poses.length) {
        best = { poses, meanReprojectionErrorPx: parsePointsError(await readFile(path.join(out, "points3D.txt"), "utf8")), seconds, steps };
      }
    }
    return best;
  } catch (err) {
    return { poses: [], meanReprojectionErrorPx: 0, seconds: (performance.now() - started) / 1000, steps, error: err instanceof Error ? err.message.split("\n")[0] : String(err) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
