/**
 * @module Split-half test of refined intrinsics: the same adjustment run again on the even
 * tracks' points and on the odd ones'. Two halves of the observations that reach the same
 * intrinsics show a quantity the photos determine; halves that land far apart show a parameter
 * the fit used to absorb noise or a deformation of the model, which the reprojection error of
 * a few photos cannot tell apart (the difference of the halves' estimates is about twice the
 * full estimate's standard deviation, measured on the photos instead of assumed from the
 * residuals). Used for the principal point (incremental.ts `halvesAgree`). It cannot judge
 * radial distortion: on a 5-photo subset both halves found the same false k1, k2, which
 * absorbed a deformation they share (docs/decisions.md, "The split-half test does not judge
 * distortion").
 */
import { restoreSolution, type SfmState } from "./state.js";
import { clearNormalizedCache } from "./triangulate.js";

/**
 * Models of up to this many images run split-half tests (two more global adjustments each);
 * larger ones have views enough to fix their intrinsics, and the tests would cost them minutes.
 */
export const SPLIT_CHECK_MAX_IMAGES = 100;

/**
 * The intrinsics `adjust` reaches from `start` with only the even tracks' points, then with
 * only the odd ones'. The state is left at the second half's solution: the caller restores
 * what it keeps.
 */
export function intrinsicsOnHalves(state: SfmState, start: Float64Array[], adjust: () => void): [Float64Array, Float64Array] {
  const halves: Float64Array[] = [];
  for (const parity of [0, 1]) {
    restoreSolution(state, start);
    const hidden: number[] = [];
    for (let k = parity; k < state.tracks.count; k += 2) {
      if (state.hasPoint[k] === 1) {
        state.hasPoint[k] = 0;
        hidden.push(k);
      }
    }
    clearNormalizedCache(state);
    adjust();
    halves.push(state.intrinsics.slice());
    for (const k of hidden) state.hasPoint[k] = 1;
  }
  return [halves[0], halves[1]];
}
