import { describe, expect, it } from "vitest";
import { createRng } from "../../../compute/math/random.js";
import { selectInPlace } from "../../../compute/math/select.js";

describe("math/select", () => {
  it("finds the value a sort puts at each rank, and splits the array around it", () => {
    const rng = createRng(3);
    for (let trial = 0; trial < 400; trial++) {
      const n = 1 + Math.floor(rng() * 200);
      // Distinct values, many ties, sorted and reversed runs: each breaks a naive pivot or scan.
      const kind = trial % 4;
      const values = Float64Array.from({ length: n }, (_, i) => (kind === 0 ? rng() - 0.5 : kind === 1 ? Math.floor(rng() * 4) : kind === 2 ? i : n - i));
      const sorted = values.slice().sort();
      const k = Math.floor(rng() * n);
      const scratch = values.slice();
      const value = selectInPlace(scratch, k);
      expect(value).toBe(sorted[k]);
      expect(scratch.slice().sort()).toEqual(sorted);
      for (let i = 0; i < k; i++) expect(scratch[i]).toBeLessThanOrEqual(value);
      for (let i = k + 1; i < n; i++) expect(scratch[i]).toBeGreaterThanOrEqual(value);
    }
  });

  it("selects a higher rank within the part above a lower one, as quantile pairs do", () => {
    const rng = createRng(5);
    const values = Float64Array.from({ length: 10_001 }, () => rng());
    const sorted = values.slice().sort();
    const low = selectInPlace(values, 200);
    expect(low).toBe(sorted[200]);
    expect(selectInPlace(values, 9_800, 200)).toBe(sorted[9_800]);
  });

  it("refuses a rank outside the range", () => {
    expect(() => selectInPlace(new Float64Array(3), 3)).toThrow(RangeError);
    expect(() => selectInPlace(new Float64Array(3), 0, 1)).toThrow(RangeError);
  });
});
