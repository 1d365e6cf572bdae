/**
 * @module `npm run bench -- precision [set-name-filter...] [--trials N] [--quality q]`: how much
 * a set's images determine its cameras, to read the sfm bench's errors against.
 *
 * For every image set with published cameras and K (../shared/datasets/<group>/<set>/gt), after
 * one run of ingest → features → matching → sfm:
 *
 * 1. **Agreement of the published cameras with the images.** Each model point is triangulated
 *    again with the published cameras held fixed (K as published: fx, fy, skew), and its
 *    observations' reprojection error is set beside the one under our cameras. On exact
 *    (synthetic) cameras the two agree closely (ours minimise a Cauchy loss, so the exact
 *    cameras can even come out a little lower in RMS); a published calibration that fits the
 *    keypoints clearly worse than ours disagrees with the images at that level.
 * 2. **Agreement pair by pair** (pair-agreement.ts): the median Sampson distance of each
 *    verified pair's matches under our cameras and under the published ones; the pairs the
 *    published cameras fit worst relative to ours are listed under the set's row.
 * 3. **Spread of the estimate at the measured keypoint noise** (a parametric bootstrap, Efron &
 *    Tibshirani 1993, ch. 6). Our model becomes the truth: every observation of its points is
 *    replaced by its exact projection plus a residual drawn at random from the model's own
 *    residuals (whitened by each observation's σ, as sfm's bundle adjustment weighs them, and
 *    scaled back by the receiving one's), and sfm runs again from the same tracks. The result
 *    is aligned to the model as the sfm bench aligns to the ground truth. The median rotation
 *    and centre errors over the trials are what the pipeline's error would be if the published
 *    cameras were exact and the keypoints as noisy as they are. Observations the first run
 *    rejected keep their measured positions, so the trials see outliers as the real run did.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { QUALITY_PRESETS, type StagePresets } from "../compute/pipeline/presets.js";
import { project } from "../compute/geometry/camera.js";
import { triangulateMultiView } from "../compute/geometry/triangulation.js";
import { createRng, randomInt } from "../compute/math/random.js";
import { solveLinear } from "../compute/math/solve.js";
import type { ImageFeatures, SparseModel } from "../compute/scene/index.js";
import { cameraAccuracy, type NamedPose } from "../compute/stages/sfm/accuracy.js";
import { keypointSigma } from "../compute/stages/sfm/bundle.js";
import * as sfm from "../compute/stages/sfm/index.js";
import { datasetInputs, datasetsRoot, listDatasets, repoRoot } from "./datasets.js";
import { pairAgreement, type PairAgreement } from "./pair-agreement.js";
import { runFront } from "./pipeline-front.js";
import { loadPublished, normalizePublished, publishedCamera, type PublishedCamera, type PublishedSet } from "./published.js";

/** Pixel residual (u − x, v − y) of X in `cam` and its 2×3 Jacobian by X, into out[0..7]; false behind the camera. */
function residualAndJacobian(cam: PublishedCamera, X: ArrayLike<number>, x: number, y: number, out: Float64Array): boolean {
  const { R, t } = cam.camFromWorld;
  const cx = R[0] * X[0] + R[1] * X[1] + R[2] * X[2] + t[0];
  const cy = R[3] * X[0] + R[4] * X[1] + R[5] * X[2] + t[1];
  const cz = R[6] * X[0] + R[7] * X[1] + R[8] * X[2] + t[2];
  if (cz <= 1e-12) return false;
  const a = cx / cz;
  const b = cy / cz;
  out[0] = cam.fx * a + cam.skew * b + cam.cx - x;
  out[1] = cam.fy * b + cam.cy - y;
  for (let k = 0; k < 3; k++) {
    const da = (R[k] - a * R[6 + k]) / cz;
    const db = (R[3 + k] - b * R[6 + k]) / cz;
    out[2 + k] = cam.fx * da + cam.skew * db;
    out[5 + k] = cam.fy * db;
  }
  return true;
}

/** Gauss–Newton on the point alone (cameras fixed), from the multi-view DLT; null when it fails. */
function triangulateFixed(cams: PublishedCamera[], xy: Float64Array): Float64Array | null {
  const n = cams.length;
  const normalized = normalizePublished((k) => cams[k], xy, n);
  const X = triangulateMultiView(cams.map((c) => c.camFromWorld), normalized, n);
  if (!X) return null;
  const rj = new Float64Array(8);
  for (let iteration = 0; iteration < 10; iteration++) {
    const JtJ = new Float64Array(9);
    const Jtr = new Float64Array(3);
    for (let k = 0; k < n; k++) {
      if (!residualAndJacobian(cams[k], X, xy[2 * k], xy[2 * k + 1], rj)) return null;
      for (let p = 0; p < 3; p++) {
        Jtr[p] -= rj[2 + p] * rj[0] + rj[5 + p] * rj[1];
        for (let q = 0; q < 3; q++) JtJ[3 * p + q] += rj[2 + p] * rj[2 + q] + rj[5 + p] * rj[5 + q];
      }
    }
    const step = solveLinear(JtJ, Jtr, 3);
    if (!step) return null;
    for (let p = 0; p < 3; p++) X[p] += step[p];
    if (Math.hypot(step[0], step[1], step[2]) <= 1e-12 * (1 + Math.hypot(X[0], X[1], X[2]))) break;
  }
  return X;
}

