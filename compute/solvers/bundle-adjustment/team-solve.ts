/**
 * @module The solver's passes over points and observations run by a thread team (team.ts):
 * shared copies of the problem, the split of points and observations between threads, and
 * the sums of the threads' partial results, added in thread order.
 */
import { priorSquares } from "./centre-prior.js";
import { pointPriorSquares } from "./point-prior.js";
import { priorsPredictedDecrease } from "./step.js";
import { allocatePanelScratch, choleskyUpperPanels } from "./dense-cholesky.js";
import type { Layout } from "./layout.js";
import { computeRotations, finishLinearization, type CostSum } from "./linearize.js";
import { startDenseReduced } from "./schur.js";
import type { SharedArena } from "./shared-arena.js";
import type { BaTeam, TeamSolve } from "./team.js";
import { cameraPartialLength, KERNEL, type SharedSolve, type ThreadContext } from "./team-kernels.js";
import type { BAProblem, Options } from "./types.js";
import type { Workspace } from "./workspace.js";

/** Thread ranges of points with about equal observation counts (the cost of both point passes grows with them). */
function pointRanges(layout: Layout, pointCount: number, threads: number, arena: SharedArena): Int32Array {
  const ranges = arena.allocate(Int32Array, threads + 1);
  const total = layout.pointObsStart[pointCount];
  let p = 0;
  for (let t = 1; t < threads; t++) {
    const target = (total * t) / threads;
    while (p < pointCount && layout.pointObsStart[p] < target) p++;
    ranges[t] = p;
  }
  ranges[threads] = pointCount;
  return ranges;
}

function evenRanges(count: number, threads: number, arena: SharedArena): Int32Array {
  const ranges = arena.allocate(Int32Array, threads + 1);
  for (let t = 0; t <= threads; t++) ranges[t] = Math.floor((count * t) / threads);
  return ranges;
}


/** Binds `team` to a solve whose problem and workspace were allocated in its arena (shareProblem, allocateWorkspace). */
export function bindTeam(team: BaTeam, problem: BAProblem, ws: Workspace, options: Options): TeamSolve {
  const { layout, normal, schur } = ws;
  const threads = team.threads;
  const groupCount = problem.intrinsics.length / 5;
  const workers = threads - 1;
  const arena = team.arena;
  const float64 = (length: number): Float64Array => arena.allocate(Float64Array, length);
  const shared: SharedSolve = {
    threads, loss: options.loss, lossScalePx: options.lossScalePx,
    cameraCount: problem.cameraCount, pointCount: problem.pointCount, observationCount: problem.observationCount, groupCount,
    poses: problem.poses, intrinsics: problem.intrinsics, points: problem.points, intrinsicsGroup: problem.intrinsicsGroup,
    obsCamera: problem.obsCamera, obsPoint: problem.obsPoint, obsXY: problem.obsXY, obsSigma: problem.obsSigma ?? null,
    intrinsicColumns: layout.intrinsicColumns, ni: layout.ni, reducedSize: layout.reducedSize, maxObsPerPoint: layout.maxObsPerPoint,
    poseBase: layout.poseBase, intrBase: layout.intrBase, pointFree: layout.pointFree, pointObsStart: layout.pointObsStart, pointObs: layout.pointObs,
    jc: normal.jc, jp: normal.jp, res: normal.res, w: normal.w, v: normal.v, gP: normal.gP, rotations: normal.rotations,
    diagP: schur.diagP, vinv: schur.vinv,
    trialPoses: ws.trial.poses, trialIntrinsics: ws.trial.intrinsics, trialPoints: ws.trial.points, trialRotations: ws.trialRotations,
    dR: ws.dR, dP: ws.dP,
    dense: ws.dense,
    panel: allocatePanelScratch(ws.dense ? layout.reducedSize : 0, (length) => arena.allocate(Int32Array, length)),
    cameraPartials: Array.from({ length: workers }, () => float64(cameraPartialLength(problem.cameraCount, groupCount, layout.reducedSize))),
    densePartials: ws.dense ? Array.from({ length: workers }, () => float64(layout.reducedSize * layout.reducedSize)) : [],
    rhsPartials: Array.from({ length: workers }, () => float64(layout.reducedSize)),
    pointRanges: pointRanges(layout, problem.pointCount, threads, arena),
    obsRanges: evenRanges(problem.observationCount, threads, arena),
    results: float64(2 * threads),
    params: float64(1),
  };
  const own: ThreadContext = { thread: 0, shared, problem, layout, normal, schur, dense: ws.dense, rhs: ws.rhs };
  team.bind(shared);
  return { team, shared, own };
}

