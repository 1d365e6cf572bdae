import { describe, expect, it } from "vitest";
import { bilateralWeight } from "../../../compute/stages/dense/bilateral-weight.js";
import { createRng } from "../../../compute/math/random.js";

/** What PatchMatch computed before the table: the reference the weights must match to the bit. */
const direct = (spatial: number, difference: number, colourScale: number) =>
  Math.fround(spatial * Math.exp(-difference * difference * colourScale));

describe("bilateral weight", () => {
  it("equals Math.fround(spatial · Math.exp(−Δ²s)) to the bit over grey differences, scales and spatial parts", () => {
    const rng = createRng(7);
    for (const colourScale of [12.5, 2, 0.5, 200]) {
      for (let n = 0; n < 200_000; n++) {
        const spatial = Math.fround(rng());
        const difference = Math.fround(rng()) - Math.fround(rng());
        expect(bilateralWeight(spatial, difference, colourScale)).toBe(direct(spatial, difference, colourScale));
      }
    }
    // Beyond the table, the centre itself, an empty padding sample, a NaN grey.
    expect(bilateralWeight(0.7, 3, 12.5)).toBe(direct(0.7, 3, 12.5));
    expect(bilateralWeight(0.7, 0, 12.5)).toBe(Math.fround(0.7));
    expect(bilateralWeight(0, 0.3, 12.5)).toBe(0);
    expect(bilateralWeight(0.5, Number.NaN, 12.5)).toBeNaN();
  });

  it("rounds as Math.exp does where the product lies next to a halfway point between two floats", () => {
    // Spatial parts chosen so that spatial · Math.exp(x) falls within a few double ulps of the
    // midpoint between two float32 values: there a value a few ulps off rounds the other way.
    const rng = createRng(11);
    const colourScale = 12.5;
    let nearHalfway = 0;
    for (let n = 0; n < 50_000; n++) {
      const difference = Math.fround(rng()) - Math.fround(rng());
      const e = Math.exp(-difference * difference * colourScale);
      const lower = Math.fround(0.05 + 0.9 * rng());
      const upper = nextFloat32(lower);
      const spatial = (lower + upper) / 2 / e;
      const want = direct(spatial, difference, colourScale);
      if (Math.abs(spatial * e - (lower + upper) / 2) <= 4 * Number.EPSILON * lower) nearHalfway++;
      expect(bilateralWeight(spatial, difference, colourScale)).toBe(want);
    }
    expect(nearHalfway).toBeGreaterThan(40_000);
  });
});

/** The next float32 above a positive float32 value. */
function nextFloat32(value: number): number {
  const bits = new Float32Array([value]);
  const asInt = new Uint32Array(bits.buffer);
  asInt[0] += 1;
  return bits[0];
}
