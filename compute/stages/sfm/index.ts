/**
 * @module Structure from motion stage: incremental reconstruction of camera poses, intrinsics
 * and sparse points from verified matches and tracks (see incremental.ts for the method).
 */
import { createRng } from "../../math/random.js";
import { PipelineError, type ImageFeatures, type ImageRef, type ProgressFn, type SparseModel, type Tracks, type VerifiedPair } from "../../scene/index.js";
import { closeBundleThreads } from "./bundle.js";
import { checkControlTargets } from "./control.js";
import { applyControl } from "./control-adjust.js";
import { controlCounts, controlWarnings, type ControlReport } from "./control-report.js";
import { applyAlignment, computeAlignment } from "./frame.js";
import { implausibleViews, withoutViews } from "./plausible.js";
import { MIN_CHI2_RISE, profileGuessedFocals, undeterminedReason } from "./focal-support.js";
import { hasGuessedFocal, withFocalGuess } from "./focal-guess.js";
import { crossCheckStarts, startsAgree } from "./cross-check.js";
import { gpsFrame } from "./georeference.js";
import { assignIntrinsicsGroups, oneCameraPerSize, photosShareUnknownCamera, type IntrinsicsGroups } from "./groups.js";
import { emptyTimings, growModel, type GrowContext } from "./incremental.js";
import { initializeModel, resetModel } from "./initialize.js";
import { meanReprojectionErrorPx, snapshotModel } from "./model.js";
import { DEFAULTS, type Options } from "./options.js";
import { buildReport, componentSizes, unregisteredReason, type Attempted, type Components, type FocalGuessSummary, type Report } from "./stage-report.js";
import { createState, type SfmState } from "./state.js";

export { DEFAULTS, NAME, type Options } from "./options.js";
export type { Report } from "./stage-report.js";
export type { ControlMark, ControlTarget } from "./control.js";
export type { ControlPointReport, ControlReport, RoleRmse } from "./control-report.js";

export interface Input {
  images: ImageRef[];
  features: ImageFeatures[];
  pairs: VerifiedPair[];
  tracks: Tracks;
}

export interface Output {
  model: SparseModel;
  report: Report;
}

/** Seed one model on a pair of `seedable` images and grow it; null when no pair gives a seed. */
function reconstructOne(ctx: GrowContext, base: SfmState, pairs: VerifiedPair[], initial: IntrinsicsGroups, seedable: Uint8Array): Attempted | null {
  // Loop closure may have moved the previous model onto extended tracks: start from the matcher's.
  ctx.state = base;
  ctx.closure = null;
  ctx.distortion = null;
  ctx.mergedGroups = 0;
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
  const focalProfiles = profileGuessedFocals(ctx.state, options);
  ctx.timings.focalProfile += performance.now() - profileStart;
  const snapStart = performance.now();
  const model = snapshotModel(ctx.state);
  ctx.timings.output += performance.now() - snapStart;
  return {
    model, reasons: new Map(ctx.reasons), registeredBy: new Map(ctx.registeredBy), init: init.attempts, closure: ctx.closure, focalProfiles,
    groupOfImage: ctx.state.groupOfImage.slice(), distortion: ctx.distortion, principalPointRefined: ctx.principalPointRefined, finalBundle,
    mergedGroups: ctx.mergedGroups,
  };
}

/** Every model from one set of starting intrinsics, largest first, and what the largest became. */
interface Outcome {
  models: Attempted[];
  /** The largest model without its implausible cameras; null with `error` when none is usable. */
  best: Attempted | null;
  error: PipelineError | null;
}

/** Share of the connected photos a model must leave out before other focal guesses are tried. */
const MIN_MISSING_SHARE = 0.1;

const RETAKE_HINT = "Take photos with about 60–80% overlap between neighbours, so that each part of the scene appears in at least three photos.";

