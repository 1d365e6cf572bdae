/**
 * @module A bilateral window's weight, spatial part × exp(−Δ²·s), rounded to float32 as the cost
 * kernel stores it: the same bits as `Math.fround(spatial * Math.exp(−Δ²·s))`, in about half the
 * time. PatchMatch builds one or two 49-sample windows per pixel visit, and those `Math.exp` calls
 * were most of its JavaScript (docs/decisions.md, "The photometric cost runs near the machine's
 * speed").
 *
 * How the bits stay the same: exp(−t/N) is a table entry exp(−k/N) times a degree-4 Taylor
 * polynomial of exp(−r) for the remainder r < 1/N, within ~1e-14 of the true value (Math.exp is
 * within one ulp of it too). The float32 rounding of a value that close to the exact product can
 * only differ when the product lies within that distance of a halfway point between two floats;
 * the guard rounds the product nudged 1e-12 down and up, and when the two disagree (1 sample in
 * 2,000 or fewer in a micro-benchmark) the weight is computed with Math.exp as before.
 */

/** Table steps per unit of −x (x = −Δ²·s); a power of two, so t = Δ²·s·N is exact. */
const STEPS_PER_UNIT = 1024;
/** −x beyond which the weight is computed directly (exp(−16) ≈ 1e-7 of the centre's weight). */
const TABLE_UNITS = 16;
const LIMIT = STEPS_PER_UNIT * TABLE_UNITS;
/** exp(−k/N) for k = 0…LIMIT (native/bilateral-window.h reads the same table from the wasm memory). */
export const EXP_TABLE = (() => {
  const table = new Float64Array(LIMIT + 1);
  for (let k = 0; k <= LIMIT; k++) table[k] = Math.exp(-k / STEPS_PER_UNIT);
  return table;
})();
/** Relative distance from the approximation within which the exact product is known to lie. */
const GUARD = 1e-12;

/**
 * Math.fround(spatial * Math.exp(-difference * difference * colourScale)), to the bit.
 * `difference` is a sample's grey minus the window centre's; `colourScale` is 1/(2σ_colour²) ≥ 0.
 */
export function bilateralWeight(spatial: number, difference: number, colourScale: number): number {
  const t = difference * difference * colourScale * STEPS_PER_UNIT;
  const k = Math.min(t, LIMIT) | 0;
  const r = (t - k) * (1 / STEPS_PER_UNIT);
  const product = spatial * (EXP_TABLE[k] * (1 - r * (1 - r * (0.5 - r * (1 / 6 - r * (1 / 24))))));
  const low = Math.fround(product * (1 - GUARD));
  // NaN fails the comparison and takes the direct path too.
  if (low === Math.fround(product * (1 + GUARD)) && t < LIMIT) return low;
  return Math.fround(spatial * Math.exp(-difference * difference * colourScale));
}
