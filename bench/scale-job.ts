/**
 * @module One reconstruction of `npm run bench -- scale`, in a process of its own so that its
 * peak memory is its own: `tsx bench/scale-job.ts <photos dir> <truth.json> <out dir> <quality> [--sparse-only]`.
 * Runs compute/pipeline's runPipeline on the photos and prints one JSON line: per stage the wall
 * time, the CPU time of the whole process (every thread) and the peak resident memory
 * (stage-meter.ts); the registration count and the camera errors against the truth, read back from
 * the COLMAP export the user would download. With `--survey=<photos>:<seed>:<width>x<height>`
 * and a dense run, also the dense cloud's (model.ply) precision, completeness and F-score
 * against the surface the true cameras see (surface-truth.ts), after the similarity that maps
 * the exported cameras onto the true ones. With `--control=<control.json>` the job carries
 * those ground control points, and the figures their residuals and the cameras' absolute errors.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { unzipSync } from "fflate";
import type { Quality } from "../shared/jobs.js";
import { QUALITY_PRESETS, runPipeline } from "../compute/pipeline/index.js";
import { robustSimilarity } from "../compute/geometry/similarity.js";
import { cameraCenter } from "../compute/scene/index.js";
import { cameraAccuracy, type NamedPose } from "../compute/stages/sfm/accuracy.js";
import { surveyCapture } from "../test/support/survey-scene.js";
import { geographicOf, surveyTargets, targetPrimitives } from "../test/support/survey-targets.js";
import { epsgEntry, transformBetween, WGS84_GEOGRAPHIC } from "../compute/pipeline/crs.js";
import type { ControlReport, RoleRmse } from "../compute/stages/sfm/control-report.js";
import type { ControlPoints } from "../shared/control-points.js";
import { parseImagesTxt } from "./colmap.js";
import { processFigures, StageMeter, type StageFigures } from "./stage-meter.js";
import { readServicePly, surfaceScore, visibleSurfaceSamples, type SurfaceScore } from "./surface-truth.js";

export interface JobFigures {
  photos: number;
  registered: number;
  stages: StageFigures[];
  /** The job: from the pipeline's start to its last output, before the bench's own evaluation. */
  wallS: number;
  cpuS: number;
  peakRssMiB: number;
  /** The bench's evaluation after the job (reading the outputs, camera errors, dense F-score). */
  evaluationS?: number;
  /** The process's peak with that evaluation (the dense score reads the whole cloud). */
  processPeakRssMiB?: number;
  rotationMedianDeg: number;
  rotationMaxDeg: number;
  centreMedianPercent: number;
  centreMaxPercent: number;
  /** Parts of the "matching" progress stage, from report.json: pair selection (retrieval) and keypoint refinement, wall seconds. */
  matchingSelectionS?: number;
  keypointsS?: number;
  /** The dense cloud against the seen surface, at τ = DENSE_TAU (surveys, dense runs). */
  dense?: SurfaceScore;
  /** With `--control`: the residuals at the points and the cameras' absolute errors. */
  control?: ControlFigures;
  error?: string;
}

/**
 * τ of the dense score: 1 % of the flight altitude, about 7 ground pixels at 640 px (the
 * survey's focal is 1.1 image widths), so the score sees a misplaced surface, not pixel noise.
 */
const DENSE_TAU = 0.01;
/** Every 8th pixel of every true camera is a truth sample (with ~10 views over each spot, ~3 mm apart on the ground). */
const TRUTH_STRIDE = 8;

