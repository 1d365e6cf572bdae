/**
 * @module Dense stage: undistort the registered views, pick source views, run PatchMatch MVS per
 * view on worker threads (coarse to fine: see patchmatch.ts), filter the depth maps
 * photometrically and geometrically, and fuse them into a coloured point cloud with normals (Schönberger et al., ECCV 2016; Galliani et al., ICCV
 * 2015; Bleyer et al., BMVC 2011).
 */
import type { DepthMap, ImageRef, PointCloud, ProgressFn, SparseModel, StageReport, ViewDepth } from "../../scene/index.js";
import { cameraCenter, PipelineError } from "../../scene/index.js";
import { WorkerPool } from "../../util/pool.js";
import { clusterJobs, type ClusterJob, type ClusterResult, type ClusterSolveOptions } from "./cluster-job.js";
import { clusterViews } from "./clusters.js";
import { DEFAULTS, type Options } from "./options.js";
import { depthRanges, selectSourceViews } from "./select.js";
import { solveCluster } from "./solve-cluster.js";
import type { ViewResult, ViewTask } from "./worker.js";

export { checkClusterJob, decodeClusterResult, encodeClusterResult, type ClusterJob, type ClusterResult } from "./cluster-job.js";
export { DEFAULTS, type Options } from "./options.js";
export { solveCluster } from "./solve-cluster.js";

export const NAME = "dense";

export interface DenseInput {
  images: ImageRef[];
  model: SparseModel;
}

export interface DenseOutput {
  cloud: PointCloud;
  depthMaps?: DepthMap[];
  /** Every registered view's own filtered depth, coarse (view-depth.ts), by viewIndex; absent when a cluster's result lacks them. */
  viewDepths?: ViewDepth[];
  report: StageReport;
}

/** What the stage decides from the whole model before any pixel is solved: one job per cluster. */
export interface DensePlan {
  jobs: ClusterJob[];
  /** Registered views in the model. */
  viewCount: number;
  /** Views given a source beyond sourceViews, for a part of their frame the others miss (select.ts withFrameCover()). */
  viewsWithExtraSources: number;
}

/**
 * Solves the plan's clusters somewhere else (on other containers, compute/service) and gives
 * their results back in any order; `progress` takes the fraction of the clusters' views solved.
 */
export type ClusterRunner = (plan: DensePlan, images: ImageRef[], progress: (fraction: number) => void) => Promise<ClusterResult[]>;

/** Source views, depth ranges and clusters of the model, as self-contained cluster jobs. */
function plan(input: DenseInput, options: Partial<Options> = {}): DensePlan {
  const opts: Options = { ...DEFAULTS, ...options };
  const { model } = input;
  const { sources, added } = selectSourceViews(model, { sourceViews: opts.sourceViews, minAngleDeg: opts.minAngleDeg, maxAngleDeg: opts.maxAngleDeg, minSharedPoints: 5, extraSourceViews: opts.extraSourceViews, frameCells: opts.sourceFrameCells, backgroundRatio: opts.sourceBackgroundRatio });
  const ranges = depthRanges(model, opts.depthMargin);
  const centres = new Float64Array(model.views.flatMap((v) => [...cameraCenter(v.camFromWorld)]));
  const clusters = clusterViews(centres, sources, opts.maxClusterViews);
  const views = model.views.map((v, viewIndex) => ({ viewIndex, name: v.name, imageIndex: v.imageIndex, intrinsics: { ...v.intrinsics }, R: Array.from(v.camFromWorld.R), t: Array.from(v.camFromWorld.t) }));
  return { jobs: clusterJobs(clusters, views, sources, ranges, solveOptions(opts), added), viewCount: model.views.length, viewsWithExtraSources: added.filter((a) => a.length > 0).length };
}

/**
 * The stage's fraction once every cluster is solved and fused (each cluster's fraction counts
 * its loading, its views' sweeps and its fusion: solve-cluster.ts); what is left is gathering
 * the clusters' clouds into one.
 */
const CLUSTERS_SHARE = 0.99;

/**
 * Runs the stage. With a `runner`, a plan of more than one cluster is solved through it (one
 * task per cluster); otherwise, and for one cluster, here, one cluster at a time, so only its
 * views' images and depth maps are in memory. Both paths solve the same jobs with the same
 * function, so they give the same cloud.
 */
