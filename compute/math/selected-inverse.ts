/**
 * @module Selected inversion of a symmetric positive definite matrix from its Cholesky factor
 * (Takahashi, Fagan & Chin 1973, "Formation of a sparse bus impedance matrix and its
 * application to short circuit study"; Erisman & Tinney 1975, "On computing certain elements
 * of the inverse of a sparse matrix"): the entries of Z = S⁻¹ on the pattern of the factor R
 * (S = RᵀR), in about the multiply-adds of the factorisation itself, where the whole inverse
 * costs n³/3. From R·Z = R⁻ᵀ (lower triangular, diagonal 1/r_ii), for j ≥ i:
 *   Z_ij = (δ_ij / r_ii − Σ_{k>i, r_ik≠0} r_ik·Z_kj) / r_ii,
 * row by row from the bottom; the Z_kj it needs lie on the pattern because the factor's
 * pattern is closed under elimination (k, j in row i's pattern puts j in row k's).
 *
 * The pattern is taken by blocks (a row's pattern is every column of each block its block row
 * touches), so an entry that happens to be exactly zero inside a touched block (a symmetric
 * synthetic scene) still gets its Z.
 */

/**
 * Overwrites the upper triangle of `r` (row-major n×n, the upper Cholesky factor of S as
 * compute/solvers/bundle-adjustment/dense-cholesky.ts choleskyUpper leaves it) with the
 * entries of S⁻¹ on the factor's block pattern; entries off it are left as they were (zero
 * where R is). `blockBase`, `blockSize`: consecutive blocks partitioning 0..n.
 */
export function selectedInverseUpper(r: Float64Array, n: number, blockBase: Int32Array, blockSize: Int32Array): void {
  const blocks = blockBase.length;
  const blockOf = new Int32Array(n);
  for (let b = 0; b < blocks; b++) blockOf.fill(b, blockBase[b], blockBase[b] + blockSize[b]);
  // Per block row, the blocks right of it that its rows touch.
  const touched: number[][] = [];
  for (let b = 0; b < blocks; b++) {
    const marks = new Uint8Array(blocks);
    for (let i = blockBase[b]; i < blockBase[b] + blockSize[b]; i++) {
      const row = i * n;
      for (let j = blockBase[b] + blockSize[b]; j < n; j++) if (r[row + j] !== 0) marks[blockOf[j]] = 1;
    }
    const list: number[] = [];
    for (let c = b + 1; c < blocks; c++) if (marks[c]) list.push(c);
    touched.push(list);
  }
  // Scratch of one row: its pattern's columns (ascending), R's values there, and Z's.
  const columns = new Int32Array(n);
  const values = new Float64Array(n);
  const z = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    const row = i * n;
    const b = blockOf[i];
    let count = 0;
    for (let j = i + 1; j < blockBase[b] + blockSize[b]; j++) columns[count++] = j;
    for (const c of touched[b]) for (let j = blockBase[c]; j < blockBase[c] + blockSize[c]; j++) columns[count++] = j;
    for (let a = 0; a < count; a++) values[a] = r[row + columns[a]];
    const rii = r[row + i];
    for (let a = 0; a < count; a++) {
      const j = columns[a];
      let sum = 0;
      for (let e = 0; e < count; e++) {
        const v = values[e];
        if (v === 0) continue;
        const k = columns[e];
        sum += v * (k <= j ? r[k * n + j] : r[j * n + k]);
      }
      z[a] = -sum / rii;
    }
    let diagonal = 1 / rii;
    for (let a = 0; a < count; a++) diagonal -= values[a] * z[a];
    r[row + i] = diagonal / rii;
    for (let a = 0; a < count; a++) r[row + columns[a]] = z[a];
  }
}
