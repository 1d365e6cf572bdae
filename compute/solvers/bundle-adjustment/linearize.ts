/**
 * @module Evaluation of the robustified residuals and the blocks of the Gauss–Newton normal
 * equations H = JᵀJ, g = Jᵀr, accumulated observation by observation into the partition
 * of Triggs et al. 2000 §6.1 / Lourakis & Argyros (SBA):
 *   [ U  W ] [δc]     [gc]      U: camera side (pose 6×6 per camera, pose–intrinsics
 *   [ Wᵀ V ] [δp] = − [gp]         6×ni per camera, intrinsics ni×ni per group)
 *                               V: 3×3 per point;  W: (6+ni)×3 per observation.
 * Robust losses enter by √ρ′ reweighting of residual and Jacobian (see loss.ts).
 */
import { accumulatePriors, allocatePriorLinearization, priorSquares, type PriorLinearization } from "./centre-prior.js";
import type { Layout } from "./layout.js";
import { accumulatePointPriors, allocatePointPriorLinearization, pointPriorSquares, type PointPriorLinearization } from "./point-prior.js";
import { JAC, projectResidual, projectWithJacobian } from "./projection.js";
import { angleAxisToMatrix } from "./rotation.js";
import { lossCurvature, lossValue, lossWeight, type LossName } from "./loss.js";
import { nativeBundle } from "./native-ba.js";
import type { BAProblem } from "./types.js";

/** Preallocated per-problem buffers of the normal equations. */
export interface Normal {
  /** Per observation, weighted camera-side Jacobian, row-major 2×cw. */
  jc: Float64Array;
  /** Per observation, weighted point Jacobian, row-major 2×3. */
  jp: Float64Array;
  /** Per observation, weighted residual (2). */
  res: Float64Array;
  /** Per observation, W = Jcᵀ·Jp, row-major cw×3. */
  w: Float64Array;
  /** Per camera, pose–pose block of U, 6×6. */
  upp: Float64Array;
  /** Per camera, pose–intrinsics block of U, 6×ni (stride 30). */
  upi: Float64Array;
  /** Per group, intrinsics–intrinsics block of U, ni×ni (stride 25). */
  uii: Float64Array;
  /** Per point, V, 3×3. */
  v: Float64Array;
  /** Gradient of the reduced (camera) variables. */
  gR: Float64Array;
  /** Gradient per point (3). */
  gP: Float64Array;
  /** Per camera, camFromWorld rotation matrix (9) at the current poses. */
  rotations: Float64Array;
  /** Scratch of one observation's raw residual and Jacobian (JAC layout). */
  scratch: Float64Array;
  /** The position priors' residuals and Jacobians, when the problem has priors. */
  prior: PriorLinearization | null;
  /** The point priors' residuals, when the problem has them. */
  pointPrior: PointPriorLinearization | null;
}

/** Makes a zeroed Float64Array of a length: plain memory, or shared with a thread team (team.ts). */
export type Allocate = (length: number) => Float64Array;

export const plainArray: Allocate = (length) => new Float64Array(length);

/**
 * The blocks a thread accumulates (U's camera blocks and the reduced gradient) are plain
 * memory here; the per-observation and per-point arrays, which the team's threads write for
 * disjoint points, come from `allocate`.
 */
export function allocateNormal(problem: BAProblem, layout: Layout, allocate: Allocate = plainArray): Normal {
  const nObs = problem.observationCount;
  const groupCount = problem.intrinsics.length / 5;
  return {
    jc: allocate(nObs * 2 * layout.cw),
    jp: allocate(nObs * 6),
    res: allocate(nObs * 2),
    w: allocate(nObs * layout.cw * 3),
    upp: new Float64Array(problem.cameraCount * 36),
    upi: new Float64Array(problem.cameraCount * 30),
    uii: new Float64Array(groupCount * 25),
    v: allocate(problem.pointCount * 9),
    gR: new Float64Array(layout.reducedSize),
    gP: allocate(problem.pointCount * 3),
    rotations: allocate(problem.cameraCount * 9),
    scratch: new Float64Array(JAC.size),
    prior: allocatePriorLinearization(problem),
    pointPrior: allocatePointPriorLinearization(problem),
  };
}

export function computeRotations(cameraCount: number, poses: Float64Array, out: Float64Array): void {
  for (let c = 0; c < cameraCount; c++) angleAxisToMatrix(poses, 6 * c, out, 9 * c);
}

