/**
 * @module Schur complement of the point blocks (Triggs et al. 2000 §6.1; Lourakis & Argyros,
 * SBA; Agarwal et al. 2010 §3): with the damped normal equations
 *   [U* W; Wᵀ V*]·[δc; δp] = −[gc; gp],
 * the reduced camera system is S·δc = b with
 *   S = U* − Σ_points W_p·V*_p⁻¹·W_pᵀ,   b = −gc + Σ_points W_p·V*_p⁻¹·g_p,
 * and the points follow by back-substitution δp = V*_p⁻¹·(−g_p − W_pᵀ·δc).
 * Damping is Marquardt's: μ·diag(H), the diagonal clamped to [1e−6, 1e32] as Ceres does.
 *
 * For each point, its observations' W blocks are merged into "entries", one per distinct
 * reduced block it touches (each observing camera's pose, each intrinsics group), so one
 * point costs O(entries²) small products and a camera seeing a point twice still adds up.
 */
import type { Layout } from "./layout.js";
import { plainArray, type Allocate, type Normal } from "./linearize.js";
import { nativeBundle } from "./native-ba.js";
import type { BAProblem } from "./types.js";

const MIN_DIAGONAL = 1e-6;
const MAX_DIAGONAL = 1e32;

/** Per-problem buffers of the elimination. */
export interface SchurWork {
  /** Clamped diag(H) of the reduced variables (Marquardt scaling). */
  diagR: Float64Array;
  /** Clamped diag(V) per point (3). */
  diagP: Float64Array;
  /** Per point, (V + μ·diagP)⁻¹, 3×3. */
  vinv: Float64Array;
  /** Per reduced index: the current point's entry starting there, or −1. */
  entryOfBase: Int32Array;
  /** Current point's entries: reduced base index and block size. */
  entryBase: Int32Array;
  entrySize: Int32Array;
  /** Current point's entries: merged W (size×3, stride 18) and T = W·V*⁻¹ (same layout). */
  entryW: Float64Array;
  entryT: Float64Array;
}

/** `allocate` gives the per-point arrays, which a thread team shares (team.ts). */
export function allocateSchur(problem: BAProblem, layout: Layout, allocate: Allocate = plainArray): SchurWork {
  const maxEntries = 2 * Math.max(1, layout.maxObsPerPoint);
  return {
    diagR: new Float64Array(layout.reducedSize),
    diagP: allocate(problem.pointCount * 3),
    vinv: allocate(problem.pointCount * 9),
    entryOfBase: new Int32Array(layout.reducedSize).fill(-1),
    entryBase: new Int32Array(maxEntries),
    entrySize: new Int32Array(maxEntries),
    entryW: new Float64Array(maxEntries * 18),
    entryT: new Float64Array(maxEntries * 18),
  };
}

function clampDiagonal(value: number): number {
  return Math.min(MAX_DIAGONAL, Math.max(MIN_DIAGONAL, value));
}

/** Fills the Marquardt scaling diagonals from the current U and V. */
export function computeDampingDiagonals(problem: BAProblem, layout: Layout, normal: Normal, work: SchurWork): void {
  for (let c = 0; c < problem.cameraCount; c++) {
    const pb = layout.poseBase[c];
    if (pb < 0) continue;
    for (let k = 0; k < 6; k++) work.diagR[pb + k] = clampDiagonal(normal.upp[36 * c + 7 * k]);
  }
  const ni = layout.ni;
  for (let g = 0; g < layout.intrBase.length; g++) {
    const ib = layout.intrBase[g];
    if (ib < 0) continue;
    for (let k = 0; k < ni; k++) work.diagR[ib + k] = clampDiagonal(normal.uii[25 * g + k * (ni + 1)]);
  }
  for (let p = 0; p < problem.pointCount; p++) {
    for (let k = 0; k < 3; k++) work.diagP[3 * p + k] = clampDiagonal(normal.v[9 * p + 4 * k]);
  }
}

/** Writes (V_p + μ·diagP_p)⁻¹ into work.vinv by the adjugate. False if not positive definite. */
function invertDampedPoint(normal: Normal, work: SchurWork, p: number, mu: number): boolean {
  const v = normal.v;
  const o = 9 * p;
  const a00 = v[o] + mu * work.diagP[3 * p];
  const a11 = v[o + 4] + mu * work.diagP[3 * p + 1];
  const a22 = v[o + 8] + mu * work.diagP[3 * p + 2];
  const a01 = v[o + 1], a02 = v[o + 2], a12 = v[o + 5];
  const c00 = a11 * a22 - a12 * a12;
  const c01 = a02 * a12 - a01 * a22;
  const c02 = a01 * a12 - a02 * a11;
  const det = a00 * c00 + a01 * c01 + a02 * c02;
  if (!(det > 0) || !Number.isFinite(det)) return false;
  const inv = 1 / det;
  const out = work.vinv;
  out[o] = c00 * inv; out[o + 1] = c01 * inv; out[o + 2] = c02 * inv;
  out[o + 3] = c01 * inv; out[o + 4] = (a00 * a22 - a02 * a02) * inv; out[o + 5] = (a01 * a02 - a00 * a12) * inv;
  out[o + 6] = c02 * inv; out[o + 7] = out[o + 5]; out[o + 8] = (a00 * a11 - a01 * a01) * inv;
  return true;
}

