/**
 * @module Choice and reconstruction of the initial image pair (Schönberger & Frahm 2016, §4.1;
 * Snavely et al. 2006, §4.2).
 *
 * A good seed has many verified matches, real parallax (a low homography/fundamental inlier
 * ratio: a homography explains pure rotation and planar views) and a wide triangulation
 * angle. Candidates are ranked by matches × (1 − homography ratio) and tried in order; the
 * first whose two-view model, after bundle adjustment and filtering, keeps enough
 * well-triangulated points is accepted. The relative pose comes from the essential matrix on
 * focal-normalized coordinates (Nistér's five-point solver inside RANSAC), disambiguated by
 * the cheirality test — or, for a pair the matcher found planar, from its homography
 * (planar-seed.ts), where the essential matrix is ambiguous.
 */
import type { Rng } from "../../math/random.js";
import { estimateEssential, recoverPose } from "../../geometry/essential.js";
import type { VerifiedPair } from "../../scene/index.js";
import { globalBundleAdjustment, type BundleSummary } from "./bundle.js";
import { filterOutliers } from "./filter.js";
import type { Options } from "./options.js";
import { planarSeedPose } from "./planar-seed.js";
import { centerOf, rayAngleDeg } from "./projection.js";
import { essentialMinIterations, pointCount, registerImage, setPose, type SfmState } from "./state.js";
import { allCenters, normalizedKeypoints, triangulateTrack } from "./triangulate.js";

export interface InitAttempt {
  imageA: number;
  imageB: number;
  matches: number;
  homographyRatio: number;
  outcome: string;
}

export interface InitResult {
  pair: [number, number] | null;
  attempts: InitAttempt[];
  bundle: BundleSummary | null;
}

const IDENTITY = [1, 0, 0, 0, 1, 0, 0, 0, 1];

/**
 * Pairs worth trying as a seed, best first; both images must still be available. `strict`
 * drops pairs a homography explains (planar view or pure rotation); the relaxed list is the
 * fallback for scenes that are mostly planar (a facade), where every pair looks like that.
 */
export function rankInitialPairs(pairs: VerifiedPair[], available: Uint8Array, options: Options, strict = true): VerifiedPair[] {
  const score = (p: VerifiedPair) => (p.matches.length / 2) * (1 - Math.min(0.99, p.homographyRatio));
  return pairs
    .filter((p) => available[p.imageA] === 1 && available[p.imageB] === 1)
    .filter((p) => !strict || (p.model !== "homography" && p.homographyRatio <= options.initMaxHomographyRatio))
    .filter((p) => p.matches.length / 2 >= options.initMinPoints)
    .sort((a, b) => score(b) - score(a))
    .slice(0, options.initCandidates);
}

/** Forget everything about the current model (a failed seed). */
export function resetModel(state: SfmState): void {
  state.registered.fill(0);
  state.order.length = 0;
  state.hasPoint.fill(0);
  state.obsRejected.fill(0);
}

function medianAngleDeg(state: SfmState, a: number, b: number): number {
  const centers = new Float64Array(6);
  centerOf(state, a, centers, 0);
  centerOf(state, b, centers, 3);
  const angles: number[] = [];
  for (let k = 0; k < state.tracks.count; k++) {
    if (state.hasPoint[k] === 1) angles.push(rayAngleDeg(state.pointXyz, 3 * k, centers, 0, centers, 3));
  }
  angles.sort((x, y) => x - y);
  return angles.length === 0 ? 0 : angles[angles.length >> 1];
}