/** Robust cost ½·Σρ and plain Σ‖r‖² of a residual evaluation. */
export interface CostSum {
  cost: number;
  sumSquares: number;
}

/**
 * Cost of the parameters `poses`, `intrinsics`, `points` (which may be trial copies of the
 * problem's). `rotations` is scratch of 9 per camera.
 */
export function evaluateCost(
  problem: BAProblem, poses: Float64Array, intrinsics: Float64Array, points: Float64Array,
  rotations: Float64Array, loss: LossName, scale: number, residual: Float64Array,
): CostSum {
  computeRotations(problem.cameraCount, poses, rotations);
  const sums = observationsCost(problem, poses, intrinsics, points, rotations, loss, scale, residual, 0, problem.observationCount);
  // Priors add to the cost, not to Σ‖r‖², which stays the photos' reprojection error.
  return { cost: sums.cost + 0.5 * (priorSquares(problem, poses, rotations) + pointPriorSquares(problem, points)), sumSquares: sums.sumSquares };
}

/** ½·Σρ and Σ‖r‖² of observations [o0, o1) at the given parameters, `rotations` already computed from `poses`. */
export function observationsCost(
  problem: BAProblem, poses: Float64Array, intrinsics: Float64Array, points: Float64Array,
  rotations: Float64Array, loss: LossName, scale: number, residual: Float64Array, o0: number, o1: number,
): CostSum {
  let cost = 0;
  let sumSquares = 0;
  const { obsCamera, obsPoint, intrinsicsGroup, obsXY, obsSigma } = problem;
  for (let o = o0; o < o1; o++) {
    const c = obsCamera[o];
    const s = projectResidual(rotations, 9 * c, poses, 6 * c, points, 3 * obsPoint[o],
      intrinsics, 5 * intrinsicsGroup[c], obsXY, 2 * o, residual, 0);
    const sigma = obsSigma ? obsSigma[o] : 1;
    cost += lossValue(loss, s / (sigma * sigma), scale);
    sumSquares += s;
  }
  return { cost: 0.5 * cost, sumSquares };
}

/**
 * Smallest radial curvature ratio 1 + 2sρ″/ρ′ at which the Triggs correction is applied (see
 * storeWeighted). Measured on the bench scene: 13 iterations instead of 14 for Cauchy; the
 * full correction applied everywhere (clamped at 0.1 or 0.3) did not converge in 50.
 */
const MIN_RADIAL_CURVATURE = 0.3;

/**
 * Copies one observation's raw residual and Jacobian into the per-observation arrays,
 * robustified by Triggs et al. 2000 §4.3 (as Ceres' Corrector): with P = r·rᵀ/s,
 *   J̃ = √ρ′·(I − α·P)·J,  r̃ = √ρ′/(1 − α)·r,  α = 1 − √(1 + 2sρ″/ρ′),
 * so that J̃ᵀr̃ = ρ′·Jᵀr (the exact gradient) and J̃ᵀJ̃ = Jᵀ(ρ′·I + 2ρ″·r·rᵀ)J (the exact
 * Gauss–Newton Hessian of ρ). Plain √ρ′ reweighting (IRLS) drops the ρ″ term, overestimates
 * the curvature of a Cauchy loss and converges only linearly near the optimum. Where the
 * radial curvature 1 + 2sρ″/ρ′ falls below MIN_RADIAL_CURVATURE (towards and into the
 * non-convex outlier zone, where Ceres found the correction slows convergence and where
 * r̃ would grow without bound as α → 1) plain √ρ′ reweighting is used, as Ceres does.
 */
