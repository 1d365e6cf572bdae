/**
 * @module The reconstruction pipeline: ingest → features → matching → sfm → (dense → mesh →
 * texture) → export, one monotone progress percentage over all of it, and report.json in the output folder.
 *
 * Stages pass scene/ types to each other only through here (stages never import each other).
 * Failures a client can act on are PipelineErrors with a docs/API.md failure code and a
 * suggestion; anything else is a bug and propagates as is (the job runner reports it as
 * `processing_error`).
 */
import { mkdir, stat } from "node:fs/promises";
import path from "node:path";
import type { Format } from "../../shared/formats.js";
import { MODEL_FORMATS } from "../../shared/formats.js";
import type { JobOptions } from "../../shared/jobs.js";
import type { Stage } from "../../shared/records.js";
import { PipelineError, type ImageRef, type Mesh, type PointCloud, type SkippedInput, type SparseModel, type StageReport, type TexturedMesh } from "../scene/index.js";
import * as dense from "../stages/dense/index.js";
import * as exporter from "../stages/export/index.js";
import * as features from "../stages/features/index.js";
import * as ingest from "../stages/ingest/index.js";
import * as keypoints from "../stages/keypoints/index.js";
import * as matching from "../stages/matching/index.js";
import * as mesh from "../stages/mesh/index.js";
import * as texture from "../stages/texture/index.js";
import { FRESH_FRONT, holdFront, type FrontLease } from "./front-pool.js";
import { startLateWorkers, type LateWorkers } from "./late-pool.js";
import { writeCloudAhead } from "./cloud-ahead.js";
import { faceBudgetFor, QUALITY_PRESETS } from "./presets.js";
import { FIXED_FULL_WEIGHTS, FIXED_SPARSE_WEIGHTS, ProgressTracker, type ProgressEvent, type StageWeights } from "./progress.js";
import { costOptions, jobWeights } from "./stage-costs.js";
import { writeReport, type PipelineOutput, type PipelineReport } from "./report.js";
import { placeCameras, WIDE_BASELINE_MAX_IMAGES } from "./place-cameras.js";
import { locate, outputEpsgOf, surveyInputs, type Located } from "./locate.js";
import { controlResiduals, controlSetup, locateByControl, type ControlSetup } from "./control.js";
import { measureForReport, writeQualityReport } from "./quality.js";
import { writeSurveyRasters } from "./survey-rasters.js";
import type { ModelMeasures } from "../stages/quality-report/index.js";
import type { ControlReport } from "../stages/sfm/index.js";

export { faceBudgetFor, QUALITY_PRESETS } from "./presets.js";
export type { PipelineOutput, PipelineReport } from "./report.js";
export type { ProgressEvent } from "./progress.js";

/** A job's options (shared/jobs.ts JobOptions, as the job message carries them), its files and folders, and how to run it. */
export interface PipelineInput extends JobOptions {
  files: Array<{ path: string; name: string }>;
  workDir: string;
  outDir: string;
  /** Stop after SfM and export the sparse points and cameras (model.glb, model.ply). */
  sparseOnly?: boolean;
  onProgress?: (p: ProgressEvent) => void;
  /** Where features and matching get their worker threads; default: started for this job, closed after matching. */
  front?: FrontLease;
  /** Detects features elsewhere (batches as tasks on other containers) when it takes the set; default: here. */
  featureRunner?: features.BatchRunner;
  /** Matches pair batches elsewhere (tasks on other containers) when there are more pairs than a batch; default: here. */
  pairRunner?: matching.PairBatchRunner;
  /** Solves dense clusters elsewhere (tasks on other containers) when there is more than one; default: here. */
  denseRunner?: dense.ClusterRunner;
  /** Most views per dense cluster, overriding the preset (a container's memory bounds a task's size). */
  denseClusterViews?: number;
  /** The dense stage's random seed, overriding its default (`npm run reconstruct -- --seed`). */
  denseSeed?: number;
}

