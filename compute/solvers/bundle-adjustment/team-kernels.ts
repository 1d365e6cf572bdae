/**
 * @module One thread's share of the solver's passes over points and observations, run by the
 * calling thread and by every worker of a team (team.ts) on SharedArrayBuffer-backed arrays.
 *
 * Why this split: in a global bundle adjustment of a few hundred cameras, linearising the
 * observations and eliminating the points (forming the reduced camera system) are two thirds
 * of the time, and both are sums of independent per-point terms (Agarwal et al. 2010, "Bundle
 * Adjustment in the Large", §3; Ceres parallelises the same two passes). A thread takes a range
 * of points (V, g_p, W, V*⁻¹ and the point step of a point are written by one thread only) or of
 * observations, and sums what several points share — U's camera blocks, the reduced gradient,
 * S and b, the costs — into its own partial arrays, which the caller adds up in thread order.
 * The result is deterministic for a given thread count.
 */
import { trailingUpdate, type PanelScratch } from "./dense-cholesky.js";
import type { Layout } from "./layout.js";
import { linearizePoints, observationsCost, type Normal } from "./linearize.js";
import type { LossName } from "./loss.js";
import { JAC } from "./projection.js";
import { backSubstitute, eliminatePointsDense, type SchurWork } from "./schur.js";
import { observationsPredictedDecrease } from "./step.js";
import type { BAProblem } from "./types.js";

export const KERNEL = { linearize: 1, schur: 2, cost: 3, backSubstitute: 4, predicted: 5, cholesky: 6, release: 9 } as const;
export type KernelId = (typeof KERNEL)[keyof typeof KERNEL];

/** Length of one thread's camera-side partial: upp, upi, uii, gR packed. */
export function cameraPartialLength(cameraCount: number, groupCount: number, reducedSize: number): number {
  return cameraCount * 36 + cameraCount * 30 + groupCount * 25 + reducedSize;
}

/** Everything a solve shares with its team's workers; sent once per solve (typed arrays on SharedArrayBuffers). */
export interface SharedSolve {
  threads: number;
  loss: LossName;
  lossScalePx: number;
  cameraCount: number;
  pointCount: number;
  observationCount: number;
  groupCount: number;
  poses: Float64Array;
  intrinsics: Float64Array;
  points: Float64Array;
  intrinsicsGroup: Uint32Array;
  obsCamera: Uint32Array;
  obsPoint: Uint32Array;
  obsXY: Float64Array;
  obsSigma: Float64Array | null;
  intrinsicColumns: Int32Array;
  ni: number;
  reducedSize: number;
  maxObsPerPoint: number;
  poseBase: Int32Array;
  intrBase: Int32Array;
  pointFree: Uint8Array;
  pointObsStart: Uint32Array;
  pointObs: Uint32Array;
  jc: Float64Array;
  jp: Float64Array;
  res: Float64Array;
  w: Float64Array;
  v: Float64Array;
  gP: Float64Array;
  rotations: Float64Array;
  diagP: Float64Array;
  vinv: Float64Array;
  trialPoses: Float64Array;
  trialIntrinsics: Float64Array;
  trialPoints: Float64Array;
  trialRotations: Float64Array;
  dR: Float64Array;
  dP: Float64Array;
  /** The reduced system S of the dense path (thread 0's own), which the team factors by panels; null on the PCG path. */
  dense: Float64Array | null;
  panel: PanelScratch;
  /** Per worker (index t − 1): camera-side partial, reduced-system partial S (empty without the dense path) and b. */
  cameraPartials: Float64Array[];
  densePartials: Float64Array[];
  rhsPartials: Float64Array[];
  /** Thread t's points are [pointRanges[t], pointRanges[t+1]), its observations likewise. */
  pointRanges: Int32Array;
  obsRanges: Int32Array;
  /** Two numbers per thread: a kernel's sums (cost and Σ‖r‖², or the predicted decrease), or a failure flag. */
  results: Float64Array;
  /** μ of the current Schur pass. */
  params: Float64Array;
}

/** The objects one thread's kernels work on. */
export interface ThreadContext {
  thread: number;
  shared: SharedSolve;
  problem: BAProblem;
  layout: Layout;
  normal: Normal;
  schur: SchurWork;
  /** This thread's S and b (the workspace's own for thread 0). */
  dense: Float64Array | null;
  rhs: Float64Array;
}

