/**
 * @module One SfM start: the models grown from one set of starting intrinsics (a focal guess),
 * largest first, and what the largest of them becomes (implausible and focal-undetermined
 * cameras taken out, or a refusal). The stage (index.ts) chooses among starts; a start may also
 * run on another thread (start-thread.ts), from the same inputs, with the same result.
 */
import { createRng } from "../../math/random.js";
import { PipelineError, type ImageRef, type VerifiedPair } from "../../scene/index.js";
import { MIN_CHI2_RISE, profileGuessedFocals, undeterminedReason } from "./focal-support.js";
import { assignIntrinsicsGroups, type IntrinsicsGroups } from "./groups.js";
import type { BundleSummary } from "./bundle.js";
import { emptyTimings, growModel, type GrowContext, type Timings } from "./incremental.js";
import { initializeModel, resetModel } from "./initialize.js";
import { snapshotModel } from "./model.js";
import type { Options } from "./options.js";
import { implausibleViews, withoutViews } from "./plausible.js";
import { unregisteredReason, type Attempted, type Components } from "./stage-report.js";
import { createState, type SfmState } from "./state.js";
import type { Input } from "./start-input.js";

/**
 * A context for growing models from `input`: its state at the matcher's tracks and the priors'
 * intrinsics, a random state from the options' seed, empty timings and bundle records.
 */
export function newContext(input: Input, groups: IntrinsicsGroups, options: Options, hooks: Pick<GrowContext, "onRegistered" | "onStartBegun">): GrowContext {
  const { images, features, pairs, tracks } = input;
  const state = createState(images, features, tracks, Uint32Array.from(groups.groupOfImage), Float64Array.from(groups.intrinsics));
  const pairsOfImage: VerifiedPair[][] = images.map(() => []);
  for (const p of pairs) {
    pairsOfImage[p.imageA].push(p);
    pairsOfImage[p.imageB].push(p);
  }
  return {
    state,
    pairsOfImage,
    options,
    rng: createRng(options.seed),
    timings: emptyTimings(),
    bundles: [],
    reasons: new Map(),
    registeredBy: new Map(),
    mergedGroups: 0,
    lastFocalStep: 0,
    principalPointRefined: false,
    distortion: null,
    closure: null,
    available: new Uint8Array(images.length).fill(1),
    stopGrowth: null,
    stoppedEarly: false,
    ...hooks,
  };
}

/** Seed one model on a pair of `seedable` images and grow it; null when no pair gives a seed. */
function reconstructOne(ctx: GrowContext, base: SfmState, pairs: VerifiedPair[], initial: IntrinsicsGroups, seedable: Uint8Array): Attempted | null {
  // Loop closure may have moved the previous model onto extended tracks: start from the matcher's.
  ctx.state = base;
  ctx.closure = null;
  ctx.distortion = null;
  ctx.mergedGroups = 0;
  ctx.lastFocalStep = 0;
  ctx.stoppedEarly = false;
  const { state, options } = ctx;
  resetModel(state);
  ctx.reasons.clear();
  ctx.registeredBy.clear();
  // A previous model may have merged groups and refined focals: start from the priors.
  state.intrinsics.set(initial.intrinsics);
  state.groupOfImage.set(initial.groupOfImage);
  state.normalizedXy.fill(null);
  const started = performance.now();
  const init = initializeModel(state, pairs, seedable, options, ctx.rng);
  ctx.timings.init += performance.now() - started;
  if (init.bundle) ctx.bundles.push(init.bundle);
  if (init.pair === null) return null;
  for (const image of init.pair) ctx.registeredBy.set(image, "seed");
  growModel(ctx);
  const finalBundle = ctx.bundles.filter((b) => b.kind === "global").at(-1);
  const profileStart = performance.now();
  // A model stopped while growing is not delivered: its focals need no profile.
  const focalProfiles = ctx.stoppedEarly ? [] : profileGuessedFocals(ctx.state, options);
  ctx.timings.focalProfile += performance.now() - profileStart;
  const snapStart = performance.now();
  const model = snapshotModel(ctx.state);
  ctx.timings.output += performance.now() - snapStart;
  return {
    model, reasons: new Map(ctx.reasons), registeredBy: new Map(ctx.registeredBy), init: init.attempts, closure: ctx.closure, focalProfiles,
    groupOfImage: ctx.state.groupOfImage.slice(), distortion: ctx.distortion, principalPointRefined: ctx.principalPointRefined, finalBundle,
    mergedGroups: ctx.mergedGroups,
    focalStep: ctx.lastFocalStep,
  };
}

/** Every model from one set of starting intrinsics, largest first, and what the largest became. */
export interface Outcome {
  models: Attempted[];
  /** The largest model without its implausible cameras; null with `error` when none is usable. */
  best: Attempted | null;
  error: PipelineError | null;
  /** The growth was stopped (GrowContext.stopGrowth): the models are partial, not to be delivered. */
  stoppedEarly?: boolean;
}