/** Model-frame pixel position of each observation of the model's points (obs order of model.points). */
function observedXY(model: SparseModel, features: ImageFeatures[]): Float64Array {
  const { points } = model;
  const xy = new Float64Array(2 * points.obsViews.length);
  for (let o = 0; o < points.obsViews.length; o++) {
    const f = features[model.views[points.obsViews[o]].imageIndex];
    const kp = points.obsKeypoints[o];
    xy[2 * o] = f.xy[2 * kp];
    xy[2 * o + 1] = f.xy[2 * kp + 1];
  }
  return xy;
}

/**
 * Projection of the model's point p in its view v, with the model's own intrinsics. sfm keeps
 * only points in front of the views that observe them, so the NaN fill never shows.
 */
function projectModel(model: SparseModel, v: number, p: number, out: Float64Array): void {
  const view = model.views[v];
  if (!project(view.intrinsics, view.camFromWorld, model.points.xyz.subarray(3 * p, 3 * p + 3), out)) out.fill(Number.NaN);
}

interface ReprojectionFigures {
  observations: number;
  rmsPx: number;
  medianPx: number;
}

function figures(errors: number[]): ReprojectionFigures {
  const sorted = [...errors].sort((a, b) => a - b);
  const rms = Math.sqrt(sorted.reduce((s, e) => s + e * e, 0) / Math.max(1, sorted.length));
  return { observations: sorted.length, rmsPx: rms, medianPx: sorted[sorted.length >> 1] ?? 0 };
}

/** The published camera of each model view, in its pixel frame (null where none is published). */
function publishedCameras(model: SparseModel, published: PublishedSet): Array<PublishedCamera | null> {
  return model.views.map((v) => {
    const entry = published.byName.get(v.name);
    return entry ? publishedCamera(entry, v.intrinsics.width) : null;
  });
}

/** Reprojection errors of the model's observations under our cameras and under the published ones (points re-triangulated). */
function agreement(model: SparseModel, xy: Float64Array, cams: Array<PublishedCamera | null>): { ours: ReprojectionFigures; published: ReprojectionFigures } {
  const ours: number[] = [];
  const theirs: number[] = [];
  const projected = new Float64Array(2);
  const rj = new Float64Array(8);
  const { points } = model;
  for (let p = 0; p < points.count; p++) {
    const obs: number[] = [];
    for (let o = points.obsOffsets[p]; o < points.obsOffsets[p + 1]; o++) if (cams[points.obsViews[o]]) obs.push(o);
    if (obs.length < 2) continue;
    const obsXY = Float64Array.from(obs.flatMap((o) => [xy[2 * o], xy[2 * o + 1]]));
    const X = triangulateFixed(obs.map((o) => cams[points.obsViews[o]]!), obsXY);
    if (!X) continue;
    const published: number[] = [];
    for (const o of obs) {
      if (!residualAndJacobian(cams[points.obsViews[o]]!, X, xy[2 * o], xy[2 * o + 1], rj)) break;
      published.push(Math.hypot(rj[0], rj[1]));
    }
    // A point behind a published camera counts for neither side.
    if (published.length < obs.length) continue;
    theirs.push(...published);
    for (const o of obs) {
      projectModel(model, points.obsViews[o], p, projected);
      ours.push(Math.hypot(projected[0] - xy[2 * o], projected[1] - xy[2 * o + 1]));
    }
  }
  return { ours: figures(ours), published: figures(theirs) };
}

/** RMS distance of the registered camera centres from their centroid (the ground truth's scene.radius, in the model's units). */
function modelRadius(model: SparseModel): number {
  const centres = model.views.map(({ camFromWorld: { R, t } }) => [0, 1, 2].map((a) => -(R[a] * t[0] + R[3 + a] * t[1] + R[6 + a] * t[2])));
  const mean = [0, 1, 2].map((a) => centres.reduce((s, c) => s + c[a], 0) / centres.length);
  return Math.sqrt(centres.reduce((s, c) => s + (c[0] - mean[0]) ** 2 + (c[1] - mean[1]) ** 2 + (c[2] - mean[2]) ** 2, 0) / centres.length);
}

