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
    const pivot = a[rowK + k];
    if (!(pivot > 0) || !Number.isFinite(pivot)) return false;
    const rkk = Math.sqrt(pivot);
    a[rowK + k] = rkk;
    const inv = 1 / rkk;
    let count = 0;
    for (let j = k + 1; j < n; j++) {
      const v = a[rowK + j];
      if (v === 0) continue;
      a[rowK + j] = v * inv;
      columns[count++] = j;
    }
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
