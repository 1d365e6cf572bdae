/**
 * @module Dense stage: undistort the registered views, pick source views, run PatchMatch MVS per
 * view on worker threads (coarse to fine: see patchmatch.ts), filter the depth maps
 * photometrically and geometrically, and fuse them into a coloured point cloud with normals (Schönberger et al., ECCV 2016; Galliani et al., ICCV
 * 2015; Bleyer et al., BMVC 2011).
 */
import { availableParallelism } from "node:os";
import type { DepthMap, ImageRef, PointCloud, ProgressFn, SparseModel, StageReport } from "../../scene/index.js";
import { PipelineError } from "../../scene/index.js";
import { WorkerPool } from "../../util/pool.js";
import { costFilter, geometricFilter } from "./filter.js";
import { fuse } from "./fusion.js";
import type { PatchMatchParams } from "./patchmatch.js";
import { depthRanges, selectSourceViews } from "./select.js";
import { loadUndistorted } from "./undistort.js";
import { relativePose, type DenseView } from "./views.js";
import type { ViewResult, ViewTask } from "./worker.js";

export const NAME = "dense";

export interface Options {
  /** Working resolution (longest side, px); the quality presets use 480, 800 and 1600. */
  maxImageSide: number;
  /** Source views per reference view. */
  sourceViews: number;
  /** PatchMatch red–black iterations (at the coarsest level when pyramidLevels > 0). */
  iterations: number;
  /** Half-size levels solved first, coarse to fine (0 = the working resolution only). */
  pyramidLevels: number;
  /** Iterations at each finer level, seeded from the coarser one. */
  refineIterations: number;
  /** Window: half-size in samples and pixels between samples (3, 2 → 7×7 samples over 13×13 px). */
  windowRadius: number;
  windowStep: number;
  /** Best source costs averaged per hypothesis (at most half the view's sources, rounded up). */
  bestK: number;
  /** Triangulation angles (degrees) preferred for source selection. */
  minAngleDeg: number;
  maxAngleDeg: number;
  /** Relative widening of each view's sparse depth range. */
  depthMargin: number;
  /** Highest kept cost (1 − NCC, 0..2). */
  maxCost: number;
  /** Geometric consistency: reprojection (px), relative depth, fewest agreeing views. */
  maxReprojectionPx: number;
  maxRelativeDepthError: number;
  minConsistentViews: number;
  /**
   * Fusion: normal agreement (degrees) and fewest views per point. One agreeing source view
   * and two fused views keep the surfaces that only a few photos see (the ground near the
   * cameras, the ends of a sequence): held-back photos of Herz-Jesus-P8 went from 0.868 to
   * 0.918 coverage and fountain-P11 from 0.907 to 0.925, at 0.2–0.3 dB less PSNR over the
   * larger covered part (`npm run bench -- views Herz fountain`); smoke F at 0.5 % of the
   * radius 0.813 → 0.873 with precision 0.970 → 0.930 (`npm run bench -- dense smoke`).
   */
  maxNormalAngleDeg: number;
  minFusedViews: number;
  /** Cost kernel; "wasm" falls back to "typescript" when the module does not load. */
  kernel: "wasm" | "typescript";
  /** Worker threads (default: available parallelism). */
  workers: number;
  /** Return the filtered depth maps as well as the cloud (memory: ~24 bytes per pixel per view). */
  keepDepthMaps: boolean;
  seed: number;
}

export const DEFAULTS: Options = {
  maxImageSide: 1200,
  sourceViews: 6,
  iterations: 5,
  pyramidLevels: 2,
  refineIterations: 1,
  windowRadius: 3,
  windowStep: 2,
  bestK: 3,
  minAngleDeg: 5,
  maxAngleDeg: 30,
  depthMargin: 0.25,
  maxCost: 0.6,
  maxReprojectionPx: 1.5,
  maxRelativeDepthError: 0.01,
  minConsistentViews: 1,
  maxNormalAngleDeg: 15,
  minFusedViews: 2,
  kernel: "wasm",
  workers: availableParallelism(),
  keepDepthMaps: false,
  seed: 1,
};