export interface PipelineResult {
  report: PipelineReport;
  outputs: PipelineOutput[];
}

/** Formats written from a sparse model (points + cameras, no surface). */
const SPARSE_FORMATS: Format[] = ["glb", "ply", "colmap", "transforms"];

/** The sparse points as a point cloud (normals point from the points towards the cameras that see them). */
export function sparseCloud(model: SparseModel): PointCloud {
  const { points, views } = model;
  const positions = new Float32Array(3 * points.count);
  const normals = new Float32Array(3 * points.count);
  const centers = views.map((v) => {
    const { R, t } = v.camFromWorld;
    return [-(R[0] * t[0] + R[3] * t[1] + R[6] * t[2]), -(R[1] * t[0] + R[4] * t[1] + R[7] * t[2]), -(R[2] * t[0] + R[5] * t[1] + R[8] * t[2])];
  });
  for (let p = 0; p < points.count; p++) {
    const n = [0, 0, 0];
    for (let o = points.obsOffsets[p]; o < points.obsOffsets[p + 1]; o++) {
      const c = centers[points.obsViews[o]];
      const d = [c[0] - points.xyz[3 * p], c[1] - points.xyz[3 * p + 1], c[2] - points.xyz[3 * p + 2]];
      const len = Math.hypot(d[0], d[1], d[2]) || 1;
      for (let a = 0; a < 3; a++) n[a] += d[a] / len;
    }
    const len = Math.hypot(n[0], n[1], n[2]) || 1;
    for (let a = 0; a < 3; a++) {
      positions[3 * p + a] = points.xyz[3 * p + a];
      normals[3 * p + a] = n[a] / len;
    }
  }
  return { count: points.count, positions, colors: points.rgb.slice(), normals };
}

/** The stages of this job, weighted as before ingest has read the uploads. */
function baseWeights(input: PipelineInput): StageWeights {
  return input.sparseOnly ? FIXED_SPARSE_WEIGHTS : FIXED_FULL_WEIGHTS;
}

interface Timeline {
  tracker: ProgressTracker;
  reports: StageReport[];
}

/**
 * Run one stage with its progress mapped into the overall percentage. Only ingest's progress
 * counts input files (its fraction is files read); later stages count images or keyframes,
 * which are not the API's `files_processed`.
 */
async function stage<T>(timeline: Timeline, name: Stage, work: (progress: (fraction: number, done?: number) => void) => Promise<T> | T, fileCount?: number): Promise<T> {
  const filesAt = (fraction: number) => (fileCount === undefined ? undefined : Math.round(fraction * fileCount));
  timeline.tracker.update(name, 0, filesAt(0));
  const result = await work((fraction) => timeline.tracker.update(name, fraction, filesAt(fraction)));
  timeline.tracker.update(name, 1, filesAt(1));
  return result;
}

/** What the run has learnt so far; report.json is written from it on success and on failure. */
interface RunState {
  images: number;
  skipped: SkippedInput[];
  model: SparseModel | null;
  outputs: PipelineOutput[];
  located: Located | null;
  georeferenceRefused?: string;
  /** Ground control as SfM took it, and what it made of it. */
  control: ControlSetup | null;
  controlReport: ControlReport | null;
  /** Reprojection errors and centre covariances for the quality report (jobs with control or GPS only). */
  measures: ModelMeasures | null;
  imageRefs: ImageRef[];
  /** The dense stage's threads, started as SfM begins; null once the dense stage has taken them (or none were started). */
  denseWorkers: dense.DenseWorkers | null;
}

/**
 * Ingest, features, matching and SfM. Their keypoints, descriptors, matches and tracks are
 * locals of this function, so they are garbage once it returns: the model holds none of them.
 * In one function with the stages after SfM, the closures' shared context kept them to the end
 * of the job: at dense start after 800 photos (640 px) 205 MiB of features and 35 MiB of matches
 * and tracks (a heap snapshot, `bench-out/mem-snap.ts`), about 2.4 × that at 8,000 keypoints per photo.
 */