/** Number of entries of the point being eliminated. */
let entryCount = 0;

/**
 * Adds `count` values of `w` from `wOff` into the entry of reduced base `base` (created if
 * new). `work.entryOfBase` finds it in O(1); eliminatePoint resets the marks it set.
 */
function addToEntry(work: SchurWork, base: number, size: number, w: Float64Array, wOff: number, count: number): void {
  let e = work.entryOfBase[base];
  if (e < 0) {
    e = entryCount++;
    work.entryOfBase[base] = e;
    work.entryBase[e] = base;
    work.entrySize[e] = size;
    const o = 18 * e;
    for (let i = 0; i < count; i++) work.entryW[o + i] = w[wOff + i];
    return;
  }
  const o = 18 * e;
  for (let i = 0; i < count; i++) work.entryW[o + i] += w[wOff + i];
}

/**
 * Inverts point p's damped V, merges its observations' W into entries, forms T = W·V*⁻¹ and
 * adds T·g_p to the reduced right-hand side `b`. Returns the entry count, or −1 if V* is
 * not positive definite.
 */
function eliminatePoint(problem: BAProblem, layout: Layout, normal: Normal, work: SchurWork, p: number, mu: number, b: Float64Array): number {
  if (!invertDampedPoint(normal, work, p, mu)) return -1;
  const cw3 = layout.cw * 3;
  const ni3 = layout.ni * 3;
  const w = normal.w;
  const entryW = work.entryW;
  entryCount = 0;
  for (let k = layout.pointObsStart[p]; k < layout.pointObsStart[p + 1]; k++) {
    const o = layout.pointObs[k];
    const c = problem.obsCamera[o];
    const pb = layout.poseBase[c];
    const ib = layout.intrBase[problem.intrinsicsGroup[c]];
    const wOff = o * cw3;
    if (pb >= 0) addToEntry(work, pb, 6, w, wOff, 18);
    if (ib >= 0) addToEntry(work, ib, layout.ni, w, wOff + 18, ni3);
  }
  const vi = work.vinv;
  const vo = 9 * p;
  const g0 = normal.gP[3 * p], g1 = normal.gP[3 * p + 1], g2 = normal.gP[3 * p + 2];
  for (let e = 0; e < entryCount; e++) {
    work.entryOfBase[work.entryBase[e]] = -1;
    const base = work.entryBase[e];
    for (let r = 0; r < work.entrySize[e]; r++) {
      const o = 18 * e + 3 * r;
      const w0 = entryW[o], w1 = entryW[o + 1], w2 = entryW[o + 2];
      const t0 = w0 * vi[vo] + w1 * vi[vo + 3] + w2 * vi[vo + 6];
      const t1 = w0 * vi[vo + 1] + w1 * vi[vo + 4] + w2 * vi[vo + 7];
      const t2 = w0 * vi[vo + 2] + w1 * vi[vo + 5] + w2 * vi[vo + 8];
      work.entryT[o] = t0; work.entryT[o + 1] = t1; work.entryT[o + 2] = t2;
      b[base + r] += t0 * g0 + t1 * g1 + t2 * g2;
    }
  }
  return entryCount;
}

/** S[row·n + col + k] −= T_i[r]·W_j[k] for k < count: one row of an off-diagonal block. */
function subtractRow(s: Float64Array, at: number, t: Float64Array, tOff: number, w: Float64Array, wOff: number, count: number): void {
  const t0 = t[tOff], t1 = t[tOff + 1], t2 = t[tOff + 2];
  for (let k = 0, q = wOff; k < count; k++, q += 3) s[at + k] -= t0 * w[q] + t1 * w[q + 1] + t2 * w[q + 2];
}

/**
 * Subtracts the current point's T_i·W_jᵀ blocks from the upper triangle of dense S (n×n).
 * T_i·W_jᵀ = (T_j·W_iᵀ)ᵀ because V*⁻¹ is symmetric, so a block below the diagonal is written
 * as the transposed product above it, row by contiguous row.
 */
