/**
 * @module The incremental mapper loop: seed, then register → triangulate → local BA → filter,
 * with a global BA each time the model grew by a fraction, until no image can be added.
 *
 * Why incremental rather than global SfM (rotation averaging + translation averaging): the
 * uploads this service gets are small (tens to a few hundred images), often with outlier
 * photos and repetitive texture; incremental SfM (Snavely et al. 2006, "Photo Tourism";
 * Schönberger & Frahm 2016, "Structure-from-Motion Revisited") checks every new camera
 * against the 3-D model with PnP and bundle-adjusts as it grows, so a wrong match graph
 * edge costs one unregistered image rather than a corrupted global solve. Its cost (repeated
 * BA) is affordable at these sizes.
 */
import type { Rng } from "../../math/random.js";
import type { VerifiedPair } from "../../scene/index.js";
import { globalBundleAdjustment, groupsWellViewed, localBundleAdjustment, type BundleSummary } from "./bundle.js";
import { closeLoops, type ClosureSummary } from "./closure.js";
import { filterOutliers } from "./filter.js";
import { guessedFocalStep, mergeConsistentGroups } from "./groups.js";
import type { Options } from "./options.js";
import { registerByPnp, rankCandidates } from "./register.js";
import { applyPairRegistration, bestRegisteredPartner, planPairRegistration, type PairRegistration } from "./register-pair.js";
import { SPLIT_CHECK_MAX_IMAGES, intrinsicsOnHalves } from "./split-half.js";
import { registerImage, restoreSolution, snapshotSolution, type SfmState } from "./state.js";
import { chooseDistortion, effectiveOptions, type DistortionChoice } from "./distortion-select.js";
import { clearNormalizedCache, retriangulateAll, triangulateImage } from "./triangulate.js";

export type Timings = Record<"init" | "pnp" | "closure" | "triangulation" | "localBa" | "globalBa" | "filter" | "retriangulation" | "focalProfile" | "output", number>;

export function emptyTimings(): Timings {
  return { init: 0, pnp: 0, closure: 0, triangulation: 0, localBa: 0, globalBa: 0, filter: 0, retriangulation: 0, focalProfile: 0, output: 0 };
}

export interface GrowContext {
  state: SfmState;
  /** Per image, the verified pairs it is in (registration from a pair when PnP fails). */
  pairsOfImage: VerifiedPair[][];
  options: Options;
  rng: Rng;
  timings: Timings;
  bundles: BundleSummary[];
  /** Last failure reason per image. */
  reasons: Map<number, string>;
  /** How each image of the current model was registered (for the report). */
  registeredBy: Map<number, "seed" | "pnp" | "pair">;
  /** Whether the final principal-point refinement was kept. */
  principalPointRefined: boolean;
  /** The distortion test of the current model (distortion-select.ts); null until it ran. */
  distortion: DistortionChoice | null;
  /** Intrinsics groups merged because their focals agreed (see groups.ts). */
  mergedGroups: number;
  /** How far the last global adjustment that refined the intrinsics moved the guessed focals (groups.ts guessedFocalStep). */
  lastFocalStep: number;
  /** What the loop closure of the current model found (null until it ran). */
  closure: ClosureSummary | null;
  /** Images that may join this model (the stage lets every image join every model). */
  available: Uint8Array;
  onRegistered: () => void;
  /**
   * Asked after each global adjustment that refined the intrinsics while the model grows: true
   * stops the growth there (`stoppedEarly`), without the final refinements. Null: never.
   */
  stopGrowth: ((state: SfmState) => boolean) | null;
  /** Whether the last model's growth was stopped by `stopGrowth`. */
  stoppedEarly: boolean;
  /** A reconstruction from another start (focal guess) begins: progress counts starts, not only registrations. */
  onStartBegun: () => void;
}

function timed<T>(ctx: GrowContext, key: keyof Timings, fn: () => T): T {
  const started = performance.now();
  try {
    return fn();
  } finally {
    ctx.timings[key] += performance.now() - started;
  }
}

/** Minimum cameras before focal and distortion are refined in a global BA. */
const MIN_CAMERAS_FOR_INTRINSICS = 3;

/** Global BA, then filter, re-triangulate, and drop normalized keypoints if intrinsics moved. */
export function globalRefinement(ctx: GrowContext, refineIntrinsics: boolean): void {
  const { state } = ctx;
  const options = effectiveOptions(ctx);
  const refine = refineIntrinsics && state.order.length >= MIN_CAMERAS_FOR_INTRINSICS;
  const before = refine ? state.intrinsics.slice() : null;
  ctx.bundles.push(timed(ctx, "globalBa", () => globalBundleAdjustment(state, options, refine)));
  if (before) {
    ctx.lastFocalStep = guessedFocalStep(state, before);
    clearNormalizedCache(state);
    ctx.mergedGroups += mergeConsistentGroups(state);
    propagateFocalGuess(state);
  }
  timed(ctx, "filter", () => filterOutliers(state, options));
  timed(ctx, "retriangulation", () => retriangulateAll(state, options));
}