/** The dense cloud's score against the surface the true cameras of survey `spec` (`<photos>:<seed>:<width>x<height>[:gcp]`, gcp: with its painted targets) see. */
function denseScore(spec: string, cloud: Float64Array, estimated: NamedPose[], known: NamedPose[]): SurfaceScore | undefined {
  const [photos, seed, size, targets] = spec.split(":");
  const [width, height] = size.split("x").map(Number);
  const byName = new Map(known.map((k) => [k.name, k]));
  const pairs = estimated.filter((e) => byName.has(e.name));
  const src = pairs.flatMap((e) => [...cameraCenter(e.camFromWorld)]);
  const dst = pairs.flatMap((e) => [...cameraCenter(byName.get(e.name)!.camFromWorld)]);
  const sim = robustSimilarity(src, dst, pairs.length);
  if (!sim) return undefined;
  const aligned = new Float64Array(cloud.length);
  for (let i = 0; i < cloud.length; i += 3) {
    for (let r = 0; r < 3; r++) aligned[i + r] = sim.scale * (sim.R[3 * r] * cloud[i] + sim.R[3 * r + 1] * cloud[i + 1] + sim.R[3 * r + 2] * cloud[i + 2]) + sim.t[r];
  }
  const { def } = surveyCapture(Number(photos), Number(seed), height / width, targets === "gcp" ? targetPrimitives(surveyTargets(Number(photos), Number(seed))) : []);
  return surfaceScore(aligned, visibleSurfaceSamples(def, width, height, TRUTH_STRIDE), DENSE_TAU);
}

export interface ControlFigures {
  applied: boolean;
  reason?: string;
  /** The output system (report.json georeference.crs) and the survey's ground sampling distance. */
  crs?: string;
  gsdM: number;
  control: RoleRmse | null;
  check: RoleRmse | null;
  /** Control points left out of the adjustment. */
  excluded: string[];
  /** Each camera's centre against its true position in the output system, metres, with no alignment: what a surveyor's own check would find. */
  centreMedianM: number;
  centreMaxM: number;
}

/**
 * The control figures of a finished job: the SfM report's control section, and the exported
 * cameras (output system's metres minus `georeference.offset`, Z up) against the true camera
 * centres taken through the same WGS 84 → output system transformation as the targets.
 */
function controlFigures(report: { stages: Array<{ stage: string }>; georeference?: { crs: string; offset: [number, number, number]; gsdM?: number } }, estimated: NamedPose[], known: NamedPose[]): ControlFigures {
  const sfm = report.stages.find((s) => s.stage === "sfm") as unknown as { control?: ControlReport };
  const control = sfm?.control;
  const figures: ControlFigures = {
    applied: control?.applied ?? false,
    ...(control?.reason ? { reason: control.reason } : {}),
    ...(report.georeference ? { crs: report.georeference.crs } : {}),
    gsdM: report.georeference?.gsdM ?? NaN,
    control: control?.rmse.control ?? null,
    check: control?.rmse.check ?? null,
    excluded: (control?.points ?? []).filter((p) => p.role === "control" && !p.used).map((p) => p.name),
    centreMedianM: NaN,
    centreMaxM: NaN,
  };
  const code = Number(report.georeference?.crs.replace(/^EPSG:/, ""));
  const entry = Number.isFinite(code) ? epsgEntry(code) : undefined;
  if (!report.georeference || !entry) return figures;
  const toOutput = transformBetween(WGS84_GEOGRAPHIC, entry.proj4);
  const offset = report.georeference.offset;
  const byName = new Map(known.map((k) => [k.name, k]));
  const errors = estimated.filter((e) => byName.has(e.name)).map((e) => {
    const truth = toOutput(geographicOf(cameraCenter(byName.get(e.name)!.camFromWorld)));
    const centre = cameraCenter(e.camFromWorld);
    return Math.hypot(centre[0] + offset[0] - truth[0], centre[1] + offset[1] - truth[1], centre[2] + offset[2] - truth[2]);
  }).sort((a, b) => a - b);
  if (errors.length > 0) Object.assign(figures, { centreMedianM: errors[errors.length >> 1], centreMaxM: errors[errors.length - 1] });
  return figures;
}

interface Truth {
  sceneRadius: number;
  cameras: Array<{ name: string; R: number[]; t: number[] }>;
}

