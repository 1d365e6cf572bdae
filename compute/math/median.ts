/** @module The upper median of a list of numbers (the element at index ⌊n/2⌋ once sorted). */

/** Upper median of `values`; NaN when there are none. The input is not modified. */
export function median(values: ArrayLike<number>): number {
  if (values.length === 0) return NaN;
  const sorted = Array.from(values).sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}
