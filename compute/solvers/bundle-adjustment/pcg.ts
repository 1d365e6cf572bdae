/**
 * @module Iterative solve of the reduced camera system for large problems: conjugate
 * gradients preconditioned by the block diagonal of S ("Jacobi" in Agarwal et al. 2010,
 * "Bundle Adjustment in the Large", §4), with S applied implicitly as
 *   S·x = U*·x − Σ_points W_p·(V*_p⁻¹·(W_pᵀ·x)),
 * so S is never formed: each product costs O(observations), memory stays O(observations).
 */
import type { Layout } from "./layout.js";
import type { Normal } from "./linearize.js";
import type { SchurWork } from "./schur.js";
import type { BAProblem } from "./types.js";
import { choleskySolveUpperAt, choleskyUpperAt } from "./dense-cholesky.js";

/** Per-problem buffers of the PCG solve (all of reduced length except `blocks`). */
export interface PcgWork {
  /** Factored preconditioner blocks, stride 36. */
  blocks: Float64Array;
  residual: Float64Array;
  direction: Float64Array;
  product: Float64Array;
  preconditioned: Float64Array;
}

export function allocatePcg(layout: Layout): PcgWork {
  const n = layout.reducedSize;
  return {
    blocks: new Float64Array(36 * layout.blockBase.length),
    residual: new Float64Array(n),
    direction: new Float64Array(n),
    product: new Float64Array(n),
    preconditioned: new Float64Array(n),
  };
}

/** U*·x for the camera-side block structure (pose, pose–intrinsics, intrinsics). */
function multiplyDampedU(problem: BAProblem, layout: Layout, normal: Normal, work: SchurWork, mu: number, x: Float64Array, y: Float64Array): void {
  const ni = layout.ni;
  for (let k = 0; k < layout.reducedSize; k++) y[k] = mu * work.diagR[k] * x[k];
  for (let c = 0; c < problem.cameraCount; c++) {
    const pb = layout.poseBase[c];
    if (pb < 0) continue;
    const ib = layout.intrBase[problem.intrinsicsGroup[c]];
    for (let i = 0; i < 6; i++) {
      let sum = 0;
      for (let j = 0; j < 6; j++) sum += normal.upp[36 * c + 6 * i + j] * x[pb + j];
      if (ib >= 0) {
        for (let j = 0; j < ni; j++) {
          const uij = normal.upi[30 * c + ni * i + j];
          sum += uij * x[ib + j];
          y[ib + j] += uij * x[pb + i];
        }
      }
      y[pb + i] += sum;
    }
  }
  for (let g = 0; g < layout.intrBase.length; g++) {
    const ib = layout.intrBase[g];
    if (ib < 0) continue;
    for (let i = 0; i < ni; i++) {
      let sum = 0;
      for (let j = 0; j < ni; j++) sum += normal.uii[25 * g + ni * i + j] * x[ib + j];
      y[ib + i] += sum;
    }
  }
}