function storeWeighted(normal: Normal, layout: Layout, o: number, s: number, rho1: number, rho2: number): void {
  const src = normal.scratch;
  const sqrtRho1 = Math.sqrt(rho1);
  let alphaOverS = 0;
  let residualScale = sqrtRho1;
  if (s > 0 && rho2 < 0) {
    const ratio = 1 + (2 * s * rho2) / rho1;
    if (ratio >= MIN_RADIAL_CURVATURE) {
      const root = Math.sqrt(ratio);
      alphaOverS = (1 - root) / s;
      residualScale = sqrtRho1 / root;
    }
  }
  const r0 = src[0];
  const r1 = src[1];
  const k0 = alphaOverS * r0;
  const k1 = alphaOverS * r1;
  const cw = layout.cw;
  const jc = normal.jc;
  const jcOff = o * 2 * cw;
  for (let k = 0; k < 6; k++) {
    const j0 = src[2 + k], j1 = src[8 + k];
    const rj = r0 * j0 + r1 * j1;
    jc[jcOff + k] = sqrtRho1 * (j0 - k0 * rj);
    jc[jcOff + cw + k] = sqrtRho1 * (j1 - k1 * rj);
  }
  for (let k = 0; k < layout.ni; k++) {
    const col = layout.intrinsicColumns[k];
    const j0 = src[20 + col], j1 = src[25 + col];
    const rj = r0 * j0 + r1 * j1;
    jc[jcOff + 6 + k] = sqrtRho1 * (j0 - k0 * rj);
    jc[jcOff + cw + 6 + k] = sqrtRho1 * (j1 - k1 * rj);
  }
  const jp = normal.jp;
  for (let k = 0; k < 3; k++) {
    const j0 = src[14 + k], j1 = src[17 + k];
    const rj = r0 * j0 + r1 * j1;
    jp[6 * o + k] = sqrtRho1 * (j0 - k0 * rj);
    jp[6 * o + 3 + k] = sqrtRho1 * (j1 - k1 * rj);
  }
  normal.res[2 * o] = residualScale * r0;
  normal.res[2 * o + 1] = residualScale * r1;
}

/**
 * Adds one stored observation's contributions to U, V, W and the gradients. Only upper
 * triangles of the symmetric blocks are accumulated here; `mirrorBlocks` fills the rest.
 */
function accumulate(problem: BAProblem, layout: Layout, normal: Normal, o: number): void {
  const c = problem.obsCamera[o];
  const g = problem.intrinsicsGroup[c];
  const p = problem.obsPoint[o];
  const cw = layout.cw;
  const ni = layout.ni;
  const { jc, jp, res } = normal;
  const row0 = o * 2 * cw;
  const row1 = row0 + cw;
  const r0 = res[2 * o], r1 = res[2 * o + 1];
  const pb = layout.poseBase[c];
  const ib = layout.intrBase[g];
  if (pb >= 0) {
    const upp = normal.upp;
    const gR = normal.gR;
    for (let i = 0; i < 6; i++) {
      const a0 = jc[row0 + i], a1 = jc[row1 + i];
      const u = 36 * c + 6 * i;
      for (let j = i; j < 6; j++) upp[u + j] += a0 * jc[row0 + j] + a1 * jc[row1 + j];
      gR[pb + i] += a0 * r0 + a1 * r1;
      if (ib >= 0) {
        const q = 30 * c + ni * i;
        for (let j = 0; j < ni; j++) normal.upi[q + j] += a0 * jc[row0 + 6 + j] + a1 * jc[row1 + 6 + j];
      }
    }
  }
  if (ib >= 0) {
    for (let i = 0; i < ni; i++) {
      const a0 = jc[row0 + 6 + i], a1 = jc[row1 + 6 + i];
      const u = 25 * g + ni * i;
      for (let j = i; j < ni; j++) normal.uii[u + j] += a0 * jc[row0 + 6 + j] + a1 * jc[row1 + 6 + j];
      normal.gR[ib + i] += a0 * r0 + a1 * r1;
    }
  }
  if (layout.pointFree[p]) {
    const p0 = jp[6 * o], p1 = jp[6 * o + 1], p2 = jp[6 * o + 2];
    const q0 = jp[6 * o + 3], q1 = jp[6 * o + 4], q2 = jp[6 * o + 5];
    const v = normal.v;
    const vo = 9 * p;
    v[vo] += p0 * p0 + q0 * q0; v[vo + 1] += p0 * p1 + q0 * q1; v[vo + 2] += p0 * p2 + q0 * q2;
    v[vo + 4] += p1 * p1 + q1 * q1; v[vo + 5] += p1 * p2 + q1 * q2; v[vo + 8] += p2 * p2 + q2 * q2;
    const gP = normal.gP;
    gP[3 * p] += p0 * r0 + q0 * r1; gP[3 * p + 1] += p1 * r0 + q1 * r1; gP[3 * p + 2] += p2 * r0 + q2 * r1;
    const w = normal.w;
    let wo = o * cw * 3;
    for (let i = 0; i < cw; i++, wo += 3) {
      const a0 = jc[row0 + i], a1 = jc[row1 + i];
      w[wo] = a0 * p0 + a1 * q0; w[wo + 1] = a0 * p1 + a1 * q1; w[wo + 2] = a0 * p2 + a1 * q2;
    }
  }
}