function reconstructModels(ctx: GrowContext, pairs: VerifiedPair[], initial: IntrinsicsGroups, components: Components, base: SfmState): Attempted[] {
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
    largest = Math.max(largest, attempted.model.views.length);
    for (const v of attempted.model.views) seedable[v.imageIndex] = 0;
    // Only a component larger than the largest model can still give a larger one.
    for (let i = 0; i < images.length; i++) if (components.size[i] <= largest) seedable[i] = 0;
    if (seedable.reduce((a, b) => a + b, 0) < 2) break;
  }
  return models.sort((a, b) => b.model.views.length - a.model.views.length);
}

/** The largest model, its implausible and focal-undetermined cameras taken out, or why none is usable. */
function finishLargest(models: Attempted[], images: ImageRef[], pairs: VerifiedPair[], components: Components): Outcome {
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

function placed(outcome: Outcome): number {
  return outcome.best?.model.views.length ?? 0;
}

/** More photos placed wins; at equal counts, the lower mean reprojection error. */
function better(candidate: Outcome, current: Outcome): boolean {
  if (placed(candidate) !== placed(current)) return placed(candidate) > placed(current);
  return candidate.best !== null && current.best !== null && meanReprojectionErrorPx(candidate.best.model) < meanReprojectionErrorPx(current.best.model);
}

/** Photos connected by verified matches to the largest model's (or, without one, the largest group). */
function reachable(outcome: Outcome, components: Components): number {
  const first = outcome.models[0]?.model.views[0]?.imageIndex;
  if (first !== undefined) return components.size[first];
  return components.size.reduce((a, b) => Math.max(a, b), 0);
}

/**
 * Photos without EXIF up to this many are reconstructed from every focal guess and the models
 * cross-checked (cross-check.ts): two reconstructions instead of one when the second confirms
 * the first, three otherwise, which small uploads afford (SfM of the 20-photo synthetic facade
 * 26.6 → 52.6 s, Herz-Jesus-P8 4.6 → 8.4 s, `npm run bench -- sfm`) and large ones rarely need
 * (a camera's EXIF, or a video, fixes the focal).
 */
const CROSS_CHECK_MAX_IMAGES = 40;

/** Whether the upload is small and has photos (not video frames) without an EXIF focal. */
function crossCheckable(images: ImageRef[]): boolean {
  return images.length <= CROSS_CHECK_MAX_IMAGES && images.some((image) => image.focalPriorSource === "default" && !image.video);
}

/**
 * Rebuild from the other focal guesses (focal-guess.ts). A small upload without EXIF always
 * tries a second guess, and the third unless the second confirms the prior, and keeps the
 * model the others confirm (cross-check.ts). Otherwise the guesses run only while the model
 * from the prior leaves out a share of the photos matched to it, and the outcome placing most
 * photos is kept.
 *
 * Every start begins from the matcher's tracks (`base`), not from the tracks an earlier
 * start's loop closure extended, so the starts are independent witnesses. On refined
 * keypoints a dependent second start of the twoFocal stress scene landed up to 1.03° from the
 * first and the cross-check dropped a right camera (11/12); independent, 12/12 within 0.092°,
 * and the mural 10/10 instead of 9/10 (`npm run bench -- stress`). Before refinement,
 * independent starts had put a courtyard camera 21.6° off; on refined keypoints the courtyard is
 * 16/16 within 0.25° (docs/decisions.md, "Focal starts are independent witnesses").
 */
function tryOtherFocalGuesses(ctx: GrowContext, base: SfmState, prior: Outcome, groups: IntrinsicsGroups, pairs: VerifiedPair[], components: Components): { outcome: Outcome; summary: FocalGuessSummary } {
  const { images } = ctx.state;
  let outcome = prior;
  const summary: FocalGuessSummary = { attempts: 0, factor: null, priorRegistered: placed(prior), crossCheck: null };
  // Only to extend a model the prior built: where the prior built none, the capture itself
  // usually lacks the geometry (a camera turning in place), and another start only finds
  // another wrong fit (the panning stress scene from 2 × the long side: 9/9 "placed", focal
  // 36 % long with k1 = 0.24, a camera 1.4° off).
  if (!hasGuessedFocal(images) || placed(prior) < 3) return { outcome, summary };
  const crossCheck = crossCheckable(images);
  const outcomes: Array<{ outcome: Outcome; factor: number | null }> = [{ outcome: prior, factor: null }];
  for (const factor of ctx.options.focalGuessFactors) {
    // A photo or two left out of a large capture (blur, a stray view) is not worth rebuilding
    // the whole model twice over: a wrong start leaves out a share of the photos.
    const connected = reachable(outcome, components);
    if (!crossCheck && connected - placed(outcome) < Math.max(2, MIN_MISSING_SHARE * connected)) break;
    summary.attempts++;
    const candidate = finishLargest(reconstructModels(ctx, pairs, withFocalGuess(groups, images, factor), components, base), images, pairs, components);
    outcomes.push({ outcome: candidate, factor });
    if (better(candidate, outcome)) {
      outcome = candidate;
      summary.factor = factor;
    }
    // A second start that confirms the first completely: keep the first (the models differ by
    // noise only, and choosing between them by a 1 % lower error is choosing noise). Not for a
    // model of a few photos (AGREEING_STARTS_MIN_PHOTOS).
    const agreed = placed(outcome) >= AGREEING_STARTS_MIN_PHOTOS && startsAgree(outcomes.map(({ outcome }) => outcome.best?.model ?? null));
    if (crossCheck && agreed) {
      return { outcome: prior, summary: { ...summary, factor: null, crossCheck: { peers: 2, confirmed: placed(prior), unconfirmed: 0, refused: false } } };
    }
  }
  if (!crossCheck) return { outcome, summary };
  const checked = crossChecked(outcomes, images, summary);
  const complete = checked.outcome.best !== null && summary.crossCheck?.unconfirmed === 0;
  if (complete || !photosShareUnknownCamera(images)) return checked;
  return oneCameraFallback(ctx, base, groups, pairs, components, checked);
}

/**
 * When the starts with a focal per photo disagree (a refusal, or photos they place differently
 * and leave out), the starts again with one focal per image size for the photos without EXIF
 * (groups.ts oneCameraPerSize), cross-checked the same way: kept only when they confirm one
 * another and place more photos than the per-photo model kept, else that model (or refusal)
 * stands. Only such uploads pay for it (three more reconstructions of at most 40 photos).
 *
 * Why also after a partial agreement: on templeSparseRing (one camera, no EXIF) the per-photo
 * starts agree on 13 of 16 photos or on 2, depending on a few descriptor bits (OpenCV.js's SIMD
 * build against its plain one); the three photos joined to the ring by 17 and 58 matches move
 * 1.2–2.0° between starts whose focals differ by 0.4 %, while the one-camera starts agree on
 * all 16 within 0.8° (docs/decisions.md, "One camera per image size when the focal starts
 * disagree").
 */
function oneCameraFallback(ctx: GrowContext, base: SfmState, groups: IntrinsicsGroups, pairs: VerifiedPair[], components: Components, refused: { outcome: Outcome; summary: FocalGuessSummary }): { outcome: Outcome; summary: FocalGuessSummary } {
  const { images } = ctx.state;
  const shared = oneCameraPerSize(groups, images);
  const starts: Array<number | null> = [null, ...ctx.options.focalGuessFactors];
  const outcomes = starts.map((factor) => {
    // Each start from the same random state, so that what it places does not depend on how
    // many draws the starts before it made: on templeSparseRing the prior start then gave
    // 16/16 at 0.515/0.852° (as one EXIF focal does), and after the three per-photo starts'
    // draws 16 with a camera 123° off and the focal 6 % long.
    ctx.rng = createRng(ctx.options.seed);
    return {
      outcome: finishLargest(reconstructModels(ctx, pairs, factor === null ? shared : withFocalGuess(shared, images, factor), components, base), images, pairs, components),
      factor,
    };
  });
  const summary: FocalGuessSummary = { ...refused.summary, attempts: refused.summary.attempts + starts.length, oneCamera: true };
  const checked = crossChecked(outcomes, images, summary);
  return placed(checked.outcome) > placed(refused.outcome) ? checked : refused;
}

/**
 * A model that no other start can confirm (the only one placing about as many photos) is kept
 * only when it places at least this share of the upload: fewer photos placed and no second
 * witness both say the photos' geometry is weak. templeSparseRing without every third photo:
 * 5 of 11 placed from one start, 10.7–29° off, now refused; every subset that places half its
 * photos or more, and every full set, is unchanged (`npm run bench -- subsets`).
 */
const UNCONFIRMED_MIN_SHARE = 0.5;

/**
 * Two starts that agree end the search only when their model places at least this many photos.
 * A few photos fix the focal loosely, and the two shorter guesses (the prior's 1.2 and 0.8 × the
 * long side) can fall into the same wrong basin: templeSparseRing's second half (8 photos, no
 * EXIF) gave 4 cameras 33° off at 376 and 396 px from both, where the third start (2.0×) finds
 * 1,499 px (true 1,520) with a clearly lower error and the cross-check keeps it. On a small
 * model that start costs 0.5–4 s (the temple's half 0.5 s, a synthetic ring of 6 photos 2.9 s);
 * the shortcut stays where a start is expensive (synthetic/facade, 20 photos: 26.6 s a start).
 */
const AGREEING_STARTS_MIN_PHOTOS = 8;

/** The outcome the other starts confirm, without its unconfirmed cameras; or a refusal. */
function crossChecked(outcomes: Array<{ outcome: Outcome; factor: number | null }>, images: ImageRef[], summary: FocalGuessSummary): { outcome: Outcome; summary: FocalGuessSummary } {
  const check = crossCheckStarts(outcomes.map(({ outcome }) => outcome.best?.model ?? null));
  summary.crossCheck = { peers: check.peers, confirmed: check.confirmed, unconfirmed: check.unconfirmed.size, refused: check.refusal !== null };
  const models = outcomes.flatMap(({ outcome }) => outcome.models);
  if (check.refusal !== null) {
    return { outcome: { models, best: null, error: new PipelineError("not_enough_overlap", `sfm: ${check.refusal}`, RETAKE_HINT) }, summary };
  }
  if (check.chosen < 0) {
    return { outcome: { models, best: null, error: new PipelineError("not_enough_overlap", "sfm: no reconstruction from any focal guess placed three photos or more", RETAKE_HINT) }, summary };
  }
  const { outcome: chosen, factor } = outcomes[check.chosen];
  summary.factor = factor;
  const chosenCount = placed(chosen);
  if (check.peers < 2 && chosenCount < UNCONFIRMED_MIN_SHARE * images.length) {
    summary.crossCheck.refused = true;
    return { outcome: { models, best: null, error: new PipelineError("not_enough_overlap", `sfm: only ${chosenCount} of ${images.length} photos could be placed, and no reconstruction from another focal guess placed them the same way`, RETAKE_HINT) }, summary };
  }
  if (chosen.best === null || check.unconfirmed.size === 0) return { outcome: chosen, summary };
  const best = { ...chosen.best, model: withoutViews(chosen.best.model, check.unconfirmed) };
  if (best.model.views.length < 3 && images.length > 2) {
    const why = [...check.unconfirmed.values()][0];
    return { outcome: { models, best: null, error: new PipelineError("not_enough_overlap", `sfm: only ${best.model.views.length} of ${images.length} photos could be placed reliably (the others: ${why})`, RETAKE_HINT) }, summary };
  }
  return { outcome: { ...chosen, best }, summary };
}

/**
 * SfM's fraction: each start it expects (a small upload without EXIF is rebuilt from three focal
 * guesses and cross-checked) an equal share, and within a start the photos registered, to
 * REGISTERED_SHARE of it: the adjustments and checks after the last registration take the rest.
 * Counting registrations only, fountain-P11's SfM reported 95 % a quarter of the way through
 * (`npm run bench -- eta`). Never goes back, also when a start places fewer photos than the one
 * before it; a start beyond the expected ones (the one-camera fallback) stays at 95 %.
 */
function startsProgress(imageCount: number, expectedStarts: number, progress: ProgressFn) {
  const REGISTERED_SHARE = 0.7;
  let begun = 0;
  let reported = 0;
  let photos = 0;
  const report = (fraction: number) => {
    reported = Math.max(reported, Math.min(0.95, fraction));
    progress(reported, photos);
  };
  return {
    startBegun() {
      begun++;
      if (begun > 1) report((begun - 1) / expectedStarts);
    },
    registered(count: number) {
      photos = Math.max(photos, Math.min(imageCount, count));
      report((begun - 1 + REGISTERED_SHARE * Math.min(1, count / imageCount)) / expectedStarts);
    },
  };
}

export function run(input: Input, options: Partial<Options> = {}, progress: ProgressFn = () => {}): Output {
  const started = performance.now();
  const opts: Options = { ...DEFAULTS, ...options };
  const { images, features, pairs, tracks } = input;
  opts.controlPoints ??= [];
  checkControlTargets(opts.controlPoints);
  const groups = assignIntrinsicsGroups(images);
  const state = createState(images, features, tracks, Uint32Array.from(groups.groupOfImage), Float64Array.from(groups.intrinsics));
  const pairsOfImage: VerifiedPair[][] = images.map(() => []);
  for (const p of pairs) {
    pairsOfImage[p.imageA].push(p);
    pairsOfImage[p.imageB].push(p);
  }
  const progressOf = startsProgress(images.length, crossCheckable(images) ? 1 + opts.focalGuessFactors.length : 1, progress);
  const ctx: GrowContext = {
    state,
    pairsOfImage,
    options: opts,
    rng: createRng(opts.seed),
    timings: emptyTimings(),
    bundles: [],
    reasons: new Map(),
    registeredBy: new Map(),
    mergedGroups: 0,
    principalPointRefined: false,
    distortion: null,
    closure: null,
    available: new Uint8Array(images.length).fill(1),
    onRegistered: () => progressOf.registered(state.order.length),
    onStartBegun: () => progressOf.startBegun(),
  };
  const components = componentSizes(images.length, pairs);
  let chosen: ReturnType<typeof tryOtherFocalGuesses>;
  try {
    const prior = finishLargest(reconstructModels(ctx, pairs, groups, components, state), images, pairs, components);
    chosen = tryOtherFocalGuesses(ctx, state, prior, groups, pairs, components);
  } finally {
    // A long-lived service must not keep the team's shared memory (about 1 GB at 800 photos) between jobs.
    closeBundleThreads();
  }
  const { outcome, summary: guess } = chosen;
  if (outcome.best === null) throw outcome.error!;
  const { best } = outcome;
  // Ground control, where given, puts the model in its own frame (metres, x east, y up, z
  // south) and adjusts it; otherwise, or when too few control points agree, the frame of frame.ts.
  let control: ControlReport | null = null;
  if (opts.controlPoints.length > 0) {
    try {
      control = applyControl({ model: best.model, images, features, groupOfImage: best.groupOfImage }, opts);
    } finally {
      closeBundleThreads();
    }
  }
  // Where the fixes held the final adjustment, they also say where east and up are.
  const alignment = control?.applied ? null : computeAlignment(best.model, (best.finalBundle?.gps?.used ?? 0) > 0 ? gpsFrame(best.model, images) : null, (i) => images[i].gimbalPitchDeg);
  if (alignment) applyAlignment(best.model, alignment);
  progress(1, images.length);
  const report = buildReport(best, best.model.otherModelSizes ?? [], ctx, images, guess, performance.now() - started);
  report.counts!.upFromGps = alignment?.upFrom === "gps" ? 1 : 0;
  report.counts!.eastFromGps = alignment?.eastFromGps ? 1 : 0;
  if (control) {
    report.control = control;
    Object.assign(report.counts!, controlCounts(control));
    report.warnings!.push(...controlWarnings(control));
  }
  report.counts!.gimbalPitchPhotos = best.model.views.filter((v) => images[v.imageIndex].gimbalPitchDeg !== undefined).length;
  return { model: best.model, report };
}
