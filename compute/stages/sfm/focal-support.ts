/**
 * @module Is a camera's focal length determined by the photos? Without an EXIF focal, only the
 * geometry fixes it, and some captures do not: with mostly two-view points along a chain of
 * pairs (a sparse ring, every third photo of an orbit) focal and depth trade against each other
 * and the model reconstructs with a low reprojection error and a wrong shape. On
 * templeSparseRing without every third photo, five cameras registered with focals 1,047–1,432 px
 * (true 1,520) and rotation errors up to 14.6°, at 0.58 px RMS.
 *
 * The test is a profile of the likelihood (as one reads a parameter's confidence interval off
 * the cost, Hartley & Zisserman 2004, §5.2; Triggs et al. 2000, §9 on gauge and covariance):
 * move one guessed group's focal by ±FOCAL_STEP, let every pose and point re-adjust with the
 * intrinsics held, and see how much the cost rises. If neither side costs more than
 * MIN_CHI2_RISE (in units of the residuals' own variance), the photos cannot tell that focal
 * from one 5 % away, and every camera of the group is taken out with the reason.
 */
import type { ImageRef } from "../../scene/index.js";
import { globalBundleAdjustment } from "./bundle.js";
import type { Options } from "./options.js";
import { restoreSolution, snapshotSolution, type SfmState } from "./state.js";
import { clearNormalizedCache } from "./triangulate.js";

/** Relative change of the focal whose cost is probed on each side. */
export const FOCAL_STEP = 0.05;
/** χ² rise (cost rise over the residual variance) that a determined focal shows at ±FOCAL_STEP. */
export const MIN_CHI2_RISE = 25;

export interface FocalProfile {
  group: number;
  images: number[];
  /**
   * Larger of the χ² rises at focal·(1 + step) and focal/(1 + step): the focal is fixed when
   * either side costs clearly more (a side that costs less means the adjustment had not quite
   * reached the optimum, which says nothing about how loosely it is held). When the first side
   * already rises by MIN_CHI2_RISE the second is not probed, so a determined focal's figure is
   * that side's rise, a lower bound of the larger.
   */
  chi2Rise: number;
}

function focalIsGuessed(image: ImageRef): boolean {
  return image.focalPriorSource === "default" && !image.video;
}

function restore(state: SfmState, saved: Float64Array[]): void {
  restoreSolution(state, saved);
  clearNormalizedCache(state);
}

/** The χ² rise of every intrinsics group of registered, guessed-focal images (state unchanged on return). */
export function profileGuessedFocals(state: SfmState, options: Options): FocalProfile[] {
  const members = new Map<number, number[]>();
  for (const image of state.order) {
    if (!focalIsGuessed(state.images[image])) continue;
    const g = state.groupOfImage[image];
    members.set(g, [...(members.get(g) ?? []), image]);
  }
  // With intrinsics held (options.refineIntrinsics false) the focal is the prior by choice.
  if (!options.refineIntrinsics || members.size === 0 || state.order.length < 3) return [];
  const saved = snapshotSolution(state);
  const base = globalBundleAdjustment(state, options, false);
  restore(state, saved);
  // Residual variance per cost unit: cost = ½·Σρ(‖r‖²) over observations of two residuals each.
  const variance = Math.max(1e-12, (2 * base.finalCost) / Math.max(1, 2 * base.observations));
  const profiles: FocalProfile[] = [];
  for (const [group, images] of members) {
    const chi2Rise = focalRise((factor) => {
      state.intrinsics[5 * group] *= factor;
      clearNormalizedCache(state);
      const probed = globalBundleAdjustment(state, options, false);
      restore(state, saved);
      return (2 * (probed.finalCost - base.finalCost)) / variance;
    });
    profiles.push({ group, images, chi2Rise });
  }
  return profiles;
}

/**
 * The larger χ² rise of the two sides, `probe(factor)` giving a side's rise at focal·factor. The
 * second side is probed only while the first leaves the focal undetermined: once one side costs
 * clearly more the other cannot change the verdict, and each side is a global adjustment (a third
 * of the profile's time, which every start of an EXIF-less upload pays: SfM of the synthetic
 * facade's 20 photos 23.5 → 20.3 s, the same model).
 */
export function focalRise(probe: (factor: number) => number): number {
  let rise = -Infinity;
  for (const factor of [1 + FOCAL_STEP, 1 / (1 + FOCAL_STEP)]) {
    rise = Math.max(rise, probe(factor));
    if (rise >= MIN_CHI2_RISE) break;
  }
  return rise;
}

/**
 * Why a camera was left out, without advice: what to do is the refusal's suggestion, which the
 * caller picks knowing the match graph (photos turning in place overlap well, and advice to take
 * them closer together contradicted that).
 */
export function undeterminedReason(profile: FocalProfile): string {
  return `its focal length could not be determined: the photo has no EXIF focal length, and the other photos fix it so loosely that a focal ${Math.round(100 * FOCAL_STEP)} % different fits about as well (χ² rise ${profile.chi2Rise.toFixed(1)} < ${MIN_CHI2_RISE})`;
}