function mirror(a: Float64Array, o: number, n: number): void {
  for (let i = 1; i < n; i++) for (let j = 0; j < i; j++) a[o + n * i + j] = a[o + n * j + i];
}

function mirrorCameraBlocks(layout: Layout, normal: Normal): void {
  for (let c = 0; c < layout.poseBase.length; c++) if (layout.poseBase[c] >= 0) mirror(normal.upp, 36 * c, 6);
  for (let g = 0; g < layout.intrBase.length; g++) if (layout.intrBase[g] >= 0) mirror(normal.uii, 25 * g, layout.ni);
}

/** Copies the accumulated upper triangles of U's pose and intrinsics blocks and of V below their diagonals. */
function mirrorBlocks(layout: Layout, normal: Normal): void {
  mirrorCameraBlocks(layout, normal);
  for (let p = 0; p < layout.pointFree.length; p++) if (layout.pointFree[p]) mirror(normal.v, 9 * p, 3);
}

/** Divides one observation's residual and Jacobian (JAC layout) by its σ; returns the whitened squared norm. */
function whiten(scratch: Float64Array, squaredNorm: number, sigma: number): number {
  if (sigma === 1) return squaredNorm;
  const inverse = 1 / sigma;
  for (let k = 0; k < JAC.size; k++) scratch[k] *= inverse;
  return squaredNorm * inverse * inverse;
}

/**
 * Evaluates residuals and Jacobians at the problem's current parameters and rebuilds every
 * block of the normal equations. Returns the robust cost and Σ‖r‖².
 */
export function linearize(problem: BAProblem, layout: Layout, normal: Normal, loss: LossName, scale: number): CostSum {
  normal.upp.fill(0); normal.upi.fill(0); normal.uii.fill(0); normal.v.fill(0);
  normal.gR.fill(0); normal.gP.fill(0);
  computeRotations(problem.cameraCount, problem.poses, normal.rotations);
  const sums: CostSum = { cost: 0, sumSquares: 0 };
  linearizeObservations(problem, layout, normal, loss, scale, false, 0, problem.observationCount, sums);
  if (normal.prior) sums.cost += accumulatePriors(problem, layout, normal.rotations, normal.upp, normal.gR, normal.prior);
  if (normal.pointPrior) sums.cost += accumulatePointPriors(problem, layout, normal.v, normal.gP, normal.pointPrior);
  mirrorBlocks(layout, normal);
  return { cost: 0.5 * sums.cost, sumSquares: sums.sumSquares };
}

/** Evaluates observation o and adds it to the normal equations; adds ρ (not halved) and ‖r‖² to `sums`. */
function linearizeObservation(problem: BAProblem, layout: Layout, normal: Normal, o: number, loss: LossName, scale: number, sums: CostSum): void {
  const c = problem.obsCamera[o];
  const s = projectWithJacobian(normal.rotations, 9 * c, problem.poses, 6 * c, problem.points, 3 * problem.obsPoint[o],
    problem.intrinsics, 5 * problem.intrinsicsGroup[c], problem.obsXY, 2 * o, normal.scratch);
  sums.sumSquares += s;
  const whitened = problem.obsSigma ? whiten(normal.scratch, s, problem.obsSigma[o]) : s;
  sums.cost += lossValue(loss, whitened, scale);
  storeWeighted(normal, layout, o, whitened, lossWeight(loss, whitened, scale), lossCurvature(loss, whitened, scale));
  accumulate(problem, layout, normal, o);
}

/** ../loss.ts LossName as the addon numbers it (native/linearize.h). */
const LOSS_CODE: Record<LossName, number> = { squared: 0, huber: 1, cauchy: 2 };

/** Per observation, its whitened squared norm from the addon (one array per thread, grown as needed). */
let whitenedScratch = new Float64Array(0);

/**
 * The observation loop of `linearize` (observations [from, to)) or of `linearizePoints` (points
 * [from, to)) in the addon (native-ba.ts), with the same bits; false where it is not built. ρ is
 * summed here, in the loop's order, from the whitened norms the addon leaves: Cauchy's log1p
 * stays V8's.
 */