/** Two-view relative pose of the pair; returns a failure reason or null on success (pose written). */
function twoViewPose(state: SfmState, pair: VerifiedPair, pairs: VerifiedPair[], options: Options, rng: Rng): string | null {
  const { imageA: a, imageB: b } = pair;
  if (pair.model === "homography" && pair.H) {
    // Matches on one plane: the essential matrix is ambiguous there (planar-seed.ts). When the
    // other pairs do not agree on one plane (a courtyard's walls, a facade and the ground), the
    // scene is not one plane and the essential matrix below is used as for any pair.
    const planar = planarSeedPose(state, pair, pairs);
    if (planar.ok) {
      setPose(state, a, IDENTITY, [0, 0, 0]);
      setPose(state, b, planar.pose.R, planar.pose.t);
      return null;
    }
  }
  const count = pair.matches.length / 2;
  const xa = normalizedKeypoints(state, a);
  const xb = normalizedKeypoints(state, b);
  const x1 = new Float64Array(2 * count);
  const x2 = new Float64Array(2 * count);
  for (let m = 0; m < count; m++) {
    const ka = pair.matches[2 * m];
    const kb = pair.matches[2 * m + 1];
    x1[2 * m] = xa[2 * ka];
    x1[2 * m + 1] = xa[2 * ka + 1];
    x2[2 * m] = xb[2 * kb];
    x2[2 * m + 1] = xb[2 * kb + 1];
  }
  const focal = 0.5 * (state.intrinsics[5 * state.groupOfImage[a]] + state.intrinsics[5 * state.groupOfImage[b]]);
  const essential = estimateEssential(x1, x2, count, {
    thresholdPx: options.ransacThresholdPx,
    focal,
    confidence: 0.9999,
    maxIterations: 5000,
    minIterations: essentialMinIterations(state, a, b),
    rng,
  });
  if (essential === null || essential.inlierCount < options.initMinPoints) return "essential matrix: too few inliers";
  const pose = recoverPose(essential.E, x1, x2, count, essential.inliers);
  if (pose.inFront < options.initMinPoints) return `cheirality: only ${pose.inFront} points in front of both cameras`;
  setPose(state, a, IDENTITY, [0, 0, 0]);
  setPose(state, b, pose.R, pose.t);
  return null;
}

function triangulatePair(state: SfmState, pair: VerifiedPair, options: Options): void {
  const centers = allCenters(state);
  const obsA = state.keypointObs[pair.imageA];
  for (let m = 0; m < pair.matches.length; m += 2) {
    const j = obsA[pair.matches[m]];
    if (j < 0) continue;
    const k = state.obsTrack[j];
    const jb = state.keypointObs[pair.imageB][pair.matches[m + 1]];
    if (jb >= 0 && state.obsTrack[jb] === k && state.hasPoint[k] === 0) triangulateTrack(state, k, centers, options);
  }
}

function tryPair(state: SfmState, pair: VerifiedPair, pairs: VerifiedPair[], options: Options, rng: Rng): { outcome: string; bundle: BundleSummary | null } {
  const failure = twoViewPose(state, pair, pairs, options, rng);
  if (failure !== null) return { outcome: failure, bundle: null };
  registerImage(state, pair.imageA);
  registerImage(state, pair.imageB);
  triangulatePair(state, pair, options);
  if (pointCount(state) < options.initMinPoints) return { outcome: `only ${pointCount(state)} points triangulated`, bundle: null };
  const bundle = globalBundleAdjustment(state, options, false);
  filterOutliers(state, options);
  const points = pointCount(state);
  const angle = medianAngleDeg(state, pair.imageA, pair.imageB);
  if (points < options.initMinPoints) return { outcome: `only ${points} points survived bundle adjustment`, bundle };
  if (angle < options.initMinMedianAngleDeg) return { outcome: `median triangulation angle ${angle.toFixed(2)}° too small`, bundle };
  return { outcome: "accepted", bundle };
}

/** Seed a model from the best candidate pair among `available` images (strict candidates first). */
export function initializeModel(state: SfmState, pairs: VerifiedPair[], available: Uint8Array, options: Options, rng: Rng): InitResult {
  const attempts: InitAttempt[] = [];
  const tried = new Set<VerifiedPair>();
  for (const strict of [true, false]) {
    for (const pair of rankInitialPairs(pairs, available, options, strict)) {
      if (tried.has(pair)) continue;
      tried.add(pair);
      const { outcome, bundle } = tryPair(state, pair, pairs, options, rng);
      attempts.push({ imageA: pair.imageA, imageB: pair.imageB, matches: pair.matches.length / 2, homographyRatio: pair.homographyRatio, outcome });
      if (outcome === "accepted") return { pair: [pair.imageA, pair.imageB], attempts, bundle };
      resetModel(state);
    }
  }
  return { pair: null, attempts, bundle: null };
}
