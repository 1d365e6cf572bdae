/**
 * @module In-place Cholesky A = RᵀR of a dense symmetric positive definite matrix held in
 * its upper triangle (row-major n×n), and the two triangular solves. Right-looking so the
 * inner loop runs along rows; at most n³/6 multiply-adds, far fewer for sparse systems.
 */

/**
 * Factors the upper triangle of `a` in place into R. Returns false if `a` is not numerically
 * positive definite. `columns` is scratch of length n.
 *
 * The update from row k only touches the columns where row k of R is non-zero (gathered
 * into `columns`), so a reduced camera system that is mostly banded, as camera graphs of a
 * walk-around or a video are, costs about Σ_k nnz(R_k)²/2 instead of n³/6; rows that are
 * mostly non-zero take the contiguous loop.
 */
export function choleskyUpper(a: Float64Array, n: number, columns: Int32Array): boolean {
  for (let k = 0; k < n; k++) {
    const rowK = k * n;
    const count = factorPivotRow(a, n, k, columns, 0);
    if (count < 0) return false;
    if (2 * count > n - k) {
      for (let c = 0; c < count; c++) {
        const i = columns[c];
        const rki = a[rowK + i];
        const rowI = i * n;
        for (let j = i; j < n; j++) a[rowI + j] -= rki * a[rowK + j];
      }
    } else {
      for (let c = 0; c < count; c++) {
        const i = columns[c];
        const rki = a[rowK + i];
        const rowI = i * n;
        for (let d = c; d < count; d++) {
          const j = columns[d];
          a[rowI + j] -= rki * a[rowK + j];
        }
      }
    }
  }
  return true;
}

/**
 * Makes row k of the factor from the updated row k of `a`: its diagonal r_kk = √a_kk and the
 * rest divided by it. Writes the non-zero columns right of the diagonal, ascending, to
 * `columns` from `base`; returns their count, or −1 if the pivot is not positive.
 */
function factorPivotRow(a: Float64Array, n: number, k: number, columns: Int32Array, base: number): number {
  const rowK = k * n;
  const pivot = a[rowK + k];
  if (!(pivot > 0) || !Number.isFinite(pivot)) return -1;
  const rkk = Math.sqrt(pivot);
  a[rowK + k] = rkk;
  const inv = 1 / rkk;
  let count = 0;
  for (let j = k + 1; j < n; j++) {
    const v = a[rowK + j];
    if (v === 0) continue;
    a[rowK + j] = v * inv;
    columns[base + count++] = j;
  }
  return count;
}

/** Solves RᵀR·x = b with the factor from `choleskyUpper`, overwriting `b` with x. */
export function choleskySolveUpper(r: Float64Array, n: number, b: Float64Array): void {
  // Rᵀ·y = b, column-oriented so each step reads row k of R contiguously.
  for (let k = 0; k < n; k++) {
    const rowK = k * n;
    const yk = b[k] / r[rowK + k];
    b[k] = yk;
    for (let j = k + 1; j < n; j++) b[j] -= r[rowK + j] * yk;
  }
  // R·x = y.
  for (let i = n - 1; i >= 0; i--) {
    const rowI = i * n;
    let sum = b[i];
    for (let j = i + 1; j < n; j++) sum -= r[rowI + j] * b[j];
    b[i] = sum / r[rowI + i];
  }
}

/**
 * Small-block variants on a block stored at `a[o..]` with row stride `n` (used for the
 * block-Jacobi preconditioner's ≤6×6 blocks).
 */
export function choleskyUpperAt(a: Float64Array, o: number, n: number): boolean {
  for (let k = 0; k < n; k++) {
    const rowK = o + k * n;
    const pivot = a[rowK + k];
    if (!(pivot > 0) || !Number.isFinite(pivot)) return false;
    const rkk = Math.sqrt(pivot);
    a[rowK + k] = rkk;
    for (let j = k + 1; j < n; j++) a[rowK + j] /= rkk;
    for (let i = k + 1; i < n; i++) {
      const rki = a[rowK + i];
      const rowI = o + i * n;
      for (let j = i; j < n; j++) a[rowI + j] -= rki * a[rowK + j];
    }
  }
  return true;
}

