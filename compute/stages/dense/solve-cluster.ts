/**
 * @module The solve of one dense cluster (cluster-job.ts): load and undistort its views,
 * PatchMatch each of them against its loaded source views on the worker pool, filter the depth
 * maps photometrically and geometrically, and fuse them, core views seeding and extras only
 * joining (clusters.ts). It needs nothing but the job and the cluster's photos, so it runs the
 * same in the dense stage and in a task on another container.
 */
import type { DepthMap, ImageRef } from "../../scene/index.js";
import type { TaskRunner } from "../../util/pool.js";
import { shared } from "../../util/shared-memory.js";
import type { ClusterJob, ClusterJobView, ClusterResult, CoreFigures } from "./cluster-job.js";
import { costFilter, geometricFilter } from "./filter.js";
import { fuse } from "./fusion.js";
import type { PatchMatchParams } from "./patchmatch.js";
import { loadUndistorted } from "./undistort.js";
import { skyPixels, trimFattening } from "./edge-trim.js";
import { removeSeenThrough } from "./free-space.js";
import { stitchStrips, stripsOf, stripTask } from "./strips.js";
import { relativePose, type DenseView } from "./views.js";
import { coarseViewDepth } from "./view-depth.js";
import type { ViewResult, ViewTask } from "./worker.js";

export interface SolveClusterOptions {
  /**
   * The cluster's fraction done (0–1, never decreasing): its views loaded, PatchMatch on each
   * of them as its sweeps go (so a cluster of few large views moves between its solves), then
   * filtering and fusion at 1.
   */
  onProgress?: (fraction: number) => void;
  /** Also return the core views' filtered depth maps (memory: ~24 bytes per pixel per view). */
  keepDepthMaps?: boolean;
  /** Called once every view's PatchMatch is done, before the maps are filtered and fused on this thread. */
  onSolved?: () => void;
  /**
   * Called once no PatchMatch task waits for a thread any more: a thread has nothing left to do
   * while the last views are solved (at once when there are fewer tasks than threads).
   */
  onLastRound?: () => void;
}

interface RawMap {
  view: DenseView;
  result: ViewResult;
  sources: number[];
}

interface FilteredMap {
  raw: RawMap;
  view: DenseView;
  depth: Float32Array;
  valid: number;
  photometric: number;
  keptOnPrior: number;
  fatteningTrimmed: number;
  seenThrough: number;
}

/** Solves one cluster; `photoOf` gives the upright photo of an ImageRef.index. */
export async function solveCluster(
  job: ClusterJob,
  photoOf: (imageIndex: number) => Pick<ImageRef, "path">,
  pool: TaskRunner<ViewTask, ViewResult>,
  options: SolveClusterOptions = {},
): Promise<ClusterResult & { depthMaps?: DepthMap[] }> {
  const warnings: string[] = [];
  const meter = clusterMeter(job.views.length, options.onProgress);
  const began = performance.now();
  const views = await Promise.all(
    job.views.map(async (v) => {
      const view = await prepareView(v, photoOf(v.imageIndex), job.options.maxImageSide);
      meter.loaded();
      return view;
    }),
  );
  const loadedAt = performance.now();
  const byIndex = new Map(job.views.map((v) => [v.viewIndex, v]));
  const core = new Set(job.core);
  const raw = await runPatchMatch(views, byIndex, core, pool, job, warnings, meter.solving, options.onLastRound);
  const solvedAt = performance.now();
  options.onSolved?.();
  const filtered = filterMaps(raw, job);
  removeSeenThrough(filtered.map((f) => ({ view: f.view, depth: f.depth, cost: f.raw.result.cost, judges: neighbours(filtered, f) })), job.options.freeSpace).forEach((removed, i) => {
    filtered[i].seenThrough = removed;
    filtered[i].valid -= removed;
  });
  // Core maps first: only they seed points (fusion's seedMaps); extras join them.
  const coreMaps = filtered.filter((f) => core.has(f.raw.view.viewIndex));
  const ordered = [...coreMaps, ...filtered.filter((f) => !core.has(f.raw.view.viewIndex))];
  const o = job.options;
  const cloud = fuse(
    ordered.map((f) => ({ view: f.raw.view, depth: f.depth, normal: f.raw.result.normal })),
    {
      maxReprojectionPx: o.maxReprojectionPx,
      maxRelativeDepthError: o.maxRelativeDepthError,
      maxNormalAngleDeg: o.maxNormalAngleDeg,
      minFusedViews: o.minFusedViews,
      seedMaps: coreMaps.length,
      // A point that a core view of an earlier cluster joins was emitted there.
      yieldTo: Uint8Array.from(ordered, (f) => (byIndex.get(f.raw.view.viewIndex)!.home < job.cluster ? 1 : 0)),
    },
  );
  const figures: CoreFigures[] = coreMaps.map((f) => {
    const { view, result } = f.raw;
    return { viewIndex: view.viewIndex, name: view.name, sources: f.raw.sources.length, pixels: view.width * view.height, valid: f.valid, photometric: f.photometric, priorPixels: result.priorPixels ?? 0, edgePixels: result.edgePixels ?? 0, keptOnPrior: f.keptOnPrior, fatteningTrimmed: f.fatteningTrimmed, seenThrough: f.seenThrough, wallMs: result.wallMs, evaluations: result.evaluations, kernel: result.kernel, strips: result.strips ?? 1 };
  });
  meter.fused();
  return {
    cluster: job.cluster,
    cloud,
    core: figures,
    warnings,
    workingSize: [views[0]?.width ?? 0, views[0]?.height ?? 0],
    phaseMs: { load: loadedAt - began, patchMatch: solvedAt - loadedAt, fuse: performance.now() - solvedAt },
    depthMaps: options.keepDepthMaps ? coreMaps.map((f) => toDepthMap(f.raw, f.depth)) : undefined,
    viewDepths: coreMaps.map((f) => coarseViewDepth(f.raw.view.viewIndex, { ...f.raw.view, depth: f.depth }, byIndex.get(f.raw.view.viewIndex)!.intrinsics)),
  };
}

