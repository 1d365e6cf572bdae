/**
 * @module What the SfM stage tells about its run (index.ts): the models it attempted, which photos
 * it placed and why the others were not, the focal starts it tried, and the report built from them.
 */
import type { ImageRef, SparseModel, StageReport, VerifiedPair } from "../../scene/index.js";
import type { BundleSummary } from "./bundle.js";
import type { ClosureSummary } from "./closure.js";
import type { ControlReport } from "./control-report.js";
import type { FocalProfile } from "./focal-support.js";
import { viewResiduals } from "./view-residuals.js";
import type { DistortionChoice } from "./distortion-select.js";
import type { GpsPriorSummary } from "./georeference.js";
import type { GrowContext } from "./incremental.js";
import type { InitAttempt } from "./initialize.js";
import { meanReprojectionErrorPx } from "./model.js";
import { NAME } from "./options.js";


/** The stage report plus the initial-pair attempts (which pairs were tried and why they failed). */
export interface Report extends StageReport {
  initialPairAttempts: InitAttempt[];
  /** The last global bundle adjustment: its rounds, robust cost and RMS before and after, what it refined, whether it was kept. */
  finalBundleAdjustment: { iterations: number; initialCost: number; finalCost: number; initialRmsPx: number; finalRmsPx: number; refined: string[]; kept: boolean; gps?: GpsPriorSummary } | null;
  /** Ground control (options.controlPoints), when any was given: each target, the adjustment, RMSE per role (control-report.ts). */
  control?: ControlReport;
}

export interface Attempted {
  model: SparseModel;
  reasons: Map<number, string>;
  registeredBy: Map<number, string>;
  init: InitAttempt[];
  closure: ClosureSummary | null;
  /** How well the photos fix each guessed focal (focal-support.ts). */
  focalProfiles: FocalProfile[];
  /** The state's intrinsics groups and refinement choices when this model was finished. */
  groupOfImage: Uint32Array;
  distortion: DistortionChoice | null;
  principalPointRefined: boolean;
  /** This model's last global bundle adjustment (ctx.bundles also holds other models' and attempts'). */
  finalBundle: BundleSummary | undefined;
  /** Intrinsics groups this model merged (groups.ts). */
  mergedGroups: number;
  /** How far this model's last global adjustment that refined the intrinsics moved its guessed focals (relative, median). */
  focalStep: number;
}

/**
 * Per image, the size of its connected component in the graph of verified pairs: no model
 * seeded there can register more images, so a component no larger than the best model so far
 * is not worth seeding (an upload of several unrelated scenes, or of photos of both sides of
 * an object that share no view).
 */
export interface Components {
  component: Uint32Array;
  size: Uint32Array;
}

