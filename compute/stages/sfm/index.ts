/**
 * @module Structure from motion stage: incremental reconstruction of camera poses, intrinsics
 * and sparse points from verified matches and tracks (see incremental.ts for the method).
 */
import { createRng } from "../../math/random.js";
import { PipelineError, type ImageRef, type ProgressFn, type SparseModel, type VerifiedPair } from "../../scene/index.js";
import { closeBundleThreads } from "./bundle.js";
import { checkControlTargets } from "./control.js";
import { applyControl } from "./control-adjust.js";
import { controlCounts, controlWarnings, type ControlReport } from "./control-report.js";
import { applyAlignment, computeAlignment } from "./frame.js";
import { withoutViews } from "./plausible.js";
import { hasGuessedFocal, withFocalGuess } from "./focal-guess.js";
import { crossCheckStarts, startsAgree } from "./cross-check.js";
import { gpsFrame } from "./georeference.js";
import { assignIntrinsicsGroups, focalsRunAway, focalsUnsettled, guessedFocalsRunning, oneCameraPerSize, photosShareUnknownCamera, type IntrinsicsGroups } from "./groups.js";
import type { GrowContext } from "./incremental.js";
import { meanReprojectionErrorPx } from "./model.js";
import { DEFAULTS, type Options } from "./options.js";
import { buildReport, componentSizes, type Components, type FocalGuessSummary, type Report } from "./stage-report.js";
import type { SfmState } from "./state.js";
import type { Input } from "./start-input.js";
import { StartThread } from "./start-thread.js";
import { finishLargest, newContext, placed, reconstructModels, RETAKE_HINT, type Outcome } from "./starts.js";

export { DEFAULTS, NAME, type Options } from "./options.js";
export type { Report } from "./stage-report.js";
export type { ControlMark, ControlTarget } from "./control.js";
export type { ControlPointReport, ControlReport, RoleRmse } from "./control-report.js";

export type { Input } from "./start-input.js";

export interface Output {
  model: SparseModel;
  report: Report;
}

/**
 * A finished start whose last adjustment still moved its guessed focals by more than this share
 * has not converged: rendered/courtyard-wide without photos 04 and 12 merged its per-photo focals
 * but they ran on (2,682 → 3,264 → 3,943 px over its last three adjustments, true 864 px), where
 * templeSparseRing's end within 3 % (1,544 → 1,494 → 1,494 → 1,492 px).
 */
const FOCAL_STILL_MOVING = 0.05;

/** What the one-camera starts must improve on when the per-photo starts gave nothing usable. */
const NOTHING_PLACED: Outcome = { models: [], best: null, error: null };

/** Share of the connected photos a model must leave out before other focal guesses are tried. */
const MIN_MISSING_SHARE = 0.1;

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

/** The thread a second start may run on (made at its first start), and what the starts left for the report. */
interface Helper {
  thread: StartThread | null;
  /**
   * The options of the starts meant for the thread, wherever they run: their adjustments on one
   * thread. The others (the prior's start first) keep the team, so a model they make is the one
   * they made before the thread existed, to the bit. Null when no start is meant for a thread.
   */
  asideOptions: Options | null;
  begin: (initial: IntrinsicsGroups) => void;
  /** Stops the thread's start, whose answer is no longer wanted; a later begin makes a new thread. */
  abandon: () => void;
  /** How long the last start on the calling thread took (bounds the wait for the thread's). */
  ownMs: number;
  /** Progress for a start the thread ran, which placed `photos`. */
  answered: (photos: number) => void;
  /** Starts whose answer came from the thread. */
  used: number;
  /** Each start's mean reprojection error (px; NaN where it placed nothing usable), in the starts' order. */
  errorsPx: number[];
}

/**
 * Whether a second start runs beside the first: where more than one start is sure to run (a
 * small upload without EXIF, whose prior start a second cross-checks).
 */
function startsAside(images: ImageRef[], options: Options): boolean {
  return options.parallelStarts && options.focalGuessFactors.length > 0 && crossCheckable(images) && hasGuessedFocal(images);
}