/**
 * Shares of a cluster's wall time, for its fraction to follow the time: loading the views,
 * then filtering and fusion (PatchMatch is the rest). Measured with `phaseMs` (the dense
 * report's cluster*Ms) at `standard`: loading 0.6–0.7 % and fusion 3.7–4.2 % on fountain-P11
 * (one cluster of 11 views, and 3 of at most 4), and 0.7 % and 4.0 % on Herz-Jesus-P8; on the
 * rendered 50-photo survey the solves took 95 % of the stage.
 */
const LOAD_SHARE = 0.01;
const FUSE_SHARE = 0.04;

/** The cluster's fraction from its phases; `solving()` gives the callback for one view's solve fraction. */
function clusterMeter(viewCount: number, onProgress?: (fraction: number) => void) {
  const n = Math.max(1, viewCount);
  const solveShare = 1 - LOAD_SHARE - FUSE_SHARE;
  let loaded = 0;
  /** The views' solve fractions, summed. */
  let solved = 0;
  let reported = 0;
  const report = () => {
    const fraction = Math.min(1 - FUSE_SHARE, (LOAD_SHARE * loaded) / n + (solveShare * solved) / n);
    if (fraction > reported) {
      reported = fraction;
      onProgress?.(fraction);
    }
  };
  return {
    loaded() {
      loaded++;
      report();
    },
    solving() {
      let viewDone = 0;
      return (fraction: number) => {
        const now = Math.min(1, fraction);
        if (now <= viewDone) return;
        solved += now - viewDone;
        viewDone = now;
        report();
      };
    },
    fused() {
      reported = 1;
      onProgress?.(1);
    },
  };
}

async function prepareView(v: ClusterJobView, photo: Pick<ImageRef, "path">, maxImageSide: number): Promise<DenseView> {
  const u = await loadUndistorted(photo, v.intrinsics, maxImageSide);
  // The grey image in shared memory: every task that reads it (its own view's and six or so as a
  // source) gets it without a copy.
  return { viewIndex: v.viewIndex, name: v.name, width: u.width, height: u.height, focal: u.focal, cx: u.cx, cy: u.cy, R: Float64Array.from(v.R), t: Float64Array.from(v.t), grey: shared(u.grey), rgb: u.rgb };
}