export async function run(input: DenseInput, options: Partial<Options> = {}, progress?: ProgressFn, runner?: ClusterRunner, hooks: DenseHooks = {}): Promise<DenseOutput> {
  const opts: Options = { ...DEFAULTS, ...options };
  const start = performance.now();
  let densePlan: DensePlan;
  try {
    densePlan = plan(input, opts);
  } catch (error) {
    // The threads given are the stage's to close, solved or not.
    void hooks.workers?.close();
    throw error;
  }
  const remote = runner !== undefined && densePlan.jobs.length > 1;
  // Solved elsewhere: threads started for this process have nothing to do.
  if (remote) void hooks.workers?.close();
  const results = remote ? await runner(densePlan, input.images, (f) => progress?.(f * CLUSTERS_SHARE)) : await solveHere(input, densePlan, opts, progress, hooks);
  if (remote) hooks.onLastRound?.();
  const output = merge(densePlan, results, remote ? false : opts.keepDepthMaps);
  output.report.wallMs = performance.now() - start;
  output.report.counts!.remoteClusters = remote ? densePlan.jobs.length : 0;
  progress?.(1, input.model.views.length);
  return output;
}

/** What the caller may do while the stage runs. */
export interface DenseHooks {
  /**
   * Called once, when the last cluster's PatchMatch has no task left waiting for a thread: a
   * thread idles while the last views are solved, and then the maps are filtered and fused on this
   * thread alone (remote clusters: when their results are in). The next stages' threads can start
   * on the cores the stage no longer uses.
   */
  onLastRound?: () => void;
  /**
   * Threads started before the stage (startDenseWorkers): the pipeline starts them as SfM
   * begins, so they have loaded by the time the first view is solved. The stage takes them over
   * and closes them; without them it starts its own.
   */
  workers?: DenseWorkers;
}

/** The threads that solve the views' PatchMatch. */
export type DenseWorkers = WorkerPool<ViewTask, ViewResult>;

/**
 * Starts `count` (at least one) PatchMatch threads; they begin loading at once. Each spends
 * ~0.25 s of CPU loading (the TypeScript loader, the kernels); at the stage's start they loaded
 * while its photos were decoded, and the first views began ~0.8 s into the stage.
 */
export function startDenseWorkers(count: number): DenseWorkers {
  return new WorkerPool<ViewTask, ViewResult>(new URL("./worker.ts", import.meta.url), { size: Math.max(1, count) });
}

async function solveHere(input: DenseInput, densePlan: DensePlan, opts: Options, progress: ProgressFn | undefined, hooks: DenseHooks): Promise<Array<ClusterResult & { depthMaps?: DepthMap[] }>> {
  const byIndex = new Map(input.images.map((im) => [im.index, im]));
  const photoOf = (imageIndex: number) => {
    const image = byIndex.get(imageIndex);
    if (!image) throw new Error(`dense: no image ${imageIndex} for a registered view`);
    return image;
  };
  // Each cluster counts by its views (extras included): its time is about their PatchMatch.
  const solves = densePlan.jobs.reduce((sum, job) => sum + job.views.length, 0);
  let before = 0;
  const pool = hooks.workers ?? startDenseWorkers(Math.min(opts.workers, densePlan.viewCount));
  try {
    const results = [];
    for (const [c, job] of densePlan.jobs.entries()) {
      const onProgress = (fraction: number) => progress?.(((before + fraction * job.views.length) / solves) * CLUSTERS_SHARE, Math.floor(before + fraction * job.views.length));
      const last = c === densePlan.jobs.length - 1;
      // After the last cluster's PatchMatch the pool's threads (and their kernels' memory) are done with.
      const onSolved = last ? () => void pool.close() : undefined;
      results.push(await solveCluster(job, photoOf, pool, { keepDepthMaps: opts.keepDepthMaps, onProgress, onSolved, onLastRound: last ? hooks.onLastRound : undefined }));
      before += job.views.length;
    }
    return results;
  } finally {
    await pool.close();
  }
}

