/**
 * @module The k-th smallest of an array in linear expected time (Hoare's FIND, "quickselect",
 * CACM 1961), for quantiles of large arrays where a full sort would be most of the work.
 */

/**
 * The k-th smallest value (0-based) of `values[from, to)`, which is reordered in place so that
 * every element before index k is ≤ it and every element after is ≥ it. The value is the one
 * sorting would put at k (for numbers without NaN), whatever the reordering.
 */
export function selectInPlace(values: Float64Array, k: number, from = 0, to = values.length): number {
  if (!(k >= from && k < to)) throw new RangeError(`selectInPlace: rank ${k} outside [${from}, ${to})`);
  let lo = from;
  let hi = to - 1;
  while (hi > lo) {
    // Median of three as the pivot: sorted or reversed input stays linear.
    const mid = (lo + hi) >>> 1;
    const pivot = medianOfThree(values[lo]!, values[mid]!, values[hi]!);
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const swap = values[i]!;
        values[i] = values[j]!;
        values[j] = swap;
        i++;
        j--;
      }
    }
    // Now [lo, j] ≤ pivot ≤ [i, hi], and anything between j and i equals the pivot.
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return values[k]!;
  }
  return values[k]!;
}

function medianOfThree(a: number, b: number, c: number): number {
  if (a < b) return b < c ? b : a < c ? c : a;
  return a < c ? a : b < c ? c : b;
}