/**
 * PatchMatch on every loaded view of a cluster, each with those of its source views that are
 * loaded (an extra view's own sources may lie outside the cluster). Views that cannot be
 * solved are skipped, with a warning for core views (an extra is reported by its own cluster).
 * An odd count of views has its last one solved as two strips (strips.ts), so that on two threads
 * the last round leaves neither idle. The rule looks at the views only, not at the pool: the model
 * is the same on any number of threads, and a cluster solved as a task elsewhere gives the same.
 */
async function runPatchMatch(
  views: DenseView[],
  jobViews: Map<number, ClusterJobView>,
  core: Set<number>,
  pool: TaskRunner<ViewTask, ViewResult>,
  job: ClusterJob,
  warnings: string[],
  solving: () => (fraction: number) => void,
  onLastRound?: () => void,
): Promise<RawMap[]> {
  const o = job.options;
  const params: PatchMatchParams = { iterations: o.iterations, windowRadius: o.windowRadius, windowStep: o.windowStep, windowPattern: o.windowPattern, coarseWindowPattern: o.coarseWindowPattern, ...(o.texturedWindow ? { texturedWindow: o.texturedWindow } : {}), bestK: o.bestK, sigmaColor: o.sigmaColor, sigmaSpatial: o.windowRadius * o.windowStep, kernel: o.kernel, seed: o.seed, pyramidLevels: o.pyramidLevels, refineIterations: o.refineIterations, finalPropagation: o.finalPropagation, planarPrior: o.planarPrior };
  const loaded = new Map(views.map((v) => [v.viewIndex, v]));
  const solvable = views.flatMap((view) => {
    const { range, sources, addedSources } = jobViews.get(view.viewIndex)!;
    const own = sources.filter((j) => loaded.has(j));
    // The added sources end the list, so those loaded end `own`, in the same order.
    const added = (addedSources ?? []).filter((a) => loaded.has(a.view));
    if (range && own.length > 0) return [{ view, range, own, added }];
    if (core.has(view.viewIndex)) warnings.push(`dense: ${view.name} skipped (${range ? "no source views" : "too few sparse points"})`);
    // Its share of the cluster's fraction is done.
    solving()(1);
    return [];
  });
  const inStrips = solvable.length % 2 === 1 ? solvable[solvable.length - 1].view : null;
  const round = lastRound(solvable.length + (inStrips ? STRIPS - 1 : 0), pool.size, onLastRound);
  const counted: TaskRunner<ViewTask, ViewResult> = { size: pool.size, run: (task, transfer, progress) => pool.run(task, transfer, progress).finally(round.taskDone) };
  const jobs = solvable.map(async ({ view, range, own, added }): Promise<RawMap> => {
    const i = view.viewIndex;
    const onProgress = solving();
    // Averaging the best half of the sources (at most bestK) keeps surfaces seen by few sources;
    // a source added for one part of the frame does not make the rest of it need one more.
    const bestK = Math.min(o.bestK, Math.max(1, Math.ceil((own.length - added.length) / 2)));
    const task = buildTask(view, own.map((j) => loaded.get(j)!), range, { ...params, bestK, seed: o.seed + i });
    if (added.length > 0) task.addedSourceBoxes = added.map((a) => a.boxes);
    const result = view === inStrips ? await solveInStrips(task, counted, onProgress) : await counted.run(task, transferOf(task), onProgress);
    onProgress(1);
    return { view, result, sources: own };
  });
  return Promise.all(jobs);
}

/** Calls `onLastRound` once, when fewer of `tasks` are unfinished than there are threads (at once if there are fewer tasks than threads). */
function lastRound(tasks: number, threads: number, onLastRound?: () => void): { taskDone: () => void } {
  let unfinished = tasks;
  let called = false;
  const check = () => {
    if (called || unfinished >= threads) return;
    called = true;
    // The caller's start-up of what comes next must not fail a view's solve (the pipeline starts
    // it again after the stage, where a failure is its own).
    try {
      onLastRound?.();
    } catch {
      // left to the caller
    }
  };
  check();
  return {
    taskDone: () => {
      unfinished--;
      check();
    },
  };
}

/** The task's own image buffers, handed to the worker (those in shared memory are read in place). */
function transferOf(task: ViewTask): ArrayBuffer[] {
  return [task.grey, ...task.sources.map((s) => s.grey)].flatMap((grey) => (grey.buffer instanceof ArrayBuffer ? [grey.buffer] : []));
}