/**
 * Images whose focal is only the default guess (no EXIF) each have their own group, but a set
 * of such photos usually comes from one camera: start each unregistered one from the median
 * refined focal of registered default-prior images of the same size, which PnP then uses.
 */
export function propagateFocalGuess(state: SfmState): void {
  const refined = new Map<string, number[]>();
  const key = (i: number) => `${state.images[i].width}x${state.images[i].height}`;
  for (const i of state.order) {
    if (state.images[i].focalPriorSource !== "default" || state.images[i].video) continue;
    const list = refined.get(key(i)) ?? [];
    list.push(state.intrinsics[5 * state.groupOfImage[i]]);
    refined.set(key(i), list);
  }
  for (let i = 0; i < state.images.length; i++) {
    const list = refined.get(key(i));
    if (state.registered[i] === 1 || state.images[i].focalPriorSource !== "default" || state.images[i].video || !list) continue;
    const sorted = [...list].sort((a, b) => a - b);
    state.intrinsics[5 * state.groupOfImage[i]] = sorted[sorted.length >> 1];
    state.normalizedXy[i] = null;
  }
}

function addImage(ctx: GrowContext, image: number, how: "pnp" | "pair"): void {
  const { state, options } = ctx;
  registerImage(state, image);
  ctx.registeredBy.set(image, how);
  ctx.reasons.delete(image);
  timed(ctx, "triangulation", () => triangulateImage(state, image, options));
  const refineFocal = state.order.length >= MIN_CAMERAS_FOR_INTRINSICS;
  ctx.bundles.push(timed(ctx, "localBa", () => localBundleAdjustment(state, image, options, refineFocal)));
  if (refineFocal) {
    clearNormalizedCache(state);
    propagateFocalGuess(state);
  }
  timed(ctx, "filter", () => filterOutliers(state, options, [image]));
  ctx.onRegistered();
}

/** One pass: register the best candidate that PnP accepts; false when none could be added. */
function registerNext(ctx: GrowContext, eligible: Uint8Array): boolean {
  const { state, options } = ctx;
  const candidates = rankCandidates(state, eligible, 1);
  for (const candidate of candidates) {
    const result = timed(ctx, "pnp", () => registerByPnp(state, candidate.image, options, ctx.rng));
    if (result.ok) {
      addImage(ctx, candidate.image, "pnp");
      return true;
    }
    ctx.reasons.set(candidate.image, result.reason);
    // Too few correspondences may change as the model grows (ranking is redone after every
    // registration); a PnP failure with enough of them waits for the next retry pass.
    if (result.correspondences >= options.minPnpInliers) eligible[candidate.image] = 0;
  }
  return registerNextFromPair(ctx);
}

/**
 * Fallback when PnP takes no image: an image that shares a strong verified pair with a
 * registered image registers from that pair (register-pair.ts). This includes images PnP
 * rejected with many correspondences: while the focal is still far off (2× on an EXIF-less
 * narrow lens) the two-view seed's structure is stretched in depth and PnP at the wrong focal
 * keeps too few of them, whereas the pair's relative pose does not depend on that structure;
 * once a third view is in, bundle adjustment can refine the focal. Every candidate is
 * planned and the one whose baseline the most triangulated points confirm is taken, so a
 * pose resting on a single point is only accepted when nothing better supported exists.
 */
function registerNextFromPair(ctx: GrowContext): boolean {
  const { state, options } = ctx;
  if (options.pairRegistrationMinMatches <= 0) return false;
  let best: Extract<PairRegistration, { ok: true }> | null = null;
  for (let i = 0; i < state.images.length; i++) {
    if (state.registered[i] === 1 || ctx.available[i] === 0 || bestRegisteredPartner(state, i, ctx.pairsOfImage[i], options) === null) continue;
    const plan = timed(ctx, "pnp", () => planPairRegistration(state, i, ctx.pairsOfImage[i], options, ctx.rng));
    if (!plan.ok) ctx.reasons.set(i, plan.reason);
    else if (best === null || plan.inlierCount > best.inlierCount) best = plan;
  }
  if (best === null) return false;
  applyPairRegistration(state, best);
  addImage(ctx, best.image, "pair");
  return true;
}