export const RETAKE_HINT = "Take photos with about 60–80% overlap between neighbours, so that each part of the scene appears in at least three photos.";

export function reconstructModels(ctx: GrowContext, pairs: VerifiedPair[], initial: IntrinsicsGroups, components: Components, base: SfmState): Attempted[] {
  const { images } = base;
  ctx.onStartBegun();
  // A later model seeds on images no earlier model took, but may grow into any image: only
  // the largest model is kept, and a model seeded on the far side of a weak link can then
  // cross it from there (the temple ring at the high preset: 6 + 10 images apart, 16 together).
  const seedable = new Uint8Array(images.length).fill(1);
  const models: Attempted[] = [];
  let largest = 0;
  for (let m = 0; m < ctx.options.maxModels; m++) {
    const attempted = reconstructOne(ctx, base, pairs, initial, seedable);
    if (attempted === null || attempted.model.views.length < 2) break;
    models.push(attempted);
    if (ctx.stoppedEarly) break;
    largest = Math.max(largest, attempted.model.views.length);
    for (const v of attempted.model.views) seedable[v.imageIndex] = 0;
    // Only a component larger than the largest model can still give a larger one.
    for (let i = 0; i < images.length; i++) if (components.size[i] <= largest) seedable[i] = 0;
    if (seedable.reduce((a, b) => a + b, 0) < 2) break;
  }
  return models.sort((a, b) => b.model.views.length - a.model.views.length);
}

/** The largest model, its implausible and focal-undetermined cameras taken out, or why none is usable. */
export function finishLargest(models: Attempted[], images: ImageRef[], pairs: VerifiedPair[], components: Components): Outcome {
  if (models.length === 0) {
    return { models, best: null, error: new PipelineError("not_enough_overlap", "sfm: no pair of images overlaps enough to start a reconstruction", "Take photos with about 60–80% overlap between neighbours, moving around the object rather than rotating in place.") };
  }
  const best = { ...models[0], model: { ...models[0].model } };
  const registered = new Set(best.model.views.map((v) => v.imageIndex));
  best.model.unregistered = images.filter((img) => !registered.has(img.index)).map((img) => ({ imageIndex: img.index, name: img.name, reason: unregisteredReason(img.index, best, models.slice(1), pairs, components) }));
  best.model.otherModelSizes = models.slice(1).map((m) => m.model.views.length);
  const implausible = implausibleViews(best.model);
  for (const profile of best.focalProfiles) {
    if (profile.chi2Rise >= MIN_CHI2_RISE) continue;
    best.model.views.forEach((view, v) => {
      if (profile.images.includes(view.imageIndex) && !implausible.has(v)) implausible.set(v, undeterminedReason(profile));
    });
  }
  best.model = withoutViews(best.model, implausible);
  // Two cameras out of a larger upload are only the seed pair: nothing checked them against a
  // third view, and on sparse captures such pairs were wrong (templeSparseRing without every
  // second photo: 2 of 8 registered, 14.8° off). Refuse rather than deliver a wrong model; an
  // upload of exactly two photos is still reconstructed from them.
  if (best.model.views.length === 2 && images.length > 2) {
    return { models, best: null, error: new PipelineError("not_enough_overlap", `sfm: only 2 of ${images.length} photos could be placed together, too few to check the cameras against each other`, RETAKE_HINT) };
  }
  if (best.model.views.length < 2) {
    const why = best.model.unregistered.find((u) => u.reason.startsWith("its focal"))?.reason ?? "too little overlap";
    return { models, best: null, error: new PipelineError("not_enough_overlap", `sfm: no camera could be placed reliably (${why})`, RETAKE_HINT) };
  }
  return { models, best, error: null };
}

export function placed(outcome: Outcome): number {
  return outcome.best?.model.views.length ?? 0;
}


/** One start: the stage's inputs and options, the intrinsics it starts from, the match graph's components. */
export interface StartTask {
  input: Input;
  options: Options;
  initial: IntrinsicsGroups;
  components: Components;
}

/** What a start made, with its timings and adjustments for the stage's report. */
export interface StartAnswer {
  outcome: Outcome;
  timings: Timings;
  bundles: BundleSummary[];
}

/** One start on its own, as the start thread runs it (start-thread.ts): a new context from the task's inputs and seed. */
export function runStart(task: StartTask): StartAnswer {
  const { input, options, initial, components } = task;
  const ctx = newContext(input, assignIntrinsicsGroups(input.images), options, { onRegistered: () => {}, onStartBegun: () => {} });
  const outcome = finishLargest(reconstructModels(ctx, input.pairs, initial, components, ctx.state), input.images, input.pairs, components);
  return { outcome, timings: ctx.timings, bundles: ctx.bundles };
}