function subtractPointDense(work: SchurWork, entries: number, s: Float64Array, n: number): void {
  const { entryBase, entrySize, entryW, entryT } = work;
  for (let i = 0; i < entries; i++) {
    const bi = entryBase[i], si = entrySize[i];
    for (let r = 0; r < si; r++) {
      subtractRow(s, (bi + r) * n + bi + r, entryT, 18 * i + 3 * r, entryW, 18 * i + 3 * r, si - r);
    }
    for (let j = i + 1; j < entries; j++) {
      const bj = entryBase[j], sj = entrySize[j];
      if (bi < bj) {
        for (let r = 0; r < si; r++) subtractRow(s, (bi + r) * n + bj, entryT, 18 * i + 3 * r, entryW, 18 * j, sj);
      } else {
        for (let c = 0; c < sj; c++) subtractRow(s, (bj + c) * n + bi, entryT, 18 * j + 3 * c, entryW, 18 * i, si);
      }
    }
  }
}

/** Adds U + μ·diagR into the upper triangle of dense S. */
function addDampedU(problem: BAProblem, layout: Layout, normal: Normal, work: SchurWork, mu: number, s: Float64Array): void {
  const n = layout.reducedSize;
  const ni = layout.ni;
  for (let c = 0; c < problem.cameraCount; c++) {
    const pb = layout.poseBase[c];
    if (pb < 0) continue;
    const ib = layout.intrBase[problem.intrinsicsGroup[c]];
    for (let i = 0; i < 6; i++) {
      for (let j = i; j < 6; j++) s[(pb + i) * n + pb + j] += normal.upp[36 * c + 6 * i + j];
      // Poses precede intrinsics in the reduced order, so pose–intrinsics is above the diagonal.
      if (ib >= 0) for (let j = 0; j < ni; j++) s[(pb + i) * n + ib + j] += normal.upi[30 * c + ni * i + j];
    }
  }
  for (let g = 0; g < layout.intrBase.length; g++) {
    const ib = layout.intrBase[g];
    if (ib < 0) continue;
    for (let i = 0; i < ni; i++) for (let j = i; j < ni; j++) s[(ib + i) * n + ib + j] += normal.uii[25 * g + ni * i + j];
  }
  for (let k = 0; k < n; k++) s[k * n + k] += mu * work.diagR[k];
}

/**
 * Forms the reduced camera system S (upper triangle, dense n×n) and b for damping μ.
 * Returns false if a point block is not positive definite.
 */
export function formDenseReduced(problem: BAProblem, layout: Layout, normal: Normal, work: SchurWork, mu: number, s: Float64Array, b: Float64Array): boolean {
  startDenseReduced(problem, layout, normal, work, mu, s, b);
  return eliminatePointsDense(problem, layout, normal, work, mu, s, b, 0, problem.pointCount);
}

/** S ← U + μ·diagR (upper triangle, the rest zero), b ← −g_c: the point-free part of formDenseReduced. */
export function startDenseReduced(problem: BAProblem, layout: Layout, normal: Normal, work: SchurWork, mu: number, s: Float64Array, b: Float64Array): void {
  s.fill(0);
  for (let k = 0; k < layout.reducedSize; k++) b[k] = -normal.gR[k];
  addDampedU(problem, layout, normal, work, mu, s);
}

/**
 * Subtracts the Schur terms of points [p0, p1) from S and adds theirs to b (one thread's
 * share: S and b may be a thread's own partial sums). Writes V*⁻¹ of those points. False if a
 * point block is not positive definite.
 */
export function eliminatePointsDense(problem: BAProblem, layout: Layout, normal: Normal, work: SchurWork, mu: number, s: Float64Array, b: Float64Array, p0: number, p1: number): boolean {
  const n = layout.reducedSize;
  const native = nativeBundle();
  if (native) {
    return native.eliminatePointsDense(layout.pointFree, layout.pointObsStart, layout.pointObs, problem.obsCamera, layout.poseBase, layout.intrBase, problem.intrinsicsGroup,
      normal.w, normal.v, normal.gP, work.diagP, work.vinv, s, b, work.entryOfBase, work.entryBase, work.entrySize, work.entryW, work.entryT, mu, n, layout.ni, p0, p1);
  }
  return eliminatePointsDenseTypeScript(problem, layout, normal, work, mu, s, b, p0, p1);
}

/** eliminatePointsDense in TypeScript: where the addon is not built, and the reference its tests hold it to. */
export function eliminatePointsDenseTypeScript(problem: BAProblem, layout: Layout, normal: Normal, work: SchurWork, mu: number, s: Float64Array, b: Float64Array, p0: number, p1: number): boolean {
  const n = layout.reducedSize;
  for (let p = p0; p < p1; p++) {
    if (!layout.pointFree[p]) continue;
    const entries = eliminatePoint(problem, layout, normal, work, p, mu, b);
    if (entries < 0) return false;
    subtractPointDense(work, entries, s, n);
  }
  return true;
}

