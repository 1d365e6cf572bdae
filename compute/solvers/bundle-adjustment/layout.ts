/**
 * @module Which parameters of a BA problem are variables, and where each sits in the
 * reduced camera system (Triggs et al. 2000 §6.1; Agarwal et al. 2010 §3).
 *
 * The reduced vector holds, in order, one 6-block (δ rotation, δ translation) per free
 * camera pose (in camera order, or in the banded order of ordering.ts above
 * BANDED_ORDER_MIN_CAMERAS free poses), then one `ni`-block per intrinsics group, `ni` being the number of refined
 * intrinsics (focal, principal point, k1, k2 as the options say). Points are eliminated by
 * the Schur complement and never enter it. A pose is free when it is not fixed and has an
 * observation; a group when something is refined and one of its cameras has an observation;
 * a point when it is not fixed and has an observation (unobserved variables would make the
 * normal equations singular for no benefit).
 */
import type { BAProblem, Options } from "./types.js";
import { bandedOrder, coVisibility, envelopeCost } from "./ordering.js";
import { INTRINSIC } from "./projection.js";

/** Free cameras above which the pose blocks are numbered in banded order (ordering.ts). */
export const BANDED_ORDER_MIN_CAMERAS = 100;

export interface Layout {
  /** Indices (0..4 into focal, cx, cy, k1, k2) of the refined intrinsics, in reduced order. */
  intrinsicColumns: Int32Array;
  /** Number of refined intrinsics per group. */
  ni: number;
  /** Width of one observation's camera-side Jacobian: 6 pose columns then `ni`. */
  cw: number;
  /** Per camera: first reduced index of its pose block, −1 if the pose is held constant. */
  poseBase: Int32Array;
  /** Per group: first reduced index of its intrinsics block, −1 if not refined. */
  intrBase: Int32Array;
  /** Length of the reduced camera vector. */
  reducedSize: number;
  freePoseCount: number;
  freeGroupCount: number;
  /** Per point: 1 when the point is a variable. */
  pointFree: Uint8Array;
  freePointCount: number;
  /** Observations grouped by point, CSR: those of point p are pointObs[pointObsStart[p] .. pointObsStart[p+1]). */
  pointObsStart: Uint32Array;
  pointObs: Uint32Array;
  maxObsPerPoint: number;
  /** Blocks of the reduced vector (poses, then groups): first index and size of each. */
  blockBase: Int32Array;
  blockSize: Int32Array;
  /** Per reduced index: the block starting there, or −1 inside a block. */
  blockAt: Int32Array;
  /** Multiply-adds of a dense Cholesky of the reduced system in this order (NaN below BANDED_ORDER_MIN_CAMERAS free poses). */
  denseCost: number;
}

function refinedIntrinsics(options: Options): Int32Array {
  const columns: number[] = [];
  if (options.refineFocal) columns.push(INTRINSIC.focal);
  if (options.refinePrincipalPoint) columns.push(INTRINSIC.cx, INTRINSIC.cy);
  if (options.refineDistortion) columns.push(INTRINSIC.k1, INTRINSIC.k2);
  return Int32Array.from(columns);
}

function groupObservationsByPoint(problem: BAProblem): { start: Uint32Array; list: Uint32Array; max: number } {
  const start = new Uint32Array(problem.pointCount + 1);
  for (let o = 0; o < problem.observationCount; o++) start[problem.obsPoint[o] + 1]++;
  let max = 0;
  for (let p = 0; p < problem.pointCount; p++) {
    max = Math.max(max, start[p + 1]);
    start[p + 1] += start[p];
  }
  const fill = start.slice(0, problem.pointCount);
  const list = new Uint32Array(problem.observationCount);
  for (let o = 0; o < problem.observationCount; o++) list[fill[problem.obsPoint[o]]++] = o;
  return { start, list, max };
}

export function buildLayout(problem: BAProblem, options: Options): Layout {
  const intrinsicColumns = refinedIntrinsics(options);
  const ni = intrinsicColumns.length;
  const groupCount = problem.intrinsics.length / 5;
  const cameraSeen = new Uint8Array(problem.cameraCount);
  for (let o = 0; o < problem.observationCount; o++) cameraSeen[problem.obsCamera[o]] = 1;
  const groupSeen = new Uint8Array(groupCount);
  for (let c = 0; c < problem.cameraCount; c++) if (cameraSeen[c]) groupSeen[problem.intrinsicsGroup[c]] = 1;

  const blockBase: number[] = [];
  const blockSize: number[] = [];
  let next = 0;
  const poseBase = new Int32Array(problem.cameraCount).fill(-1);
  const byPoint = groupObservationsByPoint(problem);
  const free = Uint8Array.from({ length: problem.cameraCount }, (_, c) => (cameraSeen[c] && problem.fixedPose?.[c] !== 1 ? 1 : 0));
  const freeCount = free.reduce((s, f) => s + f, 0);
  // Small problems keep the camera order (their results stay bit for bit what they were).
  let order = Array.from({ length: problem.cameraCount }, (_, c) => c);
  let denseCost = NaN;
  if (freeCount > BANDED_ORDER_MIN_CAMERAS) {
    const neighbours = coVisibility(problem.cameraCount, free, byPoint.start, byPoint.list, problem.obsCamera);
    order = bandedOrder(neighbours, free);
    denseCost = envelopeCost(order, neighbours, 6, ni * groupCount);
  }
  for (const c of order) {
    if (!free[c]) continue;
    poseBase[c] = next;
    blockBase.push(next);
    blockSize.push(6);
    next += 6;
  }
  const freePoseCount = blockBase.length;
  const intrBase = new Int32Array(groupCount).fill(-1);
  for (let g = 0; g < groupCount && ni > 0; g++) {
    if (!groupSeen[g]) continue;
    intrBase[g] = next;
    blockBase.push(next);
    blockSize.push(ni);
    next += ni;
  }
  const blockAt = new Int32Array(next).fill(-1);
  blockBase.forEach((base, k) => (blockAt[base] = k));

  const pointFree = new Uint8Array(problem.pointCount);
  let freePointCount = 0;
  for (let p = 0; p < problem.pointCount; p++) {
    if (problem.fixedPoint?.[p] === 1 || byPoint.start[p + 1] === byPoint.start[p]) continue;
    pointFree[p] = 1;
    freePointCount++;
  }
  return {
    intrinsicColumns, ni, cw: 6 + ni, poseBase, intrBase, reducedSize: next,
    freePoseCount, freeGroupCount: blockBase.length - freePoseCount,
    pointFree, freePointCount,
    pointObsStart: byPoint.start, pointObs: byPoint.list, maxObsPerPoint: byPoint.max,
    blockBase: Int32Array.from(blockBase), blockSize: Int32Array.from(blockSize), blockAt, denseCost,
  };
}
