/**
 * @module SfM, and once more after matching the photos against simulated oblique views of
 * each other (features/views.ts, matching/match-simulated-views.ts) when the first try refused
 * a small upload, placed less than half of it, or placed only 3 photos, and the photos are not
 * already well matched to each other (WIDE_BASELINE_LINKED_MATCHES).
 *
 * Why after SfM and not always: the second matching costs about as much as the front of the
 * pipeline again (9 photos at 1280 × 960: ~7 s of views and ~9 s of matching on two cores), and
 * it only matters where photos are far apart. Why only small uploads: every pair is matched
 * again, which grows with the square of the photos; sparse rings of photos around an object, the
 * case this serves, are small (9 photos 40° apart).
 *
 * Measured on the synthetic object ring with every 4th photo (9 photos, 40° apart): 4 placed at
 * 1.1° → 9 placed at 0.02° (`npm run bench -- subsets object-ring --keep=4`); the stress suite's
 * wideRing (8 photos 45° apart): refused → 8 placed, 0.06–0.10° median over five renderings.
 */
import { PipelineError, type ImageFeatures, type ImageRef, type StageReport } from "../scene/index.js";
import type { Tracks, VerifiedPair } from "../scene/matches.js";
import * as features from "../stages/features/index.js";
import * as keypoints from "../stages/keypoints/index.js";
import * as matching from "../stages/matching/index.js";
import * as sfm from "../stages/sfm/index.js";
import { startFrontWorkers, type FrontWorkers } from "./front-pool.js";
import type { StagePresets } from "./presets.js";

/** Uploads of at most this many photos are matched again when most photos are left out. */
export const WIDE_BASELINE_MAX_IMAGES = 24;

/**
 * …when SfM refused the upload or placed less than this share of its photos. Not whenever a
 * photo is left out: on templeSparseRing without every 6th photo the first model places 7 of 14
 * within 0.37° (median), and the second placed all 14, 1.5–2.9° off. Below half, as SfM's own
 * refusal rule counts (sfm/index.ts), the first model is mostly missing and the second only adds.
 */
export const WIDE_BASELINE_BELOW_SHARE = 0.5;

/**
 * …or placed no more than this many: three cameras are the fewest SfM delivers, and nothing
 * checks them against each other. fountain-P11's photos 0000, 0004 and 0008 alone came out of
 * plain matching as 3 cameras 10.6° off (a 44-inlier pair among them); with the views' matches,
 * 0.12–0.26° (`npm run bench -- subsets fountain --keep=4`). Such a model is replaced by the
 * second when that places as many photos or more.
 */
export const WIDE_BASELINE_SMALL_MODEL = 3;

/**
 * …unless the verified pairs already join every photo to the others through pairs of at least
 * this many matches: SfM then did not stop for want of matches, and more matches between the
 * same photos give it neither the parallax nor the focal length it lacked. The stress suite's
 * panning capture (a camera turning in place, 9 photos, weakest link 1,550 matches) spent 12 s
 * on a second matching that placed none. Every second matching kept so far joined photos whose
 * weakest link was 206 matches or fewer: fountain-P11 only every 4th 206, the stress wideRing
 * 135, object-ring only every 4th 52, templeSparseRing without every 3rd and 4th 15.
 */
export const WIDE_BASELINE_LINKED_MATCHES = 500;

export interface SparseInputs {
  images: ImageRef[];
  /** Refined features (what SfM uses) and the unrefined ones the second matching adds to. */
  refined: ImageFeatures[];
  unrefined: ImageFeatures[] | null;
  pairs: VerifiedPair[];
  tracks: Tracks;
  /**
   * The front's workers, still loaded, for the second matching; without them it starts its own,
   * which costs each thread about half a second of CPU before its first task (front-pool.ts).
   */
  front?: FrontWorkers;
}

/** What SfM gave, and the reports of the second matching when it ran. */
export interface PlacedCameras {
  sfm: sfm.Output;
  /** The features the model's observations index: the second try's when it was kept. */
  features: ImageFeatures[];
  reports: StageReport[];
}

/** The stage options the two tries use (a quality preset, or a test's). */
export type PlacementOptions = Pick<StagePresets, "features" | "matching" | "keypoints" | "sfm">;