/**
 * Computes b, V*⁻¹ and the diagonal blocks of S (block-Jacobi preconditioner of Agarwal et
 * al. 2010 §4.2) into `blocks` (stride 36, upper triangle, row stride = block size), without
 * forming S. Returns false if a point block is not positive definite.
 */
export function formReducedDiagonal(problem: BAProblem, layout: Layout, normal: Normal, work: SchurWork, mu: number, blocks: Float64Array, b: Float64Array): boolean {
  const n = layout.reducedSize;
  const ni = layout.ni;
  blocks.fill(0);
  for (let k = 0; k < n; k++) b[k] = -normal.gR[k];
  for (let c = 0; c < problem.cameraCount; c++) {
    const pb = layout.poseBase[c];
    if (pb < 0) continue;
    const o = 36 * layout.blockAt[pb];
    for (let i = 0; i < 36; i++) blocks[o + i] = normal.upp[36 * c + i];
    for (let k = 0; k < 6; k++) blocks[o + 7 * k] += mu * work.diagR[pb + k];
  }
  for (let g = 0; g < layout.intrBase.length; g++) {
    const ib = layout.intrBase[g];
    if (ib < 0) continue;
    const o = 36 * layout.blockAt[ib];
    for (let i = 0; i < ni * ni; i++) blocks[o + i] = normal.uii[25 * g + i];
    for (let k = 0; k < ni; k++) blocks[o + k * (ni + 1)] += mu * work.diagR[ib + k];
  }
  const { entryBase, entrySize, entryW, entryT } = work;
  for (let p = 0; p < problem.pointCount; p++) {
    if (!layout.pointFree[p]) continue;
    const entries = eliminatePoint(problem, layout, normal, work, p, mu, b);
    if (entries < 0) return false;
    for (let e = 0; e < entries; e++) {
      const size = entrySize[e];
      const o = 36 * layout.blockAt[entryBase[e]];
      for (let r = 0; r < size; r++) {
        const t = 18 * e + 3 * r;
        for (let c = r; c < size; c++) {
          const w = 18 * e + 3 * c;
          blocks[o + r * size + c] -= entryT[t] * entryW[w] + entryT[t + 1] * entryW[w + 1] + entryT[t + 2] * entryW[w + 2];
        }
      }
    }
  }
  return true;
}

/** Point steps from the camera step: δp = V*⁻¹·(−g_p − Σ_obs W_obsᵀ·δc_obs). Uses work.vinv of the last formation. */
export function backSubstitute(problem: BAProblem, layout: Layout, normal: Normal, work: SchurWork, dR: Float64Array, dP: Float64Array, p0 = 0, p1 = problem.pointCount): void {
  const cw = layout.cw;
  const ni = layout.ni;
  const w = normal.w;
  const vi = work.vinv;
  for (let p = p0; p < p1; p++) {
    if (!layout.pointFree[p]) continue;
    let s0 = -normal.gP[3 * p], s1 = -normal.gP[3 * p + 1], s2 = -normal.gP[3 * p + 2];
    for (let k = layout.pointObsStart[p]; k < layout.pointObsStart[p + 1]; k++) {
      const o = layout.pointObs[k];
      const c = problem.obsCamera[o];
      const pb = layout.poseBase[c];
      const ib = layout.intrBase[problem.intrinsicsGroup[c]];
      const wOff = o * cw * 3;
      if (pb >= 0) {
        for (let r = 0; r < 6; r++) {
          const x = dR[pb + r];
          s0 -= w[wOff + 3 * r] * x; s1 -= w[wOff + 3 * r + 1] * x; s2 -= w[wOff + 3 * r + 2] * x;
        }
      }
      if (ib >= 0) {
        for (let r = 0; r < ni; r++) {
          const x = dR[ib + r];
          const q = wOff + 18 + 3 * r;
          s0 -= w[q] * x; s1 -= w[q + 1] * x; s2 -= w[q + 2] * x;
        }
      }
    }
    const v = 9 * p;
    dP[3 * p] = vi[v] * s0 + vi[v + 1] * s1 + vi[v + 2] * s2;
    dP[3 * p + 1] = vi[v + 3] * s0 + vi[v + 4] * s1 + vi[v + 5] * s2;
    dP[3 * p + 2] = vi[v + 6] * s0 + vi[v + 7] * s1 + vi[v + 8] * s2;
  }
}
