/**
 * @module Keep radial distortion only where the photos show it. k1 and k2 bend every ray by
 * an amount that grows towards the image edge; with little overlap between photos that bend
 * can instead absorb a deformation of the whole model, and nothing in the reprojection error
 * tells the two apart. Measured (issue "Accuracy that survives fewer photos",
 * `bench/subsets.ts`): Herz-Jesus-P8 without every third photo ended at 0.480° median
 * rotation error (max 0.497°) with k1 −0.0056, k2 +0.0050 on photos that have no distortion,
 * and at 0.065° (max 0.078°) with distortion held at 0 — for an RMS of 0.5310 vs 0.5305 px.
 * A real lens leaves pixels of error at the edges when its distortion is not modelled
 * (k1 = −0.01 moves a 2,000-px photo's corner by ~4 px), so the test is the one of the
 * principal point: refine without distortion from the same solution, and keep the distortion
 * only if it lowers the RMS by MIN_DISTORTION_RMS_GAIN; otherwise every later adjustment
 * keeps k1 = k2 = 0.
 *
 * Bounds (issue "Cameras you can trust"): distortion that earns its RMS is still dropped when
 * no lens could have it — a radial mapping r·(1 + k1·r² + k2·r⁴) that folds back before the
 * image corner (its derivative 1 + 3·k1·r² + 5·k2·r⁴ reaches 0: two rays land on one pixel), or
 * that moves the corner by more than MAX_CORNER_SHIFT of its radius (beyond the strongest
 * rectilinear wide-angle lenses; a fisheye needs another camera model, not this one stretched).
 * Such values are the fit absorbing something else (a wrong focal, a deformed model).
 */
import { distortionObservable, globalBundleAdjustment } from "./bundle.js";
import type { Options } from "./options.js";
import type { SfmState } from "./state.js";
import { clearNormalizedCache } from "./triangulate.js";

/** Relative RMS drop that the distortion terms must bring to be kept. */
export const MIN_DISTORTION_RMS_GAIN = 0.01;

/** Largest share of the corner's radius that k1, k2 may move it by. */
export const MAX_CORNER_SHIFT = 0.3;
/** Radii at which the radial mapping's derivative is checked, from the centre to the corner. */
const MONOTONIC_SAMPLES = 32;

/**
 * Whether (k1, k2) is a lens's distortion over normalised radii [0, cornerRadius] (the image's
 * half-diagonal over its focal): a mapping that keeps increasing, and moves the corner by at
 * most MAX_CORNER_SHIFT of its radius.
 */
export function distortionPlausible(k1: number, k2: number, cornerRadius: number): boolean {
  const r2max = cornerRadius * cornerRadius;
  if (Math.abs(k1 * r2max + k2 * r2max * r2max) > MAX_CORNER_SHIFT) return false;
  for (let s = 1; s <= MONOTONIC_SAMPLES; s++) {
    const r2 = r2max * (s / MONOTONIC_SAMPLES) ** 2;
    if (1 + 3 * k1 * r2 + 5 * k2 * r2 * r2 <= 0) return false;
  }
  return true;
}

/** Every registered image's group distortion is plausible for that image's size. */
function allDistortionPlausible(state: SfmState): boolean {
  const K = state.intrinsics;
  return state.order.every((i) => {
    const g = 5 * state.groupOfImage[i];
    const { width, height } = state.images[i];
    return distortionPlausible(K[g + 3], K[g + 4], Math.hypot(width, height) / 2 / K[g]);
  });
}

export interface DistortionChoice {
  kept: boolean;
  /** Whether the refined distortion was within a real lens's bounds (distortionPlausible); false drops it whatever it earned. */
  plausible: boolean;
  /** RMS (px) of the model with the refined distortion and after refitting without it. */
  withRmsPx: number;
  withoutRmsPx: number;
}

/** The options later adjustments use: distortion off once the test dropped it. */
export function effectiveOptions(ctx: { options: Options; distortion: DistortionChoice | null }): Options {
  return ctx.distortion && !ctx.distortion.kept ? { ...ctx.options, refineDistortion: false } : ctx.options;
}

/** Refit without distortion; keep that solution unless the distortion explained enough. Null when distortion was not refined at all. */
export function chooseDistortion(state: SfmState, options: Options): DistortionChoice | null {
  if (!options.refineIntrinsics || !options.refineDistortion || !distortionObservable(state)) return null;
  const withDistortion = globalBundleAdjustment(state, options, true);
  const plausible = allDistortionPlausible(state);
  const saved = [state.rotation.slice(), state.translation.slice(), state.pointXyz.slice(), state.intrinsics.slice()];
  const K = state.intrinsics;
  for (let g = 0; 5 * g < K.length; g++) K[5 * g + 3] = K[5 * g + 4] = 0;
  clearNormalizedCache(state);
  const without = globalBundleAdjustment(state, { ...options, refineDistortion: false }, true);
  const kept = plausible && without.finalRmsPx > (1 + MIN_DISTORTION_RMS_GAIN) * withDistortion.finalRmsPx;
  if (kept) {
    [state.rotation, state.translation, state.pointXyz, state.intrinsics].forEach((target, a) => target.set(saved[a]));
    clearNormalizedCache(state);
  }
  return { kept, plausible, withRmsPx: withDistortion.finalRmsPx, withoutRmsPx: without.finalRmsPx };
}