function sumResults(shared: SharedSolve, column: 0 | 1): number {
  let sum = 0;
  for (let t = 0; t < shared.threads; t++) sum += shared.results[2 * t + column];
  return sum;
}

/** linearize() on the team: the threads' camera-side partials are added to thread 0's. */
export function teamLinearize(ts: TeamSolve, problem: BAProblem, ws: Workspace): CostSum {
  const { normal } = ws;
  computeRotations(problem.cameraCount, problem.poses, normal.rotations);
  ts.team.run(KERNEL.linearize, ts.own);
  const cams = problem.cameraCount;
  const groups = ts.shared.groupCount;
  for (const partial of ts.shared.cameraPartials) {
    addInto(normal.upp, partial, 0);
    addInto(normal.upi, partial, cams * 36);
    addInto(normal.uii, partial, cams * 66);
    addInto(normal.gR, partial, cams * 66 + groups * 25);
  }
  const priorCost = finishLinearization(problem, ws.layout, normal);
  return { cost: sumResults(ts.shared, 0) + priorCost, sumSquares: sumResults(ts.shared, 1) };
}

function addInto(target: Float64Array, source: Float64Array, offset: number): void {
  for (let k = 0; k < target.length; k++) target[k] += source[offset + k];
}

/** formDenseReduced() on the team; false if a point block is not positive definite. */
export function teamFormDense(ts: TeamSolve, problem: BAProblem, ws: Workspace, mu: number): boolean {
  const s = ws.dense!;
  const n = ws.layout.reducedSize;
  startDenseReduced(problem, ws.layout, ws.normal, ws.schur, mu, s, ws.rhs);
  ts.shared.params[0] = mu;
  ts.team.run(KERNEL.schur, ts.own);
  for (let t = 0; t < ts.shared.threads; t++) if (ts.shared.results[2 * t] !== 1) return false;
  ts.shared.densePartials.forEach((partial, w) => {
    // Upper triangles only: the factorisation reads no other entry.
    for (let i = 0; i < n; i++) for (let j = i * n + i, end = (i + 1) * n; j < end; j++) s[j] += partial[j];
    addInto(ws.rhs, ts.shared.rhsPartials[w], 0);
  });
  return true;
}

/** evaluateCost() of the workspace's trial parameters on the team. */
export function teamTrialCost(ts: TeamSolve, problem: BAProblem, ws: Workspace): CostSum {
  computeRotations(problem.cameraCount, ws.trial.poses, ws.trialRotations);
  ts.team.run(KERNEL.cost, ts.own);
  const priors = priorSquares(problem, ws.trial.poses, ws.trialRotations) + pointPriorSquares(problem, ws.trial.points);
  return { cost: sumResults(ts.shared, 0) + 0.5 * priors, sumSquares: sumResults(ts.shared, 1) };
}

export function teamBackSubstitute(ts: TeamSolve): void {
  ts.team.run(KERNEL.backSubstitute, ts.own);
}

/** predictedDecrease() of the workspace's step on the team. */
export function teamPredictedDecrease(ts: TeamSolve, problem: BAProblem, ws: Workspace): number {
  ts.team.run(KERNEL.predicted, ts.own);
  const decrease = sumResults(ts.shared, 0);
  return decrease + priorsPredictedDecrease(problem, ws.layout, ws.normal, ws.dR, ws.dP);
}

/** choleskyUpper() of the workspace's S on the team, by panels (the same factor bit for bit). */
export function teamCholesky(ts: TeamSolve, ws: Workspace): boolean {
  return choleskyUpperPanels(ws.dense!, ws.layout.reducedSize, ts.shared.panel, () => ts.team.run(KERNEL.cholesky, ts.own));
}
