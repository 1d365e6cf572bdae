/**
 * @module Dense stage: undistort the registered views, pick source views, run PatchMatch MVS per
 * view on worker threads (coarse to fine: see patchmatch.ts), filter the depth maps
 * photometrically and geometrically, and fuse them into a coloured point cloud with normals (Schönberger et al., ECCV 2016; Galliani et al., ICCV
 * 2015; Bleyer et al., BMVC 2011).
 */
import { availableParallelism } from "node:os";
import type { DepthMap, ImageRef, PointCloud, ProgressFn, SparseModel, StageReport } from "../../scene/index.js";
import { cameraCenter, PipelineError } from "../../scene/index.js";
import { WorkerPool } from "../../util/pool.js";
import { clusterViews } from "./clusters.js";
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
  /**
   * Most views solved and fused together (clusters.ts): bounds memory (~28 bytes per working
   * pixel per loaded view) and fusion's cost per view on large captures. A set this size or
   * smaller is one cluster, solved as before clusters existed.
   */
  maxClusterViews: number;
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
  maxClusterViews: 40,
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
  const sources = selectSourceViews(input.model, { sourceViews: opts.sourceViews, minAngleDeg: opts.minAngleDeg, maxAngleDeg: opts.maxAngleDeg, minSharedPoints: 5 });
  const ranges = depthRanges(input.model, opts.depthMargin);
  const centres = new Float64Array(input.model.views.flatMap((v) => [...cameraCenter(v.camFromWorld)]));
  const clusters = clusterViews(centres, sources, opts.maxClusterViews);
  const solves = clusters.reduce((sum, c) => sum + c.core.length + c.extras.length, 0);
  const pool = new WorkerPool<ViewTask, ViewResult>(new URL("./worker.ts", import.meta.url), { size: Math.min(opts.workers, input.model.views.length) });
  const parts: PointCloud[] = [];
  const solvedCore: CoreFigures[] = [];
  let solved = 0;
  let workingSize: [number, number] = [0, 0];
  const home = new Int32Array(input.model.views.length);
  clusters.forEach((cluster, c) => cluster.core.forEach((v) => (home[v] = c)));
  try {
    for (const [c, cluster] of clusters.entries()) {
      // One cluster at a time: only its views' images and depth maps are in memory.
      const views = await prepareViews(input, opts, [...cluster.core, ...cluster.extras]);
      workingSize = [views[0]?.width ?? 0, views[0]?.height ?? 0];
      const core = new Set(cluster.core);
      const raw = await runPatchMatch(views, sources, ranges, core, pool, opts, warnings, () => progress?.((++solved / solves) * 0.9, solved));
      const filtered = filterMaps(raw, opts);
      // Core maps first: only they seed points (fusion's seedMaps); extras join them.
      const coreMaps = filtered.filter((f) => core.has(f.raw.view.viewIndex));
      const ordered = [...coreMaps, ...filtered.filter((f) => !core.has(f.raw.view.viewIndex))];
      const seeds = coreMaps.length;
      parts.push(
        fuse(
          ordered.map((f) => ({ view: f.raw.view, depth: f.depth, normal: f.raw.result.normal })),
          {
            maxReprojectionPx: opts.maxReprojectionPx,
            maxRelativeDepthError: opts.maxRelativeDepthError,
            maxNormalAngleDeg: opts.maxNormalAngleDeg,
            minFusedViews: opts.minFusedViews,
            seedMaps: seeds,
            // A point that a core view of an earlier cluster joins was emitted there.
            yieldTo: Uint8Array.from(ordered, (f) => (home[f.raw.view.viewIndex] < c ? 1 : 0)),
          },
        ),
      );
      for (const f of coreMaps) {
        const { view, result } = f.raw;
        solvedCore.push({ viewIndex: view.viewIndex, name: view.name, sources: f.raw.sources.length, pixels: view.width * view.height, valid: f.valid, photometric: f.photometric, wallMs: result.wallMs, evaluations: result.evaluations, kernel: result.kernel, depthMap: opts.keepDepthMaps ? toDepthMap(f.raw, f.depth) : undefined });
      }
    }
  } finally {
    await pool.close();
  }
  if (solvedCore.length === 0) throw new PipelineError("not_enough_overlap", "dense: no view had source views and a depth range", "Take more overlapping photos, each from a slightly different position.");
  solvedCore.sort((a, b) => a.viewIndex - b.viewIndex);
  const cloud = concatenate(parts);
  if (cloud.count === 0) warnings.push("dense: fusion produced no points");
  progress?.(1, input.model.views.length);
  const kernels = new Set(solvedCore.map((r) => r.kernel));
  const report: StageReport = {
    stage: NAME,
    wallMs: performance.now() - start,
    counts: {
      views: input.model.views.length,
      depthMaps: solvedCore.length,
      points: cloud.count,
      clusters: clusters.length,
      clusterExtraSolves: solves - input.model.views.length,
      workingWidth: workingSize[0],
      workingHeight: workingSize[1],
      kernelWasm: kernels.has("wasm-simd") ? 1 : 0,
      patchMatchMs: Math.round(solvedCore.reduce((s, r) => s + r.wallMs, 0)),
      hypothesesScored: solvedCore.reduce((s, r) => s + r.evaluations, 0),
      photometricPixels: solvedCore.reduce((s, f) => s + f.photometric, 0),
      consistentPixels: solvedCore.reduce((s, f) => s + f.valid, 0),
    },
    perImage: solvedCore.map((f) => ({ name: f.name, sources: f.sources, validFraction: f.valid / f.pixels, patchMatchMs: Math.round(f.wallMs), kernel: f.kernel })),
    warnings,
  };
  return { cloud, depthMaps: opts.keepDepthMaps ? solvedCore.map((f) => f.depthMap!) : undefined, report };
}

