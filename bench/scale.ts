/**
 * @module `npm run bench -- scale [--sizes=50,200,800] [--width=640] [--quality=standard] [--sparse-only] [--video=SECONDS] [--optimum] [--gps[=rtk]] [--control]`:
 * how cost grows with the photo count (issue "Large captures"). For each size it renders a
 * drone survey with known cameras (test/support/survey-scene.ts; cached in
 * bench-out/scale/survey-<n>-<width>/, so a rerun only reconstructs), reconstructs it with the
 * compute pipeline in a process of its own (scale-job.ts), and prints per stage the wall time,
 * the CPU time, the peak memory and the time per photo, then registration and camera errors.
 * Dense runs of a survey also print the dense cloud's precision, completeness and F-score
 * against the surface the true cameras see (surface-truth.ts).
 * The verdict line compares the wall time per photo of the largest size with the smallest's.
 * `--gps` renders the surveys with GPS fixes in their EXIF (σ 1.5 m horizontally, 3 m
 * vertically, survey-scene.ts; `--gps=rtk`: 2 and 3 cm, stated in DJI's XMP as RTK drones state them), which matching
 * pairs by and SfM holds the cameras to
 * (`--no-gps-priors`: pairs only, for comparison).
 * `--control` paints nine targets on the ground (survey-targets.ts) and sends five of them as
 * ground control and four as checkpoints, in WGS 84: the job prints the control and checkpoint
 * RMSE and the cameras' errors in the output system, without any alignment (issue 41).
 * `--video=120` also renders a 2-minute drone video (encoded at 3840 × 2160) and reconstructs it
 * the same way; `--sizes=` (empty) runs the video alone.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { WorkerPool } from "../compute/util/pool.js";
import ffmpegInstaller from "@ffmpeg-installer/ffmpeg";
import { surveyCapture, surveyVideo, type SurveyCapture } from "../test/support/survey-scene.js";
import { surveyControlPoints, surveyTargets, targetMarks, targetPrimitives } from "../test/support/survey-targets.js";
import type { RenderTask } from "./scale-render.js";
import type { ControlFigures, JobFigures } from "./scale-job.js";
import type { CameraAccuracy } from "../compute/stages/sfm/accuracy.js";
import type { ObservationsOptimum } from "./optimum.js";

const run$ = promisify(execFile);
const repoRoot = path.resolve(fileURLToPath(import.meta.url), "../..");

function option(args: string[], name: string, fallback: string): string {
  return args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
}

/**
 * Render every view of `capture` on worker threads (scale-render.ts) into `task.dir`, and write
 * the true cameras to `truthFile` under the names the pipeline will give them.
 */
async function renderWithTruth(task: Omit<RenderTask, "index">, capture: SurveyCapture, truthFile: string, nameOf: (view: number) => string): Promise<void> {
  const pool = new WorkerPool<RenderTask, { R: number[]; t: number[] }>(new URL("./scale-render.ts", import.meta.url), { size: availableParallelism() });
  try {
    const poses = await Promise.all(capture.names.map((_, index) => pool.run({ ...task, index })));
    const cameras = poses.map((pose, k) => ({ name: nameOf(k), ...pose }));
    await writeFile(truthFile, JSON.stringify({ sceneRadius: capture.sceneRadius, cameras }));
  } finally {
    await pool.close();
  }
}

/**
 * Render the survey of `images` photos (with GPS fixes in their EXIF when `gps`, painted targets
 * when `control`) unless the folder already holds all of them; returns its folder. With
 * `control`, the folder's control.json holds the targets as a surveyor sends them (WGS 84, five
 * control points and four checkpoints, marks clicked with 0.3 px noise: survey-targets.ts).
 */
async function renderSurvey(images: number, width: number, gps: "consumer" | "rtk" | undefined, control: boolean): Promise<string> {
  const height = Math.round((width * 3) / 4);
  const dir = path.join(repoRoot, "bench-out", "scale", `survey-${images}-${width}${gps === "consumer" ? "-gps" : gps === "rtk" ? "-rtk" : ""}${control ? "-gcp" : ""}`);
  const photos = path.join(dir, "photos");
  const truthFile = path.join(dir, "truth.json");
  const controlFile = path.join(dir, "control.json");
  if (existsSync(truthFile) && (!control || existsSync(controlFile)) && (await readdir(photos)).filter((n) => n.endsWith(".jpg")).length === images) return dir;
  await rm(dir, { recursive: true, force: true });
  await mkdir(photos, { recursive: true });
  const seed = 11;
  const targets = control ? surveyTargets(images, seed) : [];
  const capture = surveyCapture(images, seed, height / width, targetPrimitives(targets));
  const started = performance.now();
  await renderWithTruth({ kind: "survey", images, seed, width, height, dir: photos, gps, control }, capture, truthFile, (k) => `${capture.names[k]}.jpg`);
  if (control) {
    const marks = targetMarks(capture.def, targets, width, height, seed);
    await writeFile(controlFile, JSON.stringify(surveyControlPoints(targets, marks, capture.names.map((n) => `${n}.jpg`))));
  }
  console.log(`rendered ${images} photos ${width}×${height}${control ? " with nine targets" : ""} in ${((performance.now() - started) / 1000).toFixed(0)} s → ${path.relative(repoRoot, dir)}`);
  return dir;
}