async function sparseStages(input: PipelineInput, timeline: Timeline, run: RunState): Promise<{ images: ImageRef[]; model: SparseModel }> {
  const preset = QUALITY_PRESETS[input.quality];
  // Front workers load OpenCV.js while ingest decodes the uploads (or were kept loaded from an
  // earlier job), then serve features and matching; given back once matching is done, or for a
  // small upload once its cameras are placed, since a second matching may need them
  // (place-cameras.ts).
  const held = holdFront(input.front ?? FRESH_FRONT, preset.features.workers ?? features.DEFAULTS.workers);
  const front = held.workers;
  let images: ImageRef[];
  let detected: features.Output;
  let matched: matching.Output;
  // The second matching of a small upload (place-cameras.ts) adds to the unrefined keypoints.
  let unrefined: features.Output["features"] | null = null;
  let placed: Awaited<ReturnType<typeof placeCameras>>;
  try {
    const ingested = await stage(timeline, "ingest", (p) => ingest.run({ files: input.files, workDir: input.workDir }, preset.ingest, p), input.files.length);
    timeline.reports.push(ingested.report);
    images = ingested.images;
    // From here on the percentage follows this job's expected stage times (stage-costs.ts).
    const costs = costOptions(preset, { features: features.DEFAULTS, matching: matching.DEFAULTS, dense: dense.DEFAULTS });
    const reweight = (keypointsPerImage?: number) => timeline.tracker.reweight(jobWeights(baseWeights(input), images, costs, input.sparseOnly ?? false, ingested.report.wallMs / 1000, keypointsPerImage));
    reweight();
    run.images = images.length;
    run.imageRefs = images;
    run.skipped = ingested.skipped;
    if (images.length < 2) {
      throw new PipelineError("not_enough_images", "ingest: a reconstruction needs at least 2 usable images", "Upload at least 10–20 overlapping photos of the object from different angles.");
    }
    const ready = images;
    detected = await stage(timeline, "features", async (p) => {
      const started = performance.now();
      const batches = input.featureRunner ? await input.featureRunner(ready, { ...features.DEFAULTS, ...preset.features }, p) : null;
      return batches ? features.fromBatches(ready, batches, performance.now() - started) : features.run({ images: ready }, preset.features, p, front.features);
    });
    timeline.reports.push(detected.report);
    const found = detected.features;
    if (images.length <= WIDE_BASELINE_MAX_IMAGES) unrefined = found;
    // Matching's cost follows the keypoints found, now known.
    reweight(found.reduce((sum, f) => sum + f.count, 0) / Math.max(1, found.length));
    // Keypoint refinement reports as a stage of its own but counts in matching's progress (docs/API.md, the status record's stages).
    let refined: keypoints.Output | undefined;
    matched = await stage(timeline, "matching", async (p) => {
      const result = await matching.run({ images: ready, features: found }, preset.matching, (f, done) => p(0.9 * f, done), front.matching, input.pairRunner);
      refined = await keypoints.run({ images: ready, features: found, tracks: result.tracks }, preset.keypoints, (f) => p(0.9 + 0.1 * f), front.keypoints);
      return result;
    });
    timeline.reports.push(matched.report, refined!.report);
    detected = { ...detected, features: refined!.features };
    if (unrefined === null) await held.giveBack();
    run.control = input.control_points ? controlSetup(input.control_points, images, outputEpsgOf(input.output_crs)) : null;
    const placement = run.control ? { ...preset, sfm: { ...preset.sfm, controlPoints: run.control.targets } } : preset;
    const inputs = { images, refined: detected.features, unrefined, pairs: matched.pairs, tracks: matched.tracks, ...(held.held ? { front } : {}) };
    // The dense stage's threads load while SfM runs, which leaves part of a core idle, rather
    // than at the dense stage's start, where they delayed its first views by ~0.4 s.
    if (!input.sparseOnly) run.denseWorkers = dense.startDenseWorkers(Math.min(preset.dense.workers ?? dense.DEFAULTS.workers, images.length));
    placed = await stage(timeline, "sfm", (p) => placeCameras(inputs, placement, p));
  } finally {
    await held.giveBack();
  }
  const sparse = placed.sfm;
  timeline.reports.push(...placed.reports, sparse.report);
  run.model = sparse.model;
  run.controlReport = sparse.report.control ?? null;
  // A survey's quality report needs the observations' residuals, measured while the features live.
  if (run.control || images.some((image) => image.gps)) run.measures = measureForReport(sparse.model, placed.features);
  return { images, model: sparse.model };
}