export interface DenseInput {
  images: ImageRef[];
  model: SparseModel;
}

export interface DenseOutput {
  cloud: PointCloud;
  depthMaps?: DepthMap[];
  report: StageReport;
}

interface RawMap {
  view: DenseView;
  result: ViewResult;
  sources: number[];
}

export async function run(input: DenseInput, options: Partial<Options> = {}, progress?: ProgressFn): Promise<DenseOutput> {
  const opts: Options = { ...DEFAULTS, ...options };
  const start = performance.now();
  const warnings: string[] = [];
  const views = await prepareViews(input, opts);
  const sources = selectSourceViews(input.model, { sourceViews: opts.sourceViews, minAngleDeg: opts.minAngleDeg, maxAngleDeg: opts.maxAngleDeg, minSharedPoints: 5 });
  const ranges = depthRanges(input.model, opts.depthMargin);
  const raw = await runPatchMatch(views, sources, ranges, opts, warnings, progress);
  if (raw.length === 0) throw new PipelineError("not_enough_overlap", "dense: no view had source views and a depth range", "Take more overlapping photos, each from a slightly different position.");
  const filtered = filterMaps(raw, opts);
  const cloud = fuse(
    filtered.map((f) => ({ view: f.raw.view, depth: f.depth, normal: f.raw.result.normal })),
    { maxReprojectionPx: opts.maxReprojectionPx, maxRelativeDepthError: opts.maxRelativeDepthError, maxNormalAngleDeg: opts.maxNormalAngleDeg, minFusedViews: opts.minFusedViews },
  );
  if (cloud.count === 0) warnings.push("dense: fusion produced no points");
  progress?.(1, views.length);
  const kernels = new Set(raw.map((r) => r.result.kernel));
  const report: StageReport = {
    stage: NAME,
    wallMs: performance.now() - start,
    counts: {
      views: views.length,
      depthMaps: raw.length,
      points: cloud.count,
      workingWidth: views[0]?.width ?? 0,
      workingHeight: views[0]?.height ?? 0,
      kernelWasm: kernels.has("wasm-simd") ? 1 : 0,
      patchMatchMs: Math.round(raw.reduce((s, r) => s + r.result.wallMs, 0)),
      hypothesesScored: raw.reduce((s, r) => s + r.result.evaluations, 0),
      photometricPixels: filtered.reduce((s, f) => s + f.photometric, 0),
      consistentPixels: filtered.reduce((s, f) => s + f.valid, 0),
    },
    perImage: filtered.map((f) => ({ name: f.raw.view.name, sources: f.raw.sources.length, validFraction: f.valid / f.depth.length, patchMatchMs: Math.round(f.raw.result.wallMs), kernel: f.raw.result.kernel })),
    warnings,
  };
  return { cloud, depthMaps: opts.keepDepthMaps ? filtered.map((f) => toDepthMap(f.raw, f.depth)) : undefined, report };
}

async function prepareViews(input: DenseInput, opts: Options): Promise<DenseView[]> {
  const byIndex = new Map(input.images.map((im) => [im.index, im]));
  return Promise.all(
    input.model.views.map(async (v, viewIndex) => {
      const image = byIndex.get(v.imageIndex);
      if (!image) throw new Error(`dense: no image for registered view ${v.name}`);
      const u = await loadUndistorted(image, v.intrinsics, opts.maxImageSide);
      return { viewIndex, name: v.name, width: u.width, height: u.height, focal: u.focal, cx: u.cx, cy: u.cy, R: v.camFromWorld.R, t: v.camFromWorld.t, grey: u.grey, rgb: u.rgb };
    }),
  );
}