export async function placeCameras(input: SparseInputs, preset: PlacementOptions, progress: (fraction: number) => void = () => {}): Promise<PlacedCameras> {
  const { images } = input;
  const firstTry = trySfm({ images, features: input.refined, pairs: input.pairs, tracks: input.tracks }, preset, progress);
  const first = firstTry.output;
  const placed = first?.model.views.length ?? 0;
  const small = placed > 0 && placed <= WIDE_BASELINE_SMALL_MODEL;
  const placedEnough = placed >= WIDE_BASELINE_BELOW_SHARE * images.length && !small;
  const { unrefined } = input;
  const rematchable = !placedEnough && unrefined !== null && images.length <= WIDE_BASELINE_MAX_IMAGES && images.length >= 3;
  const weakestLink = rematchable ? weakestLinkMatches(images.length, input.pairs) : 0;
  if (!rematchable || unrefined === null || weakestLink >= WIDE_BASELINE_LINKED_MATCHES) {
    if (first) return { sfm: first, features: input.refined, reports: [] };
    throw rematchable ? wellMatchedRefusal(firstTry.refusal!, weakestLink) : firstTry.refusal!;
  }
  const started = performance.now();
  // One set of worker threads for the views, the matchings and the keypoints: the front's when still loaded.
  const front = input.front ?? startFrontWorkers(preset.features.workers ?? features.DEFAULTS.workers);
  let viewsMs = 0;
  let rematched: Awaited<ReturnType<typeof matching.rematchWideBaseline>>;
  let refined: Awaited<ReturnType<typeof keypoints.run>>;
  let matchedMs = 0;
  try {
    const views = await features.simulateViews(images, { ...features.DEFAULTS, ...preset.features }, features.VIEW_DEFAULTS, front.views);
    viewsMs = performance.now() - started;
    // Every photo's pairs, not only the left-out photos': a camera the first model placed wrongly
    // (the object ring with every 5th photo: one 31 % of the radius off) is placed again from its
    // new matches; re-matching only the left-out photos' pairs kept it, and one came out 120° off.
    rematched = await matching.rematchWideBaseline({ images, features: unrefined, views, pairs: input.pairs, targets: images.map((_, i) => i) }, preset.matching, matching.WIDE_BASELINE_DEFAULTS, front.viewPairs);
    matchedMs = performance.now() - started;
    refined = await keypoints.run({ images, features: rematched.features, tracks: rematched.tracks }, preset.keypoints, undefined, front.keypoints);
  } finally {
    if (!input.front) await front.close();
  }
  const secondTry = trySfm({ images, features: refined.features, pairs: rematched.pairs, tracks: rematched.tracks }, preset, progress);
  const second = secondTry.output;
  const placedAgain = second?.model.views.length ?? 0;
  const kept = second && (placedAgain > placed || (small && placedAgain >= placed)) ? second : null;
  const report: StageReport = {
    ...rematched.report,
    // Views and matching; the refinement and the kept SfM report on their own, the other SfM here.
    wallMs: matchedMs,
    counts: { ...rematched.report.counts, viewsMs, firstSfmMs: firstTry.ms, secondSfmMs: secondTry.ms, placedBefore: placed, placedAfter: placedAgain, kept: kept ? 1 : 0 },
    warnings: secondTry.refusal ? [`after the wide-baseline matching: ${secondTry.refusal.message}`] : [],
  };
  if (kept) return { sfm: kept, features: refined.features, reports: [report, { ...refined.report, stage: "keypoints (wide-baseline)" }] };
  if (first) return { sfm: first, features: input.refined, reports: [report] };
  // The first refusal stands; say that the second matching was tried too.
  const refusal = firstTry.refusal!;
  throw new PipelineError(refusal.code, `${refusal.message} (also after matching the photos against simulated oblique views of each other)`, refusal.suggestion);
}

/**
 * The refusal of photos that match each other well: SfM's own suggestion asks for more overlap,
 * which these photos have; what they lack is the camera moving between them (the panning stress
 * capture: a camera turning in place, every photo joined to the others by 1,550 matches or more).
 */
function wellMatchedRefusal(refusal: PipelineError, weakestLink: number): PipelineError {
  return new PipelineError(
    refusal.code,
    `${refusal.message} (the photos overlap well: every photo is joined to the others by at least ${weakestLink} verified matches)`,
    "The photos overlap enough; more overlap will not help. Move the camera between photos (a step sideways, or around the subject) rather than only turning it, so that the scene is seen from different places.",
  );
}

/** SfM, with its refusal (not_enough_overlap) as a value; anything else is a bug and propagates. */
function trySfm(input: sfm.Input, preset: PlacementOptions, progress: (fraction: number) => void): { output: sfm.Output | null; refusal: PipelineError | null; ms: number } {
  const started = performance.now();
  try {
    return { output: sfm.run(input, preset.sfm, progress), refusal: null, ms: performance.now() - started };
  } catch (error) {
    if (!(error instanceof PipelineError) || error.code !== "not_enough_overlap") throw error;
    return { output: null, refusal: error, ms: performance.now() - started };
  }
}

/**
 * The largest m such that the pairs with at least m verified matches still join every photo into
 * one group (the bottleneck of a maximum spanning tree, by Kruskal's order); 0 when the pairs
 * do not join them at all.
 */
export function weakestLinkMatches(imageCount: number, pairs: VerifiedPair[]): number {
  const parent = Uint32Array.from({ length: imageCount }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  let groups = imageCount;
  if (groups <= 1) return 0;
  for (const pair of [...pairs].sort((a, b) => b.matches.length - a.matches.length)) {
    const a = find(pair.imageA);
    const b = find(pair.imageB);
    if (a === b) continue;
    parent[a] = b;
    if (--groups === 1) return pair.matches.length / 2;
  }
  return 0;
}