async function execute(input: PipelineInput, timeline: Timeline, run: RunState): Promise<void> {
  const preset = QUALITY_PRESETS[input.quality];
  const { images, model } = await sparseStages(input, timeline, run);
  if (run.control && run.controlReport?.applied) {
    run.located = locateByControl(run.control, model);
  } else {
    const placed = locate(images, model, outputEpsgOf(input.output_crs));
    run.located = placed.located;
    run.georeferenceRefused = [run.controlReport?.reason && `ground control not applied: ${run.controlReport.reason}`, placed.refused].filter(Boolean).join("; ") || undefined;
  }
  const located = run.located;
  const formats = input.sparseOnly ? SPARSE_FORMATS : [...MODEL_FORMATS];
  let cloud = sparseCloud(model);
  let surface: Mesh | null = null;
  let atlas: TexturedMesh | null = null;
  let cloudWritten: Promise<exporter.WrittenFormats | null> | null = null;
  if (!input.sparseOnly) {
    const denseOptions = { ...preset.dense, ...(input.denseClusterViews ? { maxClusterViews: input.denseClusterViews } : {}), ...(input.denseSeed !== undefined ? { seed: input.denseSeed } : {}) };
    // The mesh's helper and the texture's threads (one pool: late-pool.ts) and the texture's photos
    // start once a core is free in the dense stage: through its last views' PatchMatch, and its
    // filtering and fusion, which use one thread.
    const late: { started: { workers: LateWorkers; photos: texture.PhotoStore } | null } = { started: null };
    const startLate = () =>
      (late.started ??= {
        workers: startLateWorkers(Math.min(preset.texture.workers ?? texture.DEFAULTS.workers, model.views.length)),
        // Decoded one at a time on the core the mesh stage leaves free (it runs at ~1.5 cores; texture/photo-store.ts).
        photos: texture.decodePhotosAhead(model.views, images, preset.texture),
      });
    try {
      const densified = await stage(timeline, "dense", (p) => {
        // Handed over only here: until the stage has them, runPipeline closes them on any failure.
        const workers = run.denseWorkers ?? undefined;
        run.denseWorkers = null;
        return dense.run({ images, model }, denseOptions, p, input.denseRunner, { onLastRound: startLate, workers });
      });
      timeline.reports.push(densified.report);
      cloud = densified.cloud;
      const { workers: lateWorkers, photos: texturePhotos } = startLate();
      cloudWritten = writeCloudAhead(lateWorkers, located, { views: model.views, cloud, sparse: model.points, images }, formats, input.outDir, exporter.DEFAULTS.baseName);
      const meshed = await stage(timeline, "mesh", (p) => mesh.run({ cloud, views: model.views, images, viewDepths: densified.viewDepths }, { ...preset.mesh, faceBudget: faceBudgetFor(input.quality, model.views.map((v) => v.intrinsics)) }, p, lateWorkers.mesh));
      timeline.reports.push(meshed.report);
      surface = meshed.mesh;
      const meshDone = meshed.mesh;
      if (meshDone.faceCount > 0) {
        const textured = await stage(timeline, "texture", (p) => texture.run({ mesh: meshDone, views: model.views, images }, preset.texture, p, lateWorkers.texture, texturePhotos));
        timeline.reports.push(textured.report);
        atlas = textured.textured;
      }
    } finally {
      late.started?.photos.close();
      // The cloud's formats are long written by now (it never rejects); the pool closes only after them.
      await cloudWritten;
      await late.started?.workers.close();
    }
  }
  const exportInput = surveyInputs(located, { views: model.views, cloud, mesh: surface, textured: atlas, images, sparse: model.points });
  const writtenAhead = (await cloudWritten) ?? undefined;
  const exported = await stage(timeline, "export", () => exporter.run(exportInput, { formats, outDir: input.outDir, ...(located ? { georeference: { crs: located.frame.crs, wkt: located.frame.wkt, offset: located.frame.offset } } : {}), ...(writtenAhead ? { writtenAhead } : {}) }));
  timeline.reports.push(exported.report);
  run.outputs = exported.files;
  if (located && atlas) {
    const rasters = await writeSurveyRasters(located, atlas, input.outDir);
    timeline.reports.push(rasters.report);
    run.outputs.push(...rasters.files);
  }
}