export function componentSizes(imageCount: number, pairs: VerifiedPair[]): Components {
  const parent = Uint32Array.from({ length: imageCount }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (const p of pairs) parent[find(p.imageA)] = find(p.imageB);
  const component = Uint32Array.from({ length: imageCount }, (_, i) => find(i));
  const members = new Uint32Array(imageCount);
  for (const c of component) members[c]++;
  return { component, size: component.map((c) => members[c]) };
}

export function unregisteredReason(image: number, attempted: Attempted, others: Attempted[], pairs: VerifiedPair[], components: Components): string {
  // An image of a smaller model did register: say so, since it tells the client which photos
  // form their own group (another side of the object, another object) rather than failed.
  const other = others.find((m) => m.model.views.some((v) => v.imageIndex === image));
  if (other) return `registered in a separate model of ${other.model.views.length} images that shares no points with the kept one (only the largest model is kept)`;
  const keptComponent = components.component[attempted.model.views[0].imageIndex];
  if (components.size[image] > 1 && components.component[image] !== keptComponent) {
    return `it overlaps only a separate group of ${components.size[image]} images, which no verified match links to the kept model`;
  }
  const reason = attempted.reasons.get(image);
  if (reason !== undefined) return reason;
  const verified = pairs.some((p) => p.imageA === image || p.imageB === image);
  return verified ? "its matches do not reach the reconstructed part of the scene" : "no verified matches with any other image";
}

export function buildReport(best: Attempted, others: number[], ctx: GrowContext, images: ImageRef[], guess: FocalGuessSummary, wallMs: number): Report {
  const { bundles, timings } = ctx;
  const { model } = best;
  const registered = new Set(model.views.map((v) => v.imageIndex));
  const globals = bundles.filter((b) => b.kind === "global");
  const last = best.finalBundle;
  const counts: Record<string, number> = {
    images: images.length,
    registered: model.views.length,
    unregistered: images.length - model.views.length,
    points: model.points.count,
    observations: model.points.obsViews.length,
    meanReprojectionErrorPx: meanReprojectionErrorPx(model),
    localBundleAdjustments: bundles.length - globals.length,
    globalBundleAdjustments: globals.length,
    finalBaInitialRmsPx: last?.initialRmsPx ?? 0,
    finalBaFinalRmsPx: last?.finalRmsPx ?? 0,
    finalBaIterations: last?.iterations ?? 0,
    finalBaInitialCost: last?.initialCost ?? 0,
    finalBaFinalCost: last?.finalCost ?? 0,
    finalBaRejected: last?.rejected ? 1 : 0,
    bundleAdjustmentsRejected: bundles.filter((b) => b.rejected).length,
    // Threads of the largest team that ran an adjustment (1: all on the calling thread).
    bundleAdjustmentThreads: bundles.reduce((most, b) => Math.max(most, b.threads), 1),
    otherModels: others.length,
    mergedIntrinsicsGroups: best.mergedGroups,
    principalPointRefined: best.principalPointRefined ? 1 : 0,
    pairRegistrations: [...best.registeredBy.values()].filter((how) => how === "pair").length,
    loopCandidatePairs: best.closure?.candidatePairs ?? 0,
    loopMatchedPairs: best.closure?.matchedPairs ?? 0,
    loopMatches: best.closure?.matches ?? 0,
    loopMatchesApplied: best.closure?.applied ?? 0,
    distortionTested: best.distortion ? 1 : 0,
    distortionKept: best.distortion?.kept ? 1 : 0,
    distortionImplausible: best.distortion && !best.distortion.plausible ? 1 : 0,
    distortionRmsWithPx: best.distortion?.withRmsPx ?? 0,
    distortionRmsWithoutPx: best.distortion?.withoutRmsPx ?? 0,
    focalGuessAttempts: guess.attempts,
    focalGuessFactor: guess.factor ?? 0,
    crossCheckPeers: guess.crossCheck?.peers ?? 0,
    oneCameraFallback: guess.oneCamera ? 1 : 0,
    crossCheckUnconfirmed: guess.crossCheck?.unconfirmed ?? 0,
    guessedFocalGroups: best.focalProfiles.length,
    minFocalChi2Rise: best.focalProfiles.length > 0 ? Math.min(...best.focalProfiles.map((p) => p.chi2Rise)) : 0,
    // GPS fixes of the final adjustment's cameras, those it held as priors, and how far they lay
    // from the model's centres (after a similarity) as it started.
    gpsFixes: last?.gps?.withFix ?? 0,
    gpsPriors: last?.gps?.used ?? 0,
    gpsResidualRmsM: last?.gps && Number.isFinite(last.gps.residualRmsM) ? last.gps.residualRmsM : 0,
  };
  for (const [key, ms] of Object.entries(timings)) counts[`${key}Ms`] = Math.round(ms);
  const residuals = viewResiduals(model, ctx.state.features);
  const perImage = images.map((img) => {
    const v = model.views.findIndex((view) => view.imageIndex === img.index);
    const view = model.views[v];
    return view
      ? {
          name: img.name, registered: true, registeredBy: best.registeredBy.get(img.index) ?? "", intrinsicsGroup: best.groupOfImage[img.index],
          observations: residuals[v].observations, reprojectionRmsPx: residuals[v].rmsPx, focalPx: view.intrinsics.focal, k1: view.intrinsics.k1, k2: view.intrinsics.k2,
        }
      : { name: img.name, registered: false, reason: model.unregistered.find((u) => u.imageIndex === img.index)?.reason ?? "" };
  });
  const warnings = others.length > 0 ? [`the scene fell apart into ${others.length + 1} models; kept the largest (${registered.size} images)`] : [];
  if (guess.factor !== null && !guess.crossCheck) {
    warnings.push(`the photos carry no focal length; the default guess placed ${guess.priorRegistered} of them, a guess of ${guess.factor} × the long side placed ${registered.size}`);
  }
  if (best.distortion && !best.distortion.plausible) {
    warnings.push("the refined lens distortion was beyond a rectilinear lens's (it folded back or moved the corners by over 30 %) and was dropped; photos from a fisheye lens need that lens's own model");
  }
  if (guess.oneCamera) warnings.push("the photos carry no focal length, and reconstructions with a focal of their own per photo disagreed or never settled on one; these cameras assume that one camera took the photos of each image size");
  if (last?.rejected) warnings.push(`the final bundle adjustment ended above its starting cost (${last.initialCost.toPrecision(4)} → ${last.finalCost.toPrecision(4)}) and was not kept`);
  if (last?.gps && last.gps.withFix > 0 && last.gps.used === 0 && last.gps.reason !== "off") warnings.push(`the photos' GPS positions were not used as priors: ${last.gps.reason}`);
  const finalBundleAdjustment = last ? { iterations: last.iterations, initialCost: last.initialCost, finalCost: last.finalCost, initialRmsPx: last.initialRmsPx, finalRmsPx: last.finalRmsPx, refined: last.refined, kept: !last.rejected, ...(last.gps ? { gps: last.gps } : {}) } : null;
  return { stage: NAME, wallMs, counts, perImage, warnings, initialPairAttempts: best.init, finalBundleAdjustment };
}

/** Which first focal guess the kept model came from (focal-guess.ts). */
export interface FocalGuessSummary {
  /** Reconstructions from a focal guess other than the prior. */
  attempts: number;
  /** The guess (× the long side) the kept model came from; null for the prior. */
  factor: number | null;
  /** Photos the model from the prior placed. */
  priorRegistered: number;
  /** What the cross-check of the starts found (cross-check.ts); null when it did not run. */
  crossCheck: { peers: number; confirmed: number; unconfirmed: number; refused: boolean } | null;
  /** The kept model came from one shared focal per image size for the photos without EXIF (oneCameraFallback). */
  oneCamera?: boolean;
}