/**
 * A drone video of `seconds` seconds at 30 fps over a town (three 5-long legs at altitude 1):
 * every frame rendered at 480 × 270 with its true camera, then scaled to 3840 × 2160 and encoded
 * as H.264 by the bundled ffmpeg, so ingest decodes a real 4K stream. Returns the folder.
 */
async function renderVideo(seconds: number): Promise<string> {
  const frames = Math.round(30 * seconds);
  const [width, height] = [480, 270];
  const dir = path.join(repoRoot, "bench-out", "scale", `video-${seconds}s`);
  const photos = path.join(dir, "photos");
  const truthFile = path.join(dir, "truth.json");
  const video = path.join(photos, "survey-video.mp4");
  if (existsSync(truthFile) && existsSync(video)) return dir;
  await rm(dir, { recursive: true, force: true });
  const framesDir = path.join(dir, "frames");
  await mkdir(framesDir, { recursive: true });
  await mkdir(photos, { recursive: true });
  const seed = 12;
  const capture = surveyVideo(frames, seed, 3, 5, height / width);
  const started = performance.now();
  await renderWithTruth({ kind: "video", images: frames, seed, width, height, dir: framesDir }, capture, truthFile, (k) => `survey-video.mp4#${k}`);
  await run$(ffmpegInstaller.path, ["-hide_banner", "-loglevel", "error", "-y", "-framerate", "30", "-i", path.join(framesDir, "frame_%05d.jpg"), "-vf", "scale=3840:2160:flags=bicubic", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "18", "-pix_fmt", "yuv420p", video], { maxBuffer: 2 ** 24 });
  await rm(framesDir, { recursive: true, force: true });
  console.log(`rendered a ${seconds}-s video (${frames} frames, encoded 3840×2160) in ${((performance.now() - started) / 1000).toFixed(0)} s → ${path.relative(repoRoot, dir)}`);
  return dir;
}

function fmt(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : "-";
}

/** The figures of a job with ground control: residuals at the points and the cameras' errors in the output system, without any alignment. */
function controlLine(c: ControlFigures): string {
  const rmse = (r: ControlFigures["check"]) => (r ? `${fmt(r.horizontalM, 3)} m h, ${fmt(r.verticalM, 3)} m v over ${r.points}` : "-");
  return [
    `  ground control (${c.applied ? "applied" : `NOT applied: ${c.reason ?? "?"}`}; ${c.crs ?? "no system"}, GSD ${fmt(c.gsdM, 3)} m): control RMSE ${rmse(c.control)}, checkpoint RMSE ${rmse(c.check)}${c.excluded.length ? `; left out: ${c.excluded.join(", ")}` : ""}`,
    `  cameras in the output system, no alignment: centre error median ${fmt(c.centreMedianM, 3)} m, max ${fmt(c.centreMaxM, 3)} m (${fmt(c.centreMedianM / c.gsdM, 2)} / ${fmt(c.centreMaxM / c.gsdM, 2)} GSD)`,
  ].join("\n");
}

/**
 * `--optimum` (instead of the timed runs): SfM again, then bundle adjustment of the model's own
 * observations from the true cameras (bench/scale-optimum.ts): the error any estimator would
 * have with these photos, and how far ours is from it.
 */
async function optimum(images: number, dir: string, width: number): Promise<void> {
  const height = Math.round((width * 3) / 4);
  const jobArgs = [...process.execArgv, path.join(repoRoot, "bench", "scale-optimum.ts"), dir, String(width), String(height)];
  const { stdout } = await run$(process.execPath, jobArgs.includes("tsx") ? jobArgs : ["--import", "tsx", ...jobArgs], { maxBuffer: 64 * 2 ** 20, cwd: repoRoot });
  const r = JSON.parse(stdout.trim().split("\n").pop()!) as { registered: number; model: CameraAccuracy; optimum: ObservationsOptimum | null };
  const line = (a: CameraAccuracy) => `rotation ${fmt(a.medianRotationErrorDeg, 3)}/${fmt(a.maxRotationErrorDeg, 3)}°, centre ${fmt(a.medianCenterErrorPercent, 3)}/${fmt(a.maxCenterErrorPercent, 3)} %`;
  console.log(`\n${images} photos: ${r.registered} registered`);
  console.log(`  model against the truth:              ${line(r.model)}`);
  if (!r.optimum) return console.log("  no optimum (too few cameras with a truth)");
  console.log(`  optimum of its observations vs truth: ${line(r.optimum.optimumVsTruth)} (RMS ${fmt(r.optimum.optimumRmsPx, 3)} px; truth ${fmt(r.optimum.truthRmsPx, 3)} px)`);
  console.log(`  model against that optimum:           ${line(r.optimum.modelVsOptimum)}`);
}