/** y = S·x without forming S. Needs work.vinv from the current formation. */
export function multiplyReduced(problem: BAProblem, layout: Layout, normal: Normal, work: SchurWork, mu: number, x: Float64Array, y: Float64Array): void {
  multiplyDampedU(problem, layout, normal, work, mu, x, y);
  const cw3 = layout.cw * 3;
  const ni = layout.ni;
  const w = normal.w;
  const vi = work.vinv;
  for (let p = 0; p < problem.pointCount; p++) {
    if (!layout.pointFree[p]) continue;
    const start = layout.pointObsStart[p];
    const end = layout.pointObsStart[p + 1];
    // z = W_pᵀ·x.
    let z0 = 0, z1 = 0, z2 = 0;
    for (let k = start; k < end; k++) {
      const o = layout.pointObs[k];
      const c = problem.obsCamera[o];
      const pb = layout.poseBase[c];
      const ib = layout.intrBase[problem.intrinsicsGroup[c]];
      const wOff = o * cw3;
      if (pb >= 0) for (let r = 0; r < 6; r++) {
        const xr = x[pb + r];
        z0 += w[wOff + 3 * r] * xr; z1 += w[wOff + 3 * r + 1] * xr; z2 += w[wOff + 3 * r + 2] * xr;
      }
      if (ib >= 0) for (let r = 0; r < ni; r++) {
        const xr = x[ib + r];
        const q = wOff + 18 + 3 * r;
        z0 += w[q] * xr; z1 += w[q + 1] * xr; z2 += w[q + 2] * xr;
      }
    }
    // z ← V*⁻¹·z, then y −= W_p·z.
    const v = 9 * p;
    const q0 = vi[v] * z0 + vi[v + 1] * z1 + vi[v + 2] * z2;
    const q1 = vi[v + 3] * z0 + vi[v + 4] * z1 + vi[v + 5] * z2;
    const q2 = vi[v + 6] * z0 + vi[v + 7] * z1 + vi[v + 8] * z2;
    for (let k = start; k < end; k++) {
      const o = layout.pointObs[k];
      const c = problem.obsCamera[o];
      const pb = layout.poseBase[c];
      const ib = layout.intrBase[problem.intrinsicsGroup[c]];
      const wOff = o * cw3;
      if (pb >= 0) for (let r = 0; r < 6; r++) {
        y[pb + r] -= w[wOff + 3 * r] * q0 + w[wOff + 3 * r + 1] * q1 + w[wOff + 3 * r + 2] * q2;
      }
      if (ib >= 0) for (let r = 0; r < ni; r++) {
        const qo = wOff + 18 + 3 * r;
        y[ib + r] -= w[qo] * q0 + w[qo + 1] * q1 + w[qo + 2] * q2;
      }
    }
  }
}

/** Factors the block-Jacobi preconditioner in place. False if a block is not positive definite. */
export function factorPreconditioner(layout: Layout, pcg: PcgWork): boolean {
  for (let k = 0; k < layout.blockBase.length; k++) {
    if (!choleskyUpperAt(pcg.blocks, 36 * k, layout.blockSize[k])) return false;
  }
  return true;
}

function applyPreconditioner(layout: Layout, pcg: PcgWork, r: Float64Array, z: Float64Array): void {
  z.set(r);
  for (let k = 0; k < layout.blockBase.length; k++) {
    choleskySolveUpperAt(pcg.blocks, 36 * k, layout.blockSize[k], z, layout.blockBase[k]);
  }
}

function dot(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

export interface PcgSettings {
  maxIterations: number;
  /** Stop when ‖S·x − b‖ ≤ relativeTolerance·‖b‖. */
  relativeTolerance: number;
}

/**
 * Solves S·x = b by preconditioned conjugate gradients from x = 0 (after
 * `formReducedDiagonal` and `factorPreconditioner`). Returns the iterations used.
 */
export function solvePcg(
  problem: BAProblem, layout: Layout, normal: Normal, work: SchurWork, pcg: PcgWork,
  mu: number, b: Float64Array, x: Float64Array, settings: PcgSettings,
): number {
  const { residual: r, direction: d, product: q, preconditioned: z } = pcg;
  x.fill(0);
  r.set(b);
  const bNorm = Math.sqrt(dot(b, b));
  if (bNorm === 0) return 0;
  applyPreconditioner(layout, pcg, r, z);
  d.set(z);
  let rz = dot(r, z);
  let iteration = 0;
  while (iteration < settings.maxIterations) {
    iteration++;
    multiplyReduced(problem, layout, normal, work, mu, d, q);
    const curvature = dot(d, q);
    if (!(curvature > 0)) break;
    const alpha = rz / curvature;
    for (let i = 0; i < x.length; i++) {
      x[i] += alpha * d[i];
      r[i] -= alpha * q[i];
    }
    if (Math.sqrt(dot(r, r)) <= settings.relativeTolerance * bNorm) break;
    applyPreconditioner(layout, pcg, r, z);
    const rzNext = dot(r, z);
    const beta = rzNext / rz;
    rz = rzNext;
    for (let i = 0; i < d.length; i++) d[i] = z[i] + beta * d[i];
  }
  return iteration;
}