/** Whether a model of `registered` cameras has grown enough since its last global BA (at `lastGlobalSize`) for another. */
export function globalBaDue(registered: number, lastGlobalSize: number, options: Pick<Options, "globalBaGrowth" | "largeModelGlobalBaGrowth" | "largeModelCameras">): boolean {
  const growth = lastGlobalSize >= options.largeModelCameras ? options.largeModelGlobalBaGrowth : options.globalBaGrowth;
  return registered >= lastGlobalSize * (1 + growth);
}

/** Grow the seeded model until no image registers, retrying failed images after growth. */
export function growModel(ctx: GrowContext): void {
  const { state, options } = ctx;
  let lastGlobalSize = state.order.length;
  let retriesLeft = options.registrationRetries;
  let sizeAtLastRetry = state.order.length;
  const eligible = Uint8Array.from(ctx.available);
  for (;;) {
    if (registerNext(ctx, eligible)) {
      if (globalBaDue(state.order.length, lastGlobalSize, options)) {
        const refine = state.order.length >= 2 * MIN_CAMERAS_FOR_INTRINSICS;
        globalRefinement(ctx, refine);
        lastGlobalSize = state.order.length;
        if (refine && ctx.stopGrowth?.(state)) {
          ctx.stoppedEarly = true;
          return;
        }
      }
      continue;
    }
    // Nothing registers: after the model grew, the failed images get another chance.
    if (retriesLeft === 0 || state.order.length === sizeAtLastRetry) break;
    retriesLeft--;
    sizeAtLastRetry = state.order.length;
    globalRefinement(ctx, false);
    lastGlobalSize = state.order.length;
    eligible.set(ctx.available);
  }
  // Final refinement: intrinsics too, twice so re-triangulated points get adjusted as well;
  // loop closure in between, on poses a global BA has just refined.
  globalRefinement(ctx, true);
  if (closeLoopsOnce(ctx)) globalRefinement(ctx, true);
  globalRefinement(ctx, true);
  ctx.distortion = timed(ctx, "globalBa", () => chooseDistortion(ctx.state, ctx.options));
  refineUntilStable(ctx);
  refinePrincipalPoints(ctx);
}

/** Observations of triangulated points in registered images that are not rejected. */
function liveObservations(state: SfmState): number {
  const { tracks } = state;
  let live = 0;
  for (let k = 0; k < tracks.count; k++) {
    if (state.hasPoint[k] !== 1) continue;
    for (let j = tracks.trackOffsets[k]; j < tracks.trackOffsets[k + 1]; j++) {
      if (state.obsRejected[j] === 0 && state.registered[tracks.trackImages[j]] === 1) live++;
    }
  }
  return live;
}

/** Relative change of the live observations below which another refinement round stops. */
const STABLE_OBSERVATION_CHANGE = 0.001;

/**
 * COLMAP's iterative global refinement (Schönberger & Frahm 2016, §4.5): bundle adjustment,
 * outlier filtering and re-triangulation change each other's input, so repeat the round until
 * the set of observations stops changing (a round that only re-adjusts the same points is the
 * fixed point), at most `finalRefinementRounds` more times.
 */
function refineUntilStable(ctx: GrowContext): void {
  for (let round = 0; round < ctx.options.finalRefinementRounds; round++) {
    const before = liveObservations(ctx.state);
    globalRefinement(ctx, true);
    const after = liveObservations(ctx.state);
    if (Math.abs(after - before) <= STABLE_OBSERVATION_CHANGE * Math.max(1, before)) break;
  }
}

/**
 * Loop closure (closure.ts): guided matches of unmatched neighbouring pairs extend the
 * tracks; the model continues on the extended tracks, re-triangulated from its poses.
 * Returns whether the tracks changed.
 */
function closeLoopsOnce(ctx: GrowContext): boolean {
  const { options } = ctx;
  if (options.loopClosureMaxPairs <= 0) return false;
  const result = timed(ctx, "closure", () => closeLoops(ctx.state, ctx.pairsOfImage, options));
  ctx.closure = result.summary;
  if (result.state === null) return false;
  ctx.state = result.state;
  timed(ctx, "retriangulation", () => retriangulateAll(ctx.state, options));
  timed(ctx, "filter", () => filterOutliers(ctx.state, options));
  return true;
}

/**
 * Relative drop of the RMS reprojection error the principal-point refinement must bring. A
 * real offset explains residuals the fixed centre cannot (measured: fountain-P11 −0.72%,
 * Herz-Jesus-P8 −0.25%, temple −0.4%); the rotation trade-off explains nothing (smoke, a
 * synthetic set with the centre exact: −0.001% for a 9-px move that cost 0.5° of rotation).
 */
const MIN_PRINCIPAL_POINT_RMS_GAIN = 0.001;