export async function run(args: string[]): Promise<void> {
  const sizes = option(args, "sizes", "50,200,800").split(",").map(Number).filter((n) => n > 0);
  await mkdir(path.join(repoRoot, "bench", "out"), { recursive: true });
  const width = Number(option(args, "width", "640"));
  const quality = option(args, "quality", "standard");
  const sparseOnly = args.includes("--sparse-only");
  // --gps: a consumer receiver's fixes; --gps=rtk: an RTK drone's, with their deviations in its XMP.
  const gps = args.includes("--gps") ? "consumer" : args.includes("--gps=rtk") ? "rtk" : undefined;
  const control = args.includes("--control");
  const results: Array<{ images: number; figures: JobFigures }> = [];
  const reconstruct = async (label: string, dir: string, photos?: number, survey?: string): Promise<JobFigures> => {
    const outDir = path.join(dir, `out-${quality}${sparseOnly ? "-sparse" : ""}`);
    await rm(outDir, { recursive: true, force: true });
    const controlFile = path.join(dir, "control.json");
    const jobArgs = [...process.execArgv, path.join(repoRoot, "bench", "scale-job.ts"), path.join(dir, "photos"), path.join(dir, "truth.json"), outDir, quality, ...(sparseOnly ? ["--sparse-only"] : []), ...(args.includes("--no-gps-priors") ? ["--no-gps-priors"] : []), ...(survey ? [`--survey=${survey}`] : []), ...(control && survey ? [`--control=${controlFile}`] : [])];
    const { stdout } = await run$(process.execPath, jobArgs.includes("tsx") ? jobArgs : ["--import", "tsx", ...jobArgs], { maxBuffer: 64 * 2 ** 20, cwd: repoRoot });
    const figures = JSON.parse(stdout.trim().split("\n").pop()!) as JobFigures;
    // Per photo, or per registered keyframe for a video.
    const images = photos ?? Math.max(1, figures.registered);
    console.log(`\n${label} (${quality}${sparseOnly ? ", sparse only" : ""}): ${figures.registered}/${figures.photos} registered; rotation median ${fmt(figures.rotationMedianDeg, 3)}° max ${fmt(figures.rotationMaxDeg, 3)}°, centre median ${fmt(figures.centreMedianPercent, 3)} % max ${fmt(figures.centreMaxPercent, 3)} % of the flown area's half-diagonal${figures.error ? `; FAILED: ${figures.error}` : ""}`);
    console.log("  stage      wall s   cpu s   peak MiB   wall ms/photo");
    for (const s of figures.stages) console.log(`  ${s.stage.padEnd(9)} ${fmt(s.wallS, 1).padStart(7)} ${fmt(s.cpuS, 1).padStart(7)} ${fmt(s.peakRssMiB, 0).padStart(10)} ${fmt((1000 * s.wallS) / images, 0).padStart(14)}`);
    if (figures.control) console.log(controlLine(figures.control));
    if (figures.dense) console.log(`  dense cloud against the seen surface (τ = ${figures.dense.tau} = 1 % of the altitude): precision ${fmt(figures.dense.precision, 3)}, completeness ${fmt(figures.dense.completeness, 3)}, F ${fmt(figures.dense.fScore, 3)} (${figures.dense.reconstructedPoints} points, ${figures.dense.truthSamples} true samples)`);
    if (figures.matchingSelectionS !== undefined) console.log(`  (matching's wall time includes pair selection ${fmt(figures.matchingSelectionS, 1)} s and keypoint refinement ${fmt(figures.keypointsS ?? NaN, 1)} s)`);
    console.log(`  total     ${fmt(figures.wallS, 1).padStart(7)} ${fmt(figures.cpuS, 1).padStart(7)} ${fmt(figures.peakRssMiB, 0).padStart(10)} ${fmt((1000 * figures.wallS) / images, 0).padStart(14)}`);
    if (figures.evaluationS !== undefined) console.log(`  (the bench's evaluation after the job: ${fmt(figures.evaluationS, 1)} s; the process's peak with it ${fmt(figures.processPeakRssMiB ?? NaN, 0)} MiB)`);
    return figures;
  };
  for (const images of sizes) {
    const dir = await renderSurvey(images, width, gps, control);
    if (args.includes("--optimum")) await optimum(images, dir, width);
    // The survey's definition (renderSurvey: seed 11, 4:3), so the job can sample its true surface.
    else results.push({ images, figures: await reconstruct(`${images} photos (${width} px)`, dir, images, `${images}:11:${width}x${Math.round((width * 3) / 4)}${control ? ":gcp" : ""}`) });
  }
  const videoSeconds = Number(option(args, "video", "0"));
  if (videoSeconds > 0) {
    const dir = await renderVideo(videoSeconds);
    const figures = await reconstruct(`a ${videoSeconds}-s 4K video (per registered keyframe)`, dir);
    await writeFile(path.join(repoRoot, "bench", "out", "scale-video.json"), JSON.stringify(figures, null, 2));
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