/**
 * The helper: when `aside`, its thread is made at the first start given to it. A start on it adjusts on one thread: beside a team of
 * two on two cores, another team waited on the first's descheduled threads at every pass
 * (templeSparseRing's SfM 10.3–12.8 s with a team on each start, against 11.7–12.6 s in turn).
 */
function startHelper(aside: boolean, input: Input, options: Options, components: Components, answered: Helper["answered"]): Helper {
  const asideOptions: Options | null = aside ? { ...options, baThreads: 1 } : null;
  const helper: Helper = {
    thread: null, asideOptions, ownMs: 0, answered, used: 0, errorsPx: [],
    // The thread is made at its first start: an upload refused at its first start never pays for it.
    begin: (initial) => {
      if (!asideOptions) return;
      helper.thread ??= new StartThread();
      helper.thread.begin({ input, options: asideOptions, initial, components });
    },
    abandon: () => {
      helper.thread?.close();
      helper.thread = null;
    },
  };
  return helper;
}

/**
 * A start from `initial` and the seed: the helper thread's answer when it ran this one
 * (`onThread`), else run here, with the thread's options if it was meant for the thread. Every
 * start begins from the same random state, so what a start places does not depend on which
 * thread ran it, nor on the draws of the starts before it.
 */
function startFrom(ctx: GrowContext, base: SfmState, initial: IntrinsicsGroups, pairs: VerifiedPair[], components: Components, helper: Helper, onThread: boolean): Outcome {
  const { images } = base;
  const answer = onThread && helper.thread?.busy ? helper.thread.finish(helper.ownMs) : null;
  let outcome: Outcome;
  if (answer) {
    helper.used++;
    helper.answered(placed(answer.outcome));
    for (const key of Object.keys(answer.timings) as Array<keyof typeof answer.timings>) ctx.timings[key] += answer.timings[key];
    ctx.bundles.push(...answer.bundles);
    outcome = answer.outcome;
  } else {
    const own = ctx.options;
    if (onThread && helper.asideOptions) ctx.options = helper.asideOptions;
    ctx.rng = createRng(ctx.options.seed);
    const started = performance.now();
    try {
      outcome = finishLargest(reconstructModels(ctx, pairs, initial, components, base), images, pairs, components);
      if (ctx.stoppedEarly) outcome.stoppedEarly = true;
    } finally {
      ctx.options = own;
    }
    helper.ownMs = performance.now() - started;
  }
  helper.errorsPx.push(outcome.best ? meanReprojectionErrorPx(outcome.best.model) : NaN);
  return outcome;
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
function tryOtherFocalGuesses(ctx: GrowContext, base: SfmState, priorStart: Outcome, groups: IntrinsicsGroups, pairs: VerifiedPair[], components: Components, helper: Helper): { outcome: Outcome; summary: FocalGuessSummary } {
  const { images } = ctx.state;
  let prior = priorStart;
  const summary: FocalGuessSummary = { attempts: 0, factor: null, priorRegistered: placed(prior), crossCheck: null };
  let shared: { outcome: Outcome; summary: FocalGuessSummary } | null = null;
  if (prior.stoppedEarly) {
    // Its per-photo focals ran away (run): the one-camera starts, kept when they place every
    // photo the matches connect to them; else the prior's start to its end, and on as before.
    helper.abandon();
    shared = oneCameraFallback(ctx, base, groups, pairs, components, { outcome: NOTHING_PLACED, summary }, helper);
    if (shared.outcome.best && placed(shared.outcome) >= components.size[shared.outcome.best.model.views[0].imageIndex]) return shared;
    summary.attempts = shared.summary.attempts;
    prior = startFrom(ctx, base, groups, pairs, components, helper, false);
    summary.priorRegistered = placed(prior);
  }
  let outcome = prior;
  // Only to extend a model the prior built: where the prior built none, the capture itself
  // usually lacks the geometry (a camera turning in place), and another start only finds
  // another wrong fit (the panning stress scene from 2 × the long side: 9/9 "placed", focal
  // 36 % long with k1 = 0.24, a camera 1.4° off).
  if (!hasGuessedFocal(images) || placed(prior) < 3) return { outcome, summary };
  const crossCheck = crossCheckable(images);
  // The one-camera starts first where the prior's per-photo focals never agreed or never came to
  // rest (a lens the per-photo model cannot represent): its model is kept when it places as many
  // photos and fits them better with fewer parameters; else the per-photo starts run as they
  // would have.
  if (crossCheck && prior.best && photosShareUnknownCamera(images) && (focalsUnsettled(images, prior.best.model.views.map((v) => v.imageIndex), prior.best.groupOfImage) || prior.best.focalStep > FOCAL_STILL_MOVING)) {
    if (shared === null) {
      // The first guess's per-photo start, begun on the thread beside the prior's, is not wanted now.
      helper.abandon();
      shared = oneCameraFallback(ctx, base, groups, pairs, components, { outcome: NOTHING_PLACED, summary }, helper);
      summary.attempts = shared.summary.attempts;
    }
    if (fitsBetter(shared.outcome, prior)) return shared;
  }
  const outcomes: Array<{ outcome: Outcome; factor: number | null }> = [{ outcome: prior, factor: null }];
  for (const [k, factor] of ctx.options.focalGuessFactors.entries()) {
    // A photo or two left out of a large capture (blur, a stray view) is not worth rebuilding
    // the whole model twice over: a wrong start leaves out a share of the photos.
    const connected = reachable(outcome, components);
    if (!crossCheck && connected - placed(outcome) < Math.max(2, MIN_MISSING_SHARE * connected)) break;
    summary.attempts++;
    // The first guess's start began on the helper thread beside the prior's (run).
    const candidate = startFrom(ctx, base, withFocalGuess(groups, images, factor), pairs, components, helper, k === 0);
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
  if (shared === null) return oneCameraFallback(ctx, base, groups, pairs, components, checked, helper);
  return placed(shared.outcome) > placed(checked.outcome) ? { ...shared, summary: { ...shared.summary, attempts: summary.attempts } } : checked;
}

/**
 * Whether the one-camera model should replace a per-photo prior whose focals never agreed: it
 * places as many photos and fits them better, though it has a focal and a lens for all of them
 * where the prior had one per photo. On rendered/courtyard-wide (barrel lens, no EXIF) the prior
 * held 0.171 px at focals of 5,206–10,551 px, the one-camera model 0.116 px at 861 px (true 864).
 */
function fitsBetter(candidate: Outcome, prior: Outcome): boolean {
  if (candidate.best === null || prior.best === null || placed(candidate) < placed(prior)) return false;
  return meanReprojectionErrorPx(candidate.best.model) < meanReprojectionErrorPx(prior.best.model);
}

/**
 * When the starts with a focal per photo disagree (a refusal, or photos they place differently
 * and leave out), the starts again with one focal per image size for the photos without EXIF
 * (groups.ts oneCameraPerSize), cross-checked the same way: kept only when they confirm one
 * another and place more photos than the per-photo model kept, else that model (or refusal)
 * stands. Only such uploads pay for it (two or three more reconstructions of at most 40 photos:
 * the third only when the first two do not agree on 8 photos or more, AGREEING_STARTS_MIN_PHOTOS).
 *
 * Why also after a partial agreement: on templeSparseRing (one camera, no EXIF) the per-photo
 * starts agree on 13 of 16 photos or on 2, depending on a few descriptor bits (OpenCV.js's SIMD
 * build against its plain one); the three photos joined to the ring by 17 and 58 matches move
 * 1.2–2.0° between starts whose focals differ by 0.4 %, while the one-camera starts agree on
 * all 16 within 0.8° (docs/decisions.md, "One camera per image size when the focal starts
 * disagree").
 */
function oneCameraFallback(ctx: GrowContext, base: SfmState, groups: IntrinsicsGroups, pairs: VerifiedPair[], components: Components, refused: { outcome: Outcome; summary: FocalGuessSummary }, helper: Helper): { outcome: Outcome; summary: FocalGuessSummary } {
  const { images } = ctx.state;
  const shared = oneCameraPerSize(groups, images);
  const starts: Array<number | null> = [null, ...ctx.options.focalGuessFactors];
  const initialOf = (factor: number | null) => (factor === null ? shared : withFocalGuess(shared, images, factor));
  // The second start on the helper thread beside the first here; the third only when those two
  // do not already agree (as in tryOtherFocalGuesses).
  const aside = starts.length > 1 ? 1 : -1;
  if (aside >= 0) helper.begin(initialOf(starts[aside]));
  const run = (k: number) => ({ outcome: startFrom(ctx, base, initialOf(starts[k]), pairs, components, helper, k === aside), factor: starts[k] });
  const outcomes = [run(0), ...(aside >= 0 ? [run(aside)] : [])];
  const summary: FocalGuessSummary = { ...refused.summary, attempts: refused.summary.attempts + outcomes.length, oneCamera: true };
  const first = outcomes[0].outcome;
  let checked: { outcome: Outcome; summary: FocalGuessSummary };
  if (placed(first) >= AGREEING_STARTS_MIN_PHOTOS && startsAgree(outcomes.map(({ outcome }) => outcome.best?.model ?? null))) {
    checked = { outcome: first, summary: { ...summary, factor: null, crossCheck: { peers: 2, confirmed: placed(first), unconfirmed: 0, refused: false } } };
  } else {
    for (let k = 2; k < starts.length; k++) outcomes.push(run(k));
    summary.attempts = refused.summary.attempts + outcomes.length;
    checked = crossChecked(outcomes, images, summary);
  }
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
  const { images, features, pairs } = input;
  opts.controlPoints ??= [];
  checkControlTargets(opts.controlPoints);
  const groups = assignIntrinsicsGroups(images);
  const progressOf = startsProgress(images.length, crossCheckable(images) ? 1 + opts.focalGuessFactors.length : 1, progress);
  /** Begins the first guess's start on the thread; set only while the prior's start runs. */
  let beginAside: (() => void) | null = null;
  const ctx: GrowContext = newContext(input, groups, opts, {
    onRegistered: () => {
      progressOf.registered(ctx.state.order.length);
      if (ctx.state.order.length >= 3) beginAside?.();
    },
    onStartBegun: () => progressOf.startBegun(),
  });
  const state = ctx.state;
  const components = componentSizes(images.length, pairs);
  let chosen: ReturnType<typeof tryOtherFocalGuesses>;
  const helper = startHelper(startsAside(images, opts), input, opts, components, (photos) => {
    progressOf.startBegun();
    progressOf.registered(photos);
  });
  try {
    // Such an upload runs the first focal guess's start once the prior's places 3 photos or
    // more: it begins as soon as the prior's model holds 3, beside the rest of it (start-thread.ts).
    beginAside = () => {
      beginAside = null;
      helper.begin(withFocalGuess(groups, images, opts.focalGuessFactors[0]));
    };
    // A small upload of EXIF-less photos that share a size stops its first start once their
    // focals run away (groups.ts focalsRunAway, guessedFocalsRunning): tryOtherFocalGuesses then
    // tries one camera.
    if (crossCheckable(images) && hasGuessedFocal(images) && opts.focalGuessFactors.length > 0 && photosShareUnknownCamera(images)) {
      ctx.stopGrowth = (grown) => focalsRunAway(images, grown.order, grown.groupOfImage, grown.intrinsics) || guessedFocalsRunning(images, grown.order, grown.groupOfImage, grown.intrinsics, ctx.lastFocalStep);
    }
    const prior = startFrom(ctx, state, groups, pairs, components, helper, false);
    ctx.stopGrowth = null;
    beginAside = null;
    chosen = tryOtherFocalGuesses(ctx, state, prior, groups, pairs, components, helper);
  } finally {
    // A long-lived service must not keep the team's shared memory (about 1 GB at 800 photos) between jobs.
    closeBundleThreads();
    helper.thread?.close();
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
  report.counts!.startsOnThread = helper.used;
  helper.errorsPx.forEach((error, k) => (report.counts![`start${k}ErrorPx`] = error));
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
