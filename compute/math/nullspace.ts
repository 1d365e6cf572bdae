/**
 * @module Null space of a full-row-rank wide matrix by Gauss–Jordan elimination with complete
 * pivoting (Golub & Van Loan, Matrix Computations, §3.4.2). For the minimal solvers (7 × 9 for
 * the fundamental matrix, 8 × 9 for the homography) this costs a few hundred flops against the
 * thousands of a Jacobi SVD, and minimal samples are exactly determined, so the SVD's
 * least-squares property buys nothing there; complete pivoting keeps the elimination stable
 * on Hartley-normalised rows.
 */

/** Relative pivot below which the matrix is treated as rank deficient (a degenerate sample). */
const RANK_TOLERANCE = 1e-10;

/**
 * Writes a basis of the null space of the `rows` × `cols` row-major matrix `a` (rows < cols)
 * into `out`: (cols − rows) vectors of length `cols`, one after the other, each of unit norm.
 * `a` is overwritten. Returns false when `a` has rank below `rows`, so its null space is larger
 * than the basis could hold (the sample was degenerate).
 */
export function nullSpaceOfWide(a: Float64Array, rows: number, cols: number, out: Float64Array): boolean {
  if (cols > pivotColumns.length || rows >= cols) throw new Error(`nullSpaceOfWide: needs rows < cols ≤ ${pivotColumns.length}, got ${rows} × ${cols}`);
  const columnAt = pivotColumns;
  for (let c = 0; c < cols; c++) columnAt[c] = c;
  let scale = 0;
  for (let i = 0; i < rows * cols; i++) scale = Math.max(scale, Math.abs(a[i]));
  if (scale === 0) return false;
  for (let r = 0; r < rows; r++) {
    if (!pivot(a, rows, cols, r, columnAt, RANK_TOLERANCE * scale)) return false;
    eliminate(a, rows, cols, r, columnAt[r]);
  }
  // Now row r reads x[columnAt[r]] + Σ_free a[r][f]·x[f] = 0: each free column gives one vector.
  const nullity = cols - rows;
  out.fill(0, 0, nullity * cols);
  for (let k = 0; k < nullity; k++) {
    const free = columnAt[rows + k];
    const v = k * cols;
    out[v + free] = 1;
    for (let r = 0; r < rows; r++) out[v + columnAt[r]] = -a[r * cols + free];
    let normSq = 0;
    for (let c = 0; c < cols; c++) normSq += out[v + c] * out[v + c];
    const inv = 1 / Math.sqrt(normSq);
    for (let c = 0; c < cols; c++) out[v + c] *= inv;
  }
  return true;
}

/** Scratch permutation: columnAt[r] is the column eliminated by row r (≤ 16 columns). */
const pivotColumns = new Int32Array(16);

/** Brings the largest remaining entry to row r (row swap) and records its column; false if it is negligible. */
function pivot(a: Float64Array, rows: number, cols: number, r: number, columnAt: Int32Array, tolerance: number): boolean {
  let bestRow = r;
  let bestSlot = r;
  let best = 0;
  for (let i = r; i < rows; i++) {
    for (let s = r; s < cols; s++) {
      const value = Math.abs(a[i * cols + columnAt[s]]);
      if (value > best) {
        best = value;
        bestRow = i;
        bestSlot = s;
      }
    }
  }
  if (best <= tolerance) return false;
  if (bestRow !== r) {
    for (let c = 0; c < cols; c++) {
      const t = a[r * cols + c];
      a[r * cols + c] = a[bestRow * cols + c];
      a[bestRow * cols + c] = t;
    }
  }
  const t = columnAt[r];
  columnAt[r] = columnAt[bestSlot];
  columnAt[bestSlot] = t;
  return true;
}

/** Scales row r to a unit pivot in column `col` and clears that column from every other row (Gauss–Jordan). */
function eliminate(a: Float64Array, rows: number, cols: number, r: number, col: number): void {
  const inv = 1 / a[r * cols + col];
  for (let c = 0; c < cols; c++) a[r * cols + c] *= inv;
  for (let i = 0; i < rows; i++) {
    if (i === r) continue;
    const factor = a[i * cols + col];
    if (factor === 0) continue;
    for (let c = 0; c < cols; c++) a[i * cols + c] -= factor * a[r * cols + c];
  }
}