/** One view as STRIPS strips, run side by side on the pool and stitched; its progress is their mean. */
async function solveInStrips(task: ViewTask, pool: TaskRunner<ViewTask, ViewResult>, onProgress: (fraction: number) => void): Promise<ViewResult> {
  const strips = stripsOf(task.width, task.height, STRIPS);
  const fractions = strips.map(() => 0);
  const parts = await Promise.all(
    strips.map((strip, k) => {
      // Each strip draws its own random planes.
      const stripped = stripTask(task, strip, task.params.seed + STRIP_SEED_STEP * (k + 1));
      return pool.run(stripped, transferOf(stripped), (fraction) => {
        fractions[k] = fraction;
        onProgress(fractions.reduce((a, b) => a + b, 0) / strips.length);
      });
    }),
  );
  return stitchStrips(task, strips, parts);
}

/** Strips of a view solved in strips: the compute service's two cores. */
const STRIPS = 2;

/** Seed offset between a view's strips (views' seeds are the stage's seed plus their index). */
const STRIP_SEED_STEP = 100_003;

/** The worker's task; its grey images are the views' own, in shared memory (prepareView). */
function buildTask(ref: DenseView, sources: DenseView[], range: [number, number], params: PatchMatchParams): ViewTask {
  return {
    viewIndex: ref.viewIndex,
    width: ref.width,
    height: ref.height,
    focal: ref.focal,
    cx: ref.cx,
    cy: ref.cy,
    grey: ref.grey,
    sources: sources.map((s) => ({ grey: s.grey, width: s.width, height: s.height, focal: s.focal, cx: s.cx, cy: s.cy, ...relativePose(ref, s) })),
    depthMin: range[0],
    depthMax: range[1],
    params,
  };
}

function filterMaps(raw: RawMap[], job: ClusterJob): FilteredMap[] {
  const o = job.options;
  const photometric = raw.map((r) => costFilter(r.result.depth, r.result.cost, o.maxCost, r.result.priorAgrees ? { agrees: r.result.priorAgrees, maxPriorCost: o.maxPriorCost } : undefined));
  const byView = new Map(raw.map((r) => [r.view.viewIndex, r]));
  const filterOptions = { maxCost: o.maxCost, maxReprojectionPx: o.maxReprojectionPx, maxRelativeDepthError: o.maxRelativeDepthError, minConsistentViews: o.minConsistentViews, priorConsistentViews: o.priorConsistentViews };
  return raw.map((r, i) => {
    const srcMaps = r.sources.flatMap((j) => {
      const s = byView.get(j);
      return s ? [{ view: s.view, depth: s.result.depth }] : [];
    });
    const depth = geometricFilter(r.view, r.result.depth, srcMaps, filterOptions, photometric[i].onPrior);
    const { width, height, grey, rgb } = r.view;
    const fatteningTrimmed = o.edgeTrim.maxSteps > 0 ? trimFattening(depth, grey, width, height, skyPixels(depth, rgb, width, height), o.edgeTrim) : 0;
    const { onPrior } = photometric[i];
    let valid = 0;
    let keptOnPrior = 0;
    for (let p = 0; p < depth.length; p++) {
      if (!(depth[p] > 0)) continue;
      valid++;
      if (onPrior?.[p]) keptOnPrior++;
    }
    return { raw: r, view: r.view, depth, valid, photometric: photometric[i].kept, keptOnPrior, fatteningTrimmed, seenThrough: 0 };
  });
}

/** The maps (indices into `maps`) of f's source views and of the views f is a source of. */
function neighbours(maps: FilteredMap[], f: FilteredMap): number[] {
  const own = f.view.viewIndex;
  return maps.flatMap((g, j) => (g !== f && (f.raw.sources.includes(g.view.viewIndex) || g.raw.sources.includes(own)) ? [j] : []));
}

function toDepthMap(raw: RawMap, depth: Float32Array): DepthMap {
  const confidence = new Float32Array(depth.length);
  for (let p = 0; p < depth.length; p++) confidence[p] = depth[p] > 0 ? Math.max(0, 1 - raw.result.cost[p]) : 0;
  return { viewIndex: raw.view.viewIndex, width: raw.view.width, height: raw.view.height, depth, normal: raw.result.normal, confidence, focal: raw.view.focal, cx: raw.view.cx, cy: raw.view.cy };
}