/** A worker's context: shared arrays, plus its own partial sums and scratch. */
export function workerContext(shared: SharedSolve, thread: number): ThreadContext {
  const camera = shared.cameraPartials[thread - 1];
  const { cameraCount: cams, groupCount } = shared;
  const problem: BAProblem = {
    cameraCount: cams, poses: shared.poses, intrinsicsGroup: shared.intrinsicsGroup, intrinsics: shared.intrinsics,
    pointCount: shared.pointCount, points: shared.points, observationCount: shared.observationCount,
    obsCamera: shared.obsCamera, obsPoint: shared.obsPoint, obsXY: shared.obsXY, ...(shared.obsSigma ? { obsSigma: shared.obsSigma } : {}),
  };
  const layout = {
    intrinsicColumns: shared.intrinsicColumns, ni: shared.ni, cw: 6 + shared.ni, poseBase: shared.poseBase, intrBase: shared.intrBase,
    reducedSize: shared.reducedSize, pointFree: shared.pointFree, pointObsStart: shared.pointObsStart, pointObs: shared.pointObs,
    maxObsPerPoint: shared.maxObsPerPoint,
  } as Layout;
  const normal: Normal = {
    jc: shared.jc, jp: shared.jp, res: shared.res, w: shared.w, v: shared.v, gP: shared.gP, rotations: shared.rotations,
    upp: camera.subarray(0, cams * 36),
    upi: camera.subarray(cams * 36, cams * 66),
    uii: camera.subarray(cams * 66, cams * 66 + groupCount * 25),
    gR: camera.subarray(cams * 66 + groupCount * 25),
    scratch: new Float64Array(JAC.size),
    prior: null,
    pointPrior: null,
  };
  const maxEntries = 2 * Math.max(1, shared.maxObsPerPoint);
  const schur: SchurWork = {
    diagR: new Float64Array(0), diagP: shared.diagP, vinv: shared.vinv,
    entryOfBase: new Int32Array(shared.reducedSize).fill(-1),
    entryBase: new Int32Array(maxEntries), entrySize: new Int32Array(maxEntries),
    entryW: new Float64Array(maxEntries * 18), entryT: new Float64Array(maxEntries * 18),
  };
  const dense = shared.densePartials.length > 0 ? shared.densePartials[thread - 1] : null;
  return { thread, shared, problem, layout, normal, schur, dense, rhs: shared.rhsPartials[thread - 1] };
}

/**
 * Runs kernel `kernel` on thread `ctx.thread`'s range. Thread 0's camera-side arrays, S and b
 * are the workspace's own, prepared by the caller; a worker zeroes its partials here.
 */
export function runKernel(ctx: ThreadContext, kernel: KernelId): void {
  const { thread: t, shared, problem, layout, normal } = ctx;
  const p0 = shared.pointRanges[t], p1 = shared.pointRanges[t + 1];
  const o0 = shared.obsRanges[t], o1 = shared.obsRanges[t + 1];
  switch (kernel) {
    case KERNEL.linearize: {
      normal.upp.fill(0); normal.upi.fill(0); normal.uii.fill(0); normal.gR.fill(0);
      const sums = linearizePoints(problem, layout, normal, shared.loss, shared.lossScalePx, p0, p1);
      shared.results[2 * t] = sums.cost;
      shared.results[2 * t + 1] = sums.sumSquares;
      return;
    }
    case KERNEL.schur: {
      if (t > 0) {
        ctx.dense?.fill(0);
        ctx.rhs.fill(0);
      }
      const ok = ctx.dense !== null && eliminatePointsDense(problem, layout, normal, ctx.schur, shared.params[0], ctx.dense, ctx.rhs, p0, p1);
      shared.results[2 * t] = ok ? 1 : 0;
      return;
    }
    case KERNEL.cost: {
      const sums = observationsCost(problem, shared.trialPoses, shared.trialIntrinsics, shared.trialPoints, shared.trialRotations,
        shared.loss, shared.lossScalePx, normal.scratch, o0, o1);
      shared.results[2 * t] = sums.cost;
      shared.results[2 * t + 1] = sums.sumSquares;
      return;
    }
    case KERNEL.backSubstitute:
      backSubstitute(problem, layout, normal, ctx.schur, shared.dR, shared.dP, p0, p1);
      return;
    case KERNEL.predicted:
      shared.results[2 * t] = observationsPredictedDecrease(problem, layout, normal, shared.dR, shared.dP, o0, o1);
      return;
    case KERNEL.cholesky:
      trailingUpdate(shared.dense!, shared.reducedSize, shared.panel, t, shared.threads);
      return;
    default:
      throw new Error(`ba: unknown kernel ${kernel}`);
  }
}