/**
 * A real offset shows in the first LM iterations: after 3 of them the RMS had dropped 0.45%
 * (fountain-P11), 0.19% (Herz-Jesus-P8) and 0.41% (temple), of 0.58%, 0.19% and 0.71% at the
 * end, while smoke's trade-off had gained 0.001% (0.015% after all 27 iterations, which took
 * 0.26 s of its 0.9-s sfm). So a 3-iteration trial that gains less than half the acceptance
 * gain rejects the refinement at once; one that gains more is thrown away and the full
 * refinement runs from the same start, so an accepted result is the one without the screen.
 */
const PRINCIPAL_POINT_SCREEN_ITERATIONS = 3;

/**
 * Whether the principal point the state now holds is reproducible: refined again from the
 * fixed-centre solution `saved` on the even tracks' points and on the odd ones', each group's
 * two estimates must lie closer to each other than the full estimate lies from the image
 * centre (a split-half test: their difference is about twice the full estimate's standard
 * deviation, measured on the photos instead of assumed from the residuals). The reprojection
 * error cannot make this call on a few photos. On refined keypoints, smoke's halves (5 photos,
 * principal point exactly centred) gained 0.4–0.5 % RMS from an 8–15-px move that cost
 * 0.26–0.36°, while Herz-Jesus-P8's 4-photo subsets gained 0.5–0.6 % from a real 20–29-px
 * offset. Their halves lay 18–26 px apart for smoke (1.7–2.2 × the move) and 5–18 px for the
 * real offsets (0.26–0.6 ×) (`bench-out/dbg-pp.ts`).
 */
function halvesAgree(state: SfmState, saved: Float64Array[], options: Options): boolean {
  if (state.order.length > SPLIT_CHECK_MAX_IMAGES) return true;
  const full = state.intrinsics.slice();
  const refined = snapshotSolution(state);
  const halves = intrinsicsOnHalves(state, saved, () => globalBundleAdjustment(state, options, true, true));
  restoreSolution(state, refined);
  clearNormalizedCache(state);
  return state.order.every((i) => {
    const g = 5 * state.groupOfImage[i];
    const { width, height } = state.images[i];
    const shift = Math.hypot(full[g + 1] - width / 2, full[g + 2] - height / 2);
    return Math.hypot(halves[0][g + 1] - halves[1][g + 1], halves[0][g + 2] - halves[1][g + 2]) <= shift;
  });
}

/**
 * Real lenses' principal points sit some pixels off the image centre; holding it at the
 * centre tilts every camera by about atan(offset / focal) (~0.4° on the EPFL sets). It is
 * only observable when the points cover much of the frame at varied depths — otherwise it
 * trades off against rotation, which is why COLMAP keeps it fixed by default. So: refine it
 * once at the end (after the short screen above), and keep the result only if it lowers the
 * reprojection error (by MIN_PRINCIPAL_POINT_RMS_GAIN) and every group's principal point moved
 * less than `principalPointMaxShift` of the image diagonal (a real offset), and two halves of
 * the points agree on it (halvesAgree); otherwise it is the rotation trade-off, and the model
 * goes back to the fixed-centre solution.
 */
export function refinePrincipalPoints(ctx: GrowContext): void {
  const { state } = ctx;
  const options = effectiveOptions(ctx);
  ctx.principalPointRefined = false;
  if (options.principalPointMaxShift <= 0 || !options.refineIntrinsics || !groupsWellViewed(state)) return;
  const saved = snapshotSolution(state);
  const screenOptions = { ...options, globalBaIterations: PRINCIPAL_POINT_SCREEN_ITERATIONS };
  const screen = timed(ctx, "globalBa", () => globalBundleAdjustment(state, screenOptions, true, true));
  restoreSolution(state, saved);
  if (screen.finalRmsPx > (1 - MIN_PRINCIPAL_POINT_RMS_GAIN / 2) * screen.initialRmsPx) return;
  const summary = timed(ctx, "globalBa", () => globalBundleAdjustment(state, options, true, true));
  const K = state.intrinsics;
  const explains = summary.finalRmsPx <= (1 - MIN_PRINCIPAL_POINT_RMS_GAIN) * summary.initialRmsPx;
  const plausible = explains && state.order.every((i) => {
    const g = 5 * state.groupOfImage[i];
    const { width, height } = state.images[i];
    return Math.hypot(K[g + 1] - width / 2, K[g + 2] - height / 2) <= options.principalPointMaxShift * Math.hypot(width, height);
  });
  if (!plausible || !halvesAgree(state, saved, options)) {
    restoreSolution(state, saved);
    clearNormalizedCache(state);
    ctx.principalPointRefined = false;
    return;
  }
  ctx.bundles.push(summary);
  ctx.principalPointRefined = true;
  clearNormalizedCache(state);
  timed(ctx, "filter", () => filterOutliers(state, options));
}