interface Trial {
  registered: number;
  medianRotationErrorDeg: number;
  medianCenterErrorPercent: number;
}

/** σ of every observation of the model's points, as sfm weighs it (keypointSigma). */
function observationSigmas(model: SparseModel, features: ImageFeatures[]): Float64Array {
  const { points } = model;
  const sigma = new Float64Array(points.obsViews.length);
  for (let o = 0; o < sigma.length; o++) sigma[o] = keypointSigma(features[model.views[points.obsViews[o]].imageIndex], points.obsKeypoints[o]);
  return sigma;
}

/**
 * Observed minus projected position (x, y) of every observation of the model's points,
 * divided by the observation's σ: the noise in units of the finest keypoints' noise, the
 * model sfm's bundle adjustment assumes.
 */
function whitenedResiduals(model: SparseModel, xy: Float64Array, sigma: Float64Array): Float64Array {
  const { points } = model;
  const residuals = new Float64Array(xy.length);
  const projected = new Float64Array(2);
  for (let p = 0; p < points.count; p++) {
    for (let o = points.obsOffsets[p]; o < points.obsOffsets[p + 1]; o++) {
      projectModel(model, points.obsViews[o], p, projected);
      residuals[2 * o] = (xy[2 * o] - projected[0]) / sigma[o];
      residuals[2 * o + 1] = (xy[2 * o + 1] - projected[1]) / sigma[o];
    }
  }
  return residuals;
}

/** One bootstrap trial: sfm again on the model's exact projections plus resampled residuals, each scaled by its observation's σ. */
async function bootstrapTrial(model: SparseModel, residuals: Float64Array, sigma: Float64Array, input: sfm.Input, options: StagePresets["sfm"], seed: number): Promise<Trial> {
  const rng = createRng(seed);
  const features = input.features.map((f) => ({ ...f, xy: f.xy.slice() }));
  const { points } = model;
  const projected = new Float64Array(2);
  const obsCount = residuals.length / 2;
  for (let p = 0; p < points.count; p++) {
    for (let o = points.obsOffsets[p]; o < points.obsOffsets[p + 1]; o++) {
      const v = points.obsViews[o];
      projectModel(model, v, p, projected);
      const r = randomInt(rng, obsCount);
      const f = features[model.views[v].imageIndex];
      const kp = points.obsKeypoints[o];
      f.xy[2 * kp] = projected[0] + sigma[o] * residuals[2 * r];
      f.xy[2 * kp + 1] = projected[1] + sigma[o] * residuals[2 * r + 1];
    }
  }
  const { model: rerun } = await sfm.run({ ...input, features }, options);
  const truth: NamedPose[] = model.views.map((v) => ({ name: v.name, camFromWorld: v.camFromWorld }));
  const accuracy = cameraAccuracy(rerun.views.map((v) => ({ name: v.name, camFromWorld: v.camFromWorld })), truth, modelRadius(model));
  return { registered: rerun.views.length, medianRotationErrorDeg: accuracy.medianRotationErrorDeg, medianCenterErrorPercent: accuracy.medianCenterErrorPercent };
}

interface PrecisionResult {
  set: string;
  registered: number;
  images: number;
  measured: { medianRotationErrorDeg: number; medianCenterErrorPercent: number } | null;
  agreement: { ours: ReprojectionFigures; published: ReprojectionFigures } | null;
  /** Epipolar agreement of each well-matched verified pair (pair-agreement.ts). */
  pairs: PairAgreement[];
  trials: Trial[];
  error?: string;
}

