/** @module Typed-array copying without the per-element callback of `Float64Array.from(…, fn)`, which is slow in hot paths. */

/** The first `length` values of `source` as a new Float64Array. */
export function copyOf(source: ArrayLike<number>, length = source.length): Float64Array {
  const out = new Float64Array(length);
  for (let i = 0; i < length; i++) out[i] = source[i];
  return out;
}

/** Column `col` of a row-major rows × cols matrix. */
export function columnOf(matrix: ArrayLike<number>, rows: number, cols: number, col: number): Float64Array {
  const out = new Float64Array(rows);
  for (let r = 0; r < rows; r++) out[r] = matrix[r * cols + col];
  return out;
}