async function runPatchMatch(views: DenseView[], sources: number[][], ranges: Array<[number, number] | null>, opts: Options, warnings: string[], progress?: ProgressFn): Promise<RawMap[]> {
  const params: PatchMatchParams = { iterations: opts.iterations, windowRadius: opts.windowRadius, windowStep: opts.windowStep, bestK: opts.bestK, sigmaColor: 0.2, sigmaSpatial: opts.windowRadius * opts.windowStep, kernel: opts.kernel, seed: opts.seed, pyramidLevels: opts.pyramidLevels, refineIterations: opts.refineIterations };
  const pool = new WorkerPool<ViewTask, ViewResult>(new URL("./worker.ts", import.meta.url), { size: Math.min(opts.workers, views.length) });
  let done = 0;
  try {
    const jobs = views.map(async (view, i): Promise<RawMap | null> => {
      const range = ranges[i];
      if (!range || sources[i].length === 0) {
        warnings.push(`dense: ${view.name} skipped (${range ? "no source views" : "too few sparse points"})`);
        return null;
      }
      // Averaging the best half of the sources (at most bestK) keeps surfaces seen by few sources.
      const bestK = Math.min(opts.bestK, Math.max(1, Math.ceil(sources[i].length / 2)));
      const task = buildTask(view, sources[i].map((j) => views[j]), range, { ...params, bestK, seed: opts.seed + i });
      const transfer = [task.grey.buffer as ArrayBuffer, ...task.sources.map((s) => s.grey.buffer as ArrayBuffer)];
      const result = await pool.run(task, transfer);
      progress?.((++done / views.length) * 0.9, done);
      return { view, result, sources: sources[i] };
    });
    return (await Promise.all(jobs)).filter((r): r is RawMap => r !== null);
  } finally {
    await pool.close();
  }
}

/** The worker's task; grey images are copied so their buffers can be transferred. */
function buildTask(ref: DenseView, sources: DenseView[], range: [number, number], params: PatchMatchParams): ViewTask {
  return {
    viewIndex: ref.viewIndex,
    width: ref.width,
    height: ref.height,
    focal: ref.focal,
    cx: ref.cx,
    cy: ref.cy,
    grey: ref.grey.slice(),
    sources: sources.map((s) => ({ grey: s.grey.slice(), width: s.width, height: s.height, focal: s.focal, cx: s.cx, cy: s.cy, ...relativePose(ref, s) })),
    depthMin: range[0],
    depthMax: range[1],
    params,
  };
}

function filterMaps(raw: RawMap[], opts: Options): Array<{ raw: RawMap; depth: Float32Array; valid: number; photometric: number }> {
  const photometric = raw.map((r) => costFilter(r.result.depth, r.result.cost, opts.maxCost));
  const byView = new Map(raw.map((r) => [r.view.viewIndex, r]));
  const filterOptions = { maxCost: opts.maxCost, maxReprojectionPx: opts.maxReprojectionPx, maxRelativeDepthError: opts.maxRelativeDepthError, minConsistentViews: opts.minConsistentViews };
  return raw.map((r, i) => {
    const srcMaps = r.sources.flatMap((j) => {
      const s = byView.get(j);
      return s ? [{ view: s.view, depth: s.result.depth }] : [];
    });
    const depth = geometricFilter(r.view, r.result.depth, srcMaps, filterOptions);
    let valid = 0;
    for (let p = 0; p < depth.length; p++) if (depth[p] > 0) valid++;
    return { raw: r, depth, valid, photometric: photometric[i] };
  });
}

function toDepthMap(raw: RawMap, depth: Float32Array): DepthMap {
  const confidence = new Float32Array(depth.length);
  for (let p = 0; p < depth.length; p++) confidence[p] = depth[p] > 0 ? Math.max(0, 1 - raw.result.cost[p]) : 0;
  return { viewIndex: raw.view.viewIndex, width: raw.view.width, height: raw.view.height, depth, normal: raw.result.normal, confidence, focal: raw.view.focal, cx: raw.view.cx, cy: raw.view.cy };
}