async function measureSet(set: string, workRoot: string, preset: StagePresets, trials: number): Promise<PrecisionResult | null> {
  const setDir = path.join(datasetsRoot, set);
  const published = await loadPublished(setDir);
  if (!published) return null;
  const result: PrecisionResult = { set, registered: 0, images: 0, measured: null, agreement: null, pairs: [], trials: [] };
  try {
    const { images, detected, matched } = await runFront(await datasetInputs(setDir), path.join(workRoot, set.replace(/\//g, "_")), preset, {});
    const input: sfm.Input = { images, features: detected.features, pairs: matched.pairs, tracks: matched.tracks };
    const { model } = await sfm.run(input, preset.sfm);
    result.images = images.length;
    result.registered = model.views.length;
    const truth = [...published.byName].map(([name, e]) => ({ name, camFromWorld: e.pose }));
    const accuracy = cameraAccuracy(model.views.map((v) => ({ name: v.name, camFromWorld: v.camFromWorld })), truth, published.radius);
    result.measured = { medianRotationErrorDeg: accuracy.medianRotationErrorDeg, medianCenterErrorPercent: accuracy.medianCenterErrorPercent };
    const xy = observedXY(model, detected.features);
    const cams = publishedCameras(model, published);
    result.agreement = agreement(model, xy, cams);
    result.pairs = pairAgreement(model, detected.features, matched.pairs, cams);
    const sigma = observationSigmas(model, detected.features);
    const residuals = whitenedResiduals(model, xy, sigma);
    for (let k = 0; k < trials; k++) result.trials.push(await bootstrapTrial(model, residuals, sigma, input, preset.sfm, 1000 + k));
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
  }
  return result;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[sorted.length >> 1];
}

const HEADER = ["set", "reg", "rot / ctr vs published", "reproj ours rms/med px", "reproj published rms/med px", "pair epipolar med ours/published px", "bootstrap reg (fewest)", "bootstrap rot med (range) °", "bootstrap ctr med (range) %"];

/** Pairs listed under a set's row: those the published cameras fit worst relative to ours. */
const LISTED_PAIRS = 5;

/** The pairs whose matches the published cameras fit worst relative to ours, one per line. */
function worstPairs(r: PrecisionResult): string {
  const worst = [...r.pairs].sort((a, b) => b.publishedPx / b.oursPx - a.publishedPx / a.oursPx).slice(0, LISTED_PAIRS);
  return worst.map((p) => `  ${r.set}: ${p.imageA} – ${p.imageB}, ${p.matches} matches: ours ${p.oursPx.toFixed(3)} px, published ${p.publishedPx.toFixed(3)} px`).join("\n");
}

function row(r: PrecisionResult): string {
  const f = (x: number | undefined, d: number) => (x === undefined || !Number.isFinite(x) ? "-" : x.toFixed(d));
  const rot = r.trials.map((t) => t.medianRotationErrorDeg);
  const ctr = r.trials.map((t) => t.medianCenterErrorPercent);
  const range = (v: number[], d: number) => (v.length === 0 ? "-" : `${f(median(v), d)} (${f(Math.min(...v), d)}–${f(Math.max(...v), d)})`);
  const cells = [
    r.set,
    `${r.registered}/${r.images}`,
    r.measured ? `${f(r.measured.medianRotationErrorDeg, 3)}° / ${f(r.measured.medianCenterErrorPercent, 2)}%` : "-",
    r.agreement ? `${f(r.agreement.ours.rmsPx, 3)}/${f(r.agreement.ours.medianPx, 3)}` : "-",
    r.agreement ? `${f(r.agreement.published.rmsPx, 3)}/${f(r.agreement.published.medianPx, 3)}` : "-",
    r.pairs.length === 0 ? "-" : `${f(median(r.pairs.map((p) => p.oursPx)), 3)}/${f(median(r.pairs.map((p) => p.publishedPx)), 3)} (${r.pairs.length} pairs)`,
    r.trials.length === 0 ? "-" : `${Math.min(...r.trials.map((t) => t.registered))}/${r.registered}`,
    range(rot, 3),
    range(ctr, 2),
  ];
  return cells.join(" | ") + (r.error ? `\n  ${r.set}: failed: ${r.error}` : "");
}

export async function run(args: string[]): Promise<void> {
  const valueOf = (flag: string) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
  const quality = (valueOf("--quality") ?? "standard") as keyof typeof QUALITY_PRESETS;
  const preset = QUALITY_PRESETS[quality];
  if (!preset) throw new Error(`bench precision: unknown quality ${quality}`);
  const trials = Number(valueOf("--trials") ?? 4);
  if (!Number.isInteger(trials) || trials < 0) throw new Error("bench precision: --trials takes a whole number");
  const filters = args.filter((a, i) => !a.startsWith("--") && !["--quality", "--trials"].includes(args[i - 1]));
  const workRoot = await mkdtemp(path.join(tmpdir(), "bench-precision-"));
  const results: PrecisionResult[] = [];
  try {
    for (const set of await listDatasets(filters)) {
      console.log(`running ${set}...`);
      const result = await measureSet(set, workRoot, preset, trials);
      if (!result) continue;
      results.push(result);
      console.log(`${HEADER.join(" | ")}\n${row(result)}\n${worstPairs(result)}`);
    }
  } finally {
    await rm(workRoot, { recursive: true, force: true });
  }
  console.log(HEADER.join(" | "));
  for (const r of results) console.log(row(r));
  const outDir = path.join(repoRoot, "bench/out");
  await mkdir(outDir, { recursive: true });
  await writeFile(path.join(outDir, "precision.json"), JSON.stringify(results, null, 2));
  console.log(`wrote ${path.join(outDir, "precision.json")}`);
}