async function main(): Promise<void> {
  const [photosDir, truthFile, outDir, quality] = process.argv.slice(2);
  const sparseOnly = process.argv.includes("--sparse-only");
  const survey = process.argv.find((a) => a.startsWith("--survey="))?.slice("--survey=".length);
  const controlFile = process.argv.find((a) => a.startsWith("--control="))?.slice("--control=".length);
  const controlPoints = controlFile ? (JSON.parse(await readFile(controlFile, "utf8")) as ControlPoints) : undefined;
  // For comparison only: the same photos with their GPS fixes used for pairs but not as priors.
  if (process.argv.includes("--no-gps-priors")) {
    const preset = QUALITY_PRESETS[quality as Quality];
    preset.sfm = { ...preset.sfm, gpsPriors: false };
  }
  const truth = JSON.parse(await readFile(truthFile, "utf8")) as Truth;
  const names = (await readdir(photosDir)).filter((n) => /\.(jpg|mp4)$/.test(n)).sort();
  const files = names.map((name) => ({ path: path.join(photosDir, name), name }));
  const workDir = await mkdtemp(path.join(tmpdir(), "scale-"));
  const meter = new StageMeter();
  const started = performance.now();
  const figures: JobFigures = { photos: files.length, registered: 0, stages: meter.stages, wallS: 0, cpuS: 0, peakRssMiB: 0, rotationMedianDeg: NaN, rotationMaxDeg: NaN, centreMedianPercent: NaN, centreMaxPercent: NaN };
  try {
    await runPipeline({
      files,
      workDir,
      outDir,
      quality: quality as Quality,
      sparseOnly,
      ...(controlPoints ? { control_points: controlPoints } : {}),
      onProgress: meter.onProgress,
    });
    meter.stop();
    jobFigures(figures, started);
    const zip = unzipSync(new Uint8Array(await readFile(path.join(outDir, (await readdir(outDir)).find((n) => n.includes("colmap"))!))));
    const estimated: NamedPose[] = parseImagesTxt(new TextDecoder().decode(zip["images.txt"]));
    const known: NamedPose[] = truth.cameras.map((c) => ({ name: c.name, camFromWorld: { R: Float64Array.from(c.R), t: Float64Array.from(c.t) } }));
    const accuracy = cameraAccuracy(estimated, known, truth.sceneRadius);
    figures.registered = estimated.length;
    figures.rotationMedianDeg = accuracy.medianRotationErrorDeg;
    figures.rotationMaxDeg = accuracy.maxRotationErrorDeg;
    figures.centreMedianPercent = accuracy.medianCenterErrorPercent;
    figures.centreMaxPercent = accuracy.maxCenterErrorPercent;
    const ply = path.join(outDir, (await readdir(outDir)).find((n) => n.endsWith(".ply")) ?? "model.ply");
    if (survey && !sparseOnly) figures.dense = denseScore(survey, readServicePly(new Uint8Array(await readFile(ply))), estimated, known);
    const report = JSON.parse(await readFile(path.join(outDir, "report.json"), "utf8")) as Omit<Parameters<typeof controlFigures>[0], "stages"> & { stages: Array<{ stage: string; wallMs: number; counts?: Record<string, number> }> };
    if (controlPoints) figures.control = controlFigures(report, estimated, known);
    const selectionMs = report.stages.find((s) => s.stage === "matching")?.counts?.selectionMs;
    const keypointsMs = report.stages.find((s) => s.stage === "keypoints")?.wallMs;
    if (selectionMs !== undefined) figures.matchingSelectionS = selectionMs / 1000;
    if (keypointsMs !== undefined) figures.keypointsS = keypointsMs / 1000;
  } catch (err) {
    meter.stop();
    if (figures.wallS === 0) jobFigures(figures, started);
    figures.error = (err as Error).message;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  figures.evaluationS = (performance.now() - started) / 1000 - figures.wallS;
  figures.processPeakRssMiB = process.resourceUsage().maxRSS / 1024;
  console.log(JSON.stringify(figures));
}

/**
 * The job's wall and CPU time and peak resident memory so far, taken when the pipeline returns:
 * the evaluation after it is the bench's, not the job's. At 800 photos it reads a cloud of 31 M
 * points for the F-score: 277 s and 3,379 MiB of its own, run alone on the outputs; counted in
 * the job, the process's peak (5,219 MiB) stood 1.2 GiB above any stage's (export, 4,001).
 */
function jobFigures(figures: JobFigures, started: number): void {
  Object.assign(figures, processFigures(started));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