/** The clusters' clouds as one, in cluster order, and the stage report. */
function merge(densePlan: DensePlan, results: Array<ClusterResult & { depthMaps?: DepthMap[] }>, keepDepthMaps: boolean): DenseOutput {
  const ordered = [...results].sort((a, b) => a.cluster - b.cluster);
  if (ordered.length !== densePlan.jobs.length || ordered.some((r, c) => r.cluster !== c)) throw new Error(`dense: ${ordered.length} cluster results for ${densePlan.jobs.length} clusters`);
  const core = ordered.flatMap((r) => r.core).sort((a, b) => a.viewIndex - b.viewIndex);
  const warnings = ordered.flatMap((r) => r.warnings);
  if (core.length === 0) throw new PipelineError("not_enough_overlap", "dense: no view had source views and a depth range", "Take more overlapping photos, each from a slightly different position.");
  const cloud = concatenate(ordered.map((r) => r.cloud));
  if (cloud.count === 0) warnings.push("dense: fusion produced no points");
  const solves = densePlan.jobs.reduce((sum, job) => sum + job.views.length, 0);
  const workingSize = ordered[ordered.length - 1].workingSize;
  const kernels = new Set(core.map((r) => r.kernel));
  const report: StageReport = {
    stage: NAME,
    wallMs: 0,
    counts: {
      views: densePlan.viewCount,
      depthMaps: core.length,
      points: cloud.count,
      clusters: densePlan.jobs.length,
      clusterExtraSolves: solves - densePlan.viewCount,
      workingWidth: workingSize[0],
      workingHeight: workingSize[1],
      kernelWasm: kernels.has("wasm-simd") || kernels.has("native-avx512") || kernels.has("native-avx2") ? 1 : 0,
      // The plane cost in the native addon (native-plane-cost.ts): the same bits, faster; at AVX2 on a CPU without AVX-512.
      kernelNative: kernels.has("native-avx512") || kernels.has("native-avx2") ? 1 : 0,
      kernelNativeAvx2: kernels.has("native-avx2") ? 1 : 0,
      patchMatchMs: Math.round(core.reduce((s, r) => s + r.wallMs, 0)),
      // The clusters' phases in wall time (their shares set the fraction each cluster reports).
      clusterLoadMs: Math.round(ordered.reduce((s, r) => s + r.phaseMs.load, 0)),
      clusterPatchMatchMs: Math.round(ordered.reduce((s, r) => s + r.phaseMs.patchMatch, 0)),
      clusterFuseMs: Math.round(ordered.reduce((s, r) => s + r.phaseMs.fuse, 0)),
      hypothesesScored: core.reduce((s, r) => s + r.evaluations, 0),
      photometricPixels: core.reduce((s, f) => s + f.photometric, 0),
      consistentPixels: core.reduce((s, f) => s + f.valid, 0),
      priorPixels: core.reduce((s, f) => s + (f.priorPixels ?? 0), 0),
      nearDepthEdgePixels: core.reduce((s, f) => s + (f.edgePixels ?? 0), 0),
      keptOnPriorPixels: core.reduce((s, f) => s + (f.keptOnPrior ?? 0), 0),
      fatteningTrimmedPixels: core.reduce((s, f) => s + (f.fatteningTrimmed ?? 0), 0),
      seenThroughPixels: core.reduce((s, f) => s + (f.seenThrough ?? 0), 0),
      viewsInStrips: core.filter((f) => (f.strips ?? 1) > 1).length,
      viewsWithExtraSources: densePlan.viewsWithExtraSources,
    },
    perImage: core.map((f) => ({ name: f.name, sources: f.sources, validFraction: f.valid / f.pixels, patchMatchMs: Math.round(f.wallMs), kernel: f.kernel, ...((f.strips ?? 1) > 1 ? { strips: f.strips } : {}) })),
    warnings,
  };
  const depthMaps = keepDepthMaps ? ordered.flatMap((r) => r.depthMaps ?? []).sort((a, b) => a.viewIndex - b.viewIndex) : undefined;
  const viewDepths = ordered.every((r) => r.viewDepths) ? ordered.flatMap((r) => r.viewDepths!).sort((a, b) => a.viewIndex - b.viewIndex) : undefined;
  return { cloud, depthMaps, viewDepths, report };
}

/** The stage options a cluster's solve needs: not the machine's (workers, keepDepthMaps), nor those the plan already used. */
function solveOptions(options: Options): ClusterSolveOptions {
  const { workers: _workers, keepDepthMaps: _keep, sourceViews: _sources, extraSourceViews: _extra, sourceFrameCells: _cells, minAngleDeg: _min, maxAngleDeg: _max, depthMargin: _margin, maxClusterViews: _cluster, ...solve } = options;
  return solve;
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