/** What stays of a core view's depth map once its cluster is fused: its figures (and the map itself with keepDepthMaps). */
interface CoreFigures {
  viewIndex: number;
  name: string;
  sources: number;
  pixels: number;
  valid: number;
  photometric: number;
  wallMs: number;
  evaluations: number;
  kernel: ViewResult["kernel"];
  depthMap?: DepthMap;
}

/** The clusters' clouds as one. */
function concatenate(parts: PointCloud[]): PointCloud {
  const count = parts.reduce((s, p) => s + p.count, 0);
  const cloud: PointCloud = { count, positions: new Float32Array(3 * count), colors: new Uint8Array(3 * count), normals: new Float32Array(3 * count) };
  let at = 0;
  for (const part of parts) {
    cloud.positions.set(part.positions, 3 * at);
    cloud.colors.set(part.colors, 3 * at);
    cloud.normals!.set(part.normals!, 3 * at);
    at += part.count;
  }
  return cloud;
}

async function prepareViews(input: DenseInput, opts: Options, viewIndices: number[]): Promise<DenseView[]> {
  const byIndex = new Map(input.images.map((im) => [im.index, im]));
  return Promise.all(
    viewIndices.map(async (viewIndex) => {
      const v = input.model.views[viewIndex];
      const image = byIndex.get(v.imageIndex);
      if (!image) throw new Error(`dense: no image for registered view ${v.name}`);
      const u = await loadUndistorted(image, v.intrinsics, opts.maxImageSide);
      return { viewIndex, name: v.name, width: u.width, height: u.height, focal: u.focal, cx: u.cx, cy: u.cy, R: v.camFromWorld.R, t: v.camFromWorld.t, grey: u.grey, rgb: u.rgb };
    }),
  );
}

/**
 * PatchMatch on every loaded view of a cluster, each with those of its source views that are
 * loaded (an extra view's own sources may lie outside the cluster). Views that cannot be
 * solved are skipped, with a warning for core views (an extra is reported by its own cluster).
 */
async function runPatchMatch(views: DenseView[], sources: number[][], ranges: Array<[number, number] | null>, core: Set<number>, pool: WorkerPool<ViewTask, ViewResult>, opts: Options, warnings: string[], onSolved: () => void): Promise<RawMap[]> {
  const params: PatchMatchParams = { iterations: opts.iterations, windowRadius: opts.windowRadius, windowStep: opts.windowStep, bestK: opts.bestK, sigmaColor: 0.2, sigmaSpatial: opts.windowRadius * opts.windowStep, kernel: opts.kernel, seed: opts.seed, pyramidLevels: opts.pyramidLevels, refineIterations: opts.refineIterations };
  const loaded = new Map(views.map((v) => [v.viewIndex, v]));
  const jobs = views.map(async (view): Promise<RawMap | null> => {
    const i = view.viewIndex;
    const range = ranges[i];
    const own = sources[i].filter((j) => loaded.has(j));
    if (!range || own.length === 0) {
      if (core.has(i)) warnings.push(`dense: ${view.name} skipped (${range ? "no source views" : "too few sparse points"})`);
      onSolved();
      return null;
    }
    // Averaging the best half of the sources (at most bestK) keeps surfaces seen by few sources.
    const bestK = Math.min(opts.bestK, Math.max(1, Math.ceil(own.length / 2)));
    const task = buildTask(view, own.map((j) => loaded.get(j)!), range, { ...params, bestK, seed: opts.seed + i });
    const transfer = [task.grey.buffer as ArrayBuffer, ...task.sources.map((s) => s.grey.buffer as ArrayBuffer)];
    const result = await pool.run(task, transfer);
    onSolved();
    return { view, result, sources: own };
  });
  return (await Promise.all(jobs)).filter((r): r is RawMap => r !== null);
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