export function linearizeNative(problem: BAProblem, layout: Layout, normal: Normal, loss: LossName, scale: number, byPoints: boolean, from: number, to: number, sums: CostSum): boolean {
  const native = nativeBundle();
  if (!native) return false;
  if (whitenedScratch.length < problem.observationCount) whitenedScratch = new Float64Array(problem.observationCount);
  const whitened = whitenedScratch;
  sums.sumSquares += native.linearize(
    [problem.poses, problem.points, problem.intrinsics, problem.obsXY, problem.obsSigma ?? null, problem.obsCamera, problem.obsPoint, problem.intrinsicsGroup],
    [layout.pointFree, layout.pointObsStart, layout.pointObs, layout.poseBase, layout.intrBase, layout.intrinsicColumns],
    [normal.jc, normal.jp, normal.res, normal.w, normal.upp, normal.upi, normal.uii, normal.v, normal.gR, normal.gP, normal.rotations, whitened],
    layout.ni, LOSS_CODE[loss], scale, byPoints, from, to,
  );
  let cost = sums.cost;
  if (byPoints) {
    const { pointObsStart, pointObs } = layout;
    for (let p = from; p < to; p++) for (let k = pointObsStart[p]; k < pointObsStart[p + 1]; k++) cost += lossValue(loss, whitened[pointObs[k]], scale);
  } else {
    for (let o = from; o < to; o++) cost += lossValue(loss, whitened[o], scale);
  }
  sums.cost = cost;
  return true;
}

/**
 * One thread's share of `linearize`: the observations of points [p0, p1), taken point by
 * point so that V, g_p and W of a point are written by one thread only. U's camera blocks and
 * the reduced gradient accumulate into `normal`'s upp, upi, uii and gR, which the caller has
 * zeroed (a thread's partial sums, added up by team order afterwards). `normal.rotations`
 * must hold the current poses' matrices. Mirrors V of its points; returns ½·Σρ and Σ‖r‖².
 */
export function linearizePoints(problem: BAProblem, layout: Layout, normal: Normal, loss: LossName, scale: number, p0: number, p1: number): CostSum {
  const sums: CostSum = { cost: 0, sumSquares: 0 };
  linearizeObservations(problem, layout, normal, loss, scale, true, p0, p1, sums);
  return { cost: 0.5 * sums.cost, sumSquares: sums.sumSquares };
}

/**
 * The observation loop of `linearize` (observations [from, to)) or of `linearizePoints` (points
 * [from, to), each point's V and g_p zeroed first and V mirrored after): ρ (not halved) and
 * ‖r‖² are added to `sums`. In the addon where it loads, with the same bits.
 */
function linearizeObservations(problem: BAProblem, layout: Layout, normal: Normal, loss: LossName, scale: number, byPoints: boolean, from: number, to: number, sums: CostSum): void {
  if (!linearizeNative(problem, layout, normal, loss, scale, byPoints, from, to, sums)) linearizeObservationsTypeScript(problem, layout, normal, loss, scale, byPoints, from, to, sums);
}

/** linearizeObservations in TypeScript: where the addon is not built, and the reference its tests hold it to. */
export function linearizeObservationsTypeScript(problem: BAProblem, layout: Layout, normal: Normal, loss: LossName, scale: number, byPoints: boolean, from: number, to: number, sums: CostSum): void {
  if (!byPoints) {
    for (let o = from; o < to; o++) linearizeObservation(problem, layout, normal, o, loss, scale, sums);
    return;
  }
  const { pointObsStart, pointObs } = layout;
  for (let p = from; p < to; p++) {
    normal.v.fill(0, 9 * p, 9 * p + 9);
    normal.gP.fill(0, 3 * p, 3 * p + 3);
    for (let k = pointObsStart[p]; k < pointObsStart[p + 1]; k++) linearizeObservation(problem, layout, normal, pointObs[k], loss, scale, sums);
    if (layout.pointFree[p]) {
      const v = normal.v;
      const o = 9 * p;
      v[o + 3] = v[o + 1]; v[o + 6] = v[o + 2]; v[o + 7] = v[o + 5];
    }
  }
}

/**
 * What `linearize` does after the observations, for a team's solve: the position priors, and
 * the lower triangles of U's camera blocks (V's were mirrored by linearizePoints; the point
 * priors add to V's diagonal only, on the calling thread once the team's pass is over).
 */
export function finishLinearization(problem: BAProblem, layout: Layout, normal: Normal): number {
  let priorCost = normal.prior ? 0.5 * accumulatePriors(problem, layout, normal.rotations, normal.upp, normal.gR, normal.prior) : 0;
  if (normal.pointPrior) priorCost += 0.5 * accumulatePointPriors(problem, layout, normal.v, normal.gP, normal.pointPrior);
  mirrorCameraBlocks(layout, normal);
  return priorCost;
}