/** Solves with a block factor at `r[o..]` of size n, on `b[bo..bo+n]` in place. */
export function choleskySolveUpperAt(r: Float64Array, o: number, n: number, b: Float64Array, bo: number): void {
  for (let k = 0; k < n; k++) {
    const rowK = o + k * n;
    const yk = b[bo + k] / r[rowK + k];
    b[bo + k] = yk;
    for (let j = k + 1; j < n; j++) b[bo + j] -= r[rowK + j] * yk;
  }
  for (let i = n - 1; i >= 0; i--) {
    const rowI = o + i * n;
    let sum = b[bo + i];
    for (let j = i + 1; j < n; j++) sum -= r[rowI + j] * b[bo + j];
    b[bo + i] = sum / r[rowI + i];
  }
}

/** Pivot rows per panel of choleskyUpperPanels: one team round per panel. */
export const CHOLESKY_PANEL = 32;

/** A panel's pivots, for the threads that apply them to the rows below (all shared memory). */
export interface PanelScratch {
  /** Per panel pivot kb, its row's non-zero columns right of the diagonal, ascending, at kb·n. */
  columns: Int32Array;
  counts: Int32Array;
  /** First pivot of the panel and the first row after it. */
  range: Int32Array;
}

export function allocatePanelScratch(n: number, allocateInt32: (length: number) => Int32Array): PanelScratch {
  return { columns: allocateInt32(CHOLESKY_PANEL * n), counts: allocateInt32(CHOLESKY_PANEL), range: allocateInt32(2) };
}

/**
 * choleskyUpper by panels of CHOLESKY_PANEL pivot rows, so that a thread team can share the
 * trailing update (the rows below a panel, which take almost all the multiply-adds of a
 * banded reduced camera system): the panel's pivots are factored here, with their updates to
 * the panel's own rows, then `updateTrailing()` applies the panel to every row after it
 * (trailingUpdate, one share per thread). Each entry receives the same updates in the same
 * order as in choleskyUpper, so the factor is the same bit for bit.
 */
export function choleskyUpperPanels(a: Float64Array, n: number, scratch: PanelScratch, updateTrailing: () => void): boolean {
  const { columns, counts, range } = scratch;
  for (let k0 = 0; k0 < n; k0 += CHOLESKY_PANEL) {
    const k1 = Math.min(n, k0 + CHOLESKY_PANEL);
    for (let k = k0; k < k1; k++) {
      const rowK = k * n;
      const base = (k - k0) * n;
      const count = factorPivotRow(a, n, k, columns, base);
      if (count < 0) return false;
      counts[k - k0] = count;
      // The panel's own rows after k.
      for (let c = 0; c < count; c++) {
        const i = columns[base + c];
        if (i >= k1) break;
        const rki = a[rowK + i];
        const rowI = i * n;
        for (let d = c; d < count; d++) {
          const j = columns[base + d];
          a[rowI + j] -= rki * a[rowK + j];
        }
      }
    }
    if (k1 < n) {
      range[0] = k0;
      range[1] = k1;
      updateTrailing();
    }
  }
  return true;
}

/** Thread `thread` of `threads`'s share of a panel's trailing update: the rows i ≥ range[1] with i mod threads = thread. */
export function trailingUpdate(a: Float64Array, n: number, scratch: PanelScratch, thread: number, threads: number): void {
  const { columns, counts, range } = scratch;
  const k0 = range[0], k1 = range[1];
  for (let k = k0; k < k1; k++) {
    const rowK = k * n;
    const base = (k - k0) * n;
    const count = counts[k - k0];
    let c = 0;
    while (c < count && columns[base + c] < k1) c++;
    for (; c < count; c++) {
      const i = columns[base + c];
      if (i % threads !== thread) continue;
      const rki = a[rowK + i];
      const rowI = i * n;
      for (let d = c; d < count; d++) {
        const j = columns[base + d];
        a[rowI + j] -= rki * a[rowK + j];
      }
    }
  }
}