function buildReport(input: PipelineInput, startedAt: Date, timeline: Timeline, run: RunState, error?: PipelineError): PipelineReport {
  const finishedAt = new Date();
  const sparseOnly = input.sparseOnly ?? false;
  return {
    quality: input.quality,
    sparseOnly,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    wallMs: finishedAt.getTime() - startedAt.getTime(),
    files: input.files.length,
    images: run.images,
    registered: run.model?.views.length ?? 0,
    skipped: run.skipped,
    unregistered: run.model?.unregistered.map((u) => ({ name: u.name, reason: u.reason })) ?? [],
    otherModelSizes: run.model?.otherModelSizes ?? [],
    notRun: sparseOnly ? [{ stage: "dense", reason: "sparse only" }, { stage: "mesh", reason: "sparse only" }] : [],
    stages: timeline.reports,
    outputs: run.outputs.map((f) => ({ format: f.format, file: path.basename(f.path), bytes: f.bytes })),
    ...(run.located ? { georeference: run.located.report } : {}),
    ...(run.georeferenceRefused ? { georeferenceRefused: run.georeferenceRefused } : {}),
    ...(error ? { error: { code: error.code, message: error.message, suggestion: error.suggestion } } : {}),
  };
}

export async function runPipeline(input: PipelineInput): Promise<PipelineResult> {
  const startedAt = new Date();
  const emit = input.onProgress ?? (() => {});
  const timeline: Timeline = { tracker: new ProgressTracker(baseWeights(input), emit), reports: [] };
  const run: RunState = { images: 0, skipped: [], model: null, outputs: [], located: null, control: null, controlReport: null, measures: null, imageRefs: [], denseWorkers: null };
  await mkdir(input.outDir, { recursive: true });
  try {
    await execute(input, timeline, run);
  } catch (err) {
    // A client-facing failure still leaves report.json behind (what ran, what was skipped, why).
    if (err instanceof PipelineError) await writeReport(input.outDir, buildReport(input, startedAt, timeline, run, err));
    throw err;
  } finally {
    // Started for a dense stage that never came (SfM refused the upload, or failed).
    await run.denseWorkers?.close();
  }
  const report = buildReport(input, startedAt, timeline, run);
  if (run.located && run.model) {
    // The survey's printable report (the `report` download) and its figures in report.json.
    const quality = await writeQualityReport(report, { model: run.model, images: run.imageRefs, measures: run.measures, located: run.located, outDir: input.outDir, ...(run.controlReport ? { control: controlResiduals(run.controlReport) } : {}) });
    report.qualityReport = quality.figures;
    report.stages.push(quality.report);
    if (quality.file) {
      const bytes = (await stat(quality.file)).size;
      run.outputs.push({ format: "report", path: quality.file, bytes });
      report.outputs.push({ format: "report", file: path.basename(quality.file), bytes });
    }
  }
  await writeReport(input.outDir, report);
  timeline.tracker.finish("export", input.files.length);
  return { report, outputs: run.outputs };
}
