/**
 * @module Loop closure by guided matching, once the model has grown as far as it can.
 *
 * Why: on a sparse ring (photos ~20–45° apart round an object) the unguided matcher misses
 * the wide pairs, so the ring's two ends meet through no verified pair and every pose
 * rests on one chain of links; bundle adjustment then cannot spread the drift (templeSparseRing:
 * SR0002 and SR0014, 43° apart, had no verified pair, and the four cameras past the weakest
 * link were 1.4–2.4° off). With the poses known, each unmatched pair of cameras that look at
 * the same part of the scene is matched along its epipolar lines (guided.ts; Hartley &
 * Zisserman 2004, §11.7), and the matches join or extend the existing tracks (merge-tracks.ts;
 * COLMAP's track completion and merging, Schönberger & Frahm 2016, §4.5). The caller then
 * re-triangulates and re-runs global bundle adjustment over the closed loop.
 *
 * The epipolar geometry between two cameras is usually accurate even where their absolute
 * poses have drifted (the drift is spread along the chain), so a band of a couple of pixels
 * holds the right matches: on templeSparseRing at the standard preset, SR0002–SR0014 gave 100
 * guided matches, 74 of them within 2 px of the ground truth's epipolar lines.
 *
 * CONTRIBUTOR NOTES
 * - Limit: when the model's relative pose across the gap is itself wrong, the band follows
 *   the wrong lines and the matches confirm it (temple with preview features and preview sfm
 *   options: SR0002–SR0014 6° off, 5 of 63 guided matches right; 1.24° / 6.0° median / max
 *   rotation against 0.92° / 3.7° with loop closure off). Re-estimating the pair's essential
 *   matrix from the guided matches (or from a 10–30 px band) did not tell the two cases
 *   apart: on this ±12° lens rotation trades against translation by several degrees.
 * - Pairs that already share points through other images are left out: re-matching
 *   Herz-Jesus-P8's one candidate (132 shared points) made its principal point fail its
 *   acceptance test (0.12° → 0.52°).
 * - Tried and dropped: a ratio of 0.6 or 0.7 kept 0–2 of temple's 6 pairs; 0.9 doubled the
 *   matches but the rotation error rose (0.93° median at the standard preset); including
 *   weakly verified pairs, a second closure round, and keeping 4–8× the reprojection
 *   threshold through the first BA after closure changed little or made some runs worse.
 */
import { boundingSphere, frustumPlanes, sphereMeetsFrustum } from "../../geometry/frustum.js";
import type { Tracks, VerifiedPair } from "../../scene/index.js";
import { guidedMatches } from "./guided.js";
import { mergeTracks, type PairMatches } from "./merge-tracks.js";
import type { Options } from "./options.js";
import { createState, type SfmState } from "./state.js";

export interface ClosureSummary {
  /** Registered pairs without a verified pair that look at the same part of the scene. */
  candidatePairs: number;
  /** Candidates whose guided matches reached `loopClosureMinMatches`. */
  matchedPairs: number;
  /** Guided matches of those pairs, and how many joined or extended a track. */
  matches: number;
  applied: number;
  /** Matches dropped because they would put two keypoints of one image in a track. */
  conflicts: number;
}

/** Share of image i's points that must project inside image j, in front of it. */
const MIN_COVISIBLE_SHARE = 0.5;

function opticalAxisAngleDeg(state: SfmState, i: number, j: number): number {
  // The optical axis in world coordinates is the third row of camFromWorld's rotation.
  const a = state.rotation.subarray(9 * i + 6, 9 * i + 9);
  const b = state.rotation.subarray(9 * j + 6, 9 * j + 9);
  const cos = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  return (Math.acos(Math.max(-1, Math.min(1, cos))) * 180) / Math.PI;
}

/** Share of the points image i observes that project inside image j's frame, in front of it (without distortion: a visibility test). */
function covisibleShare(state: SfmState, i: number, j: number): number {
  const R = state.rotation.subarray(9 * j, 9 * j + 9);
  const t = state.translation.subarray(3 * j, 3 * j + 3);
  const focal = state.intrinsics[5 * state.groupOfImage[j]];
  const cx = state.intrinsics[5 * state.groupOfImage[j] + 1];
  const cy = state.intrinsics[5 * state.groupOfImage[j] + 2];
  const { width, height } = state.images[j];
  let seen = 0;
  let inside = 0;
  for (const obs of state.keypointObs[i]) {
    if (obs < 0 || state.obsRejected[obs] === 1) continue;
    const k = state.obsTrack[obs];
    if (state.hasPoint[k] === 0) continue;
    seen++;
    const X = state.pointXyz.subarray(3 * k, 3 * k + 3);
    const z = R[6] * X[0] + R[7] * X[1] + R[8] * X[2] + t[2];
    if (z <= 0) continue;
    const u = (focal * (R[0] * X[0] + R[1] * X[1] + R[2] * X[2] + t[0])) / z + cx;
    const v = (focal * (R[3] * X[0] + R[4] * X[1] + R[5] * X[2] + t[1])) / z + cy;
    if (u >= 0 && v >= 0 && u < width && v < height) inside++;
  }
  return seen === 0 ? 0 : inside / seen;
}

/** What image i sees without distortion, as covisibleShare tests it. */
function imageFrustum(state: SfmState, i: number): Float64Array {
  const group = state.groupOfImage[i];
  const [focal, cx, cy] = state.intrinsics.subarray(5 * group, 5 * group + 3);
  return frustumPlanes(state.rotation.subarray(9 * i, 9 * i + 9), state.translation.subarray(3 * i, 3 * i + 3), focal, cx, cy, state.images[i].width, state.images[i].height);
}

/** Per image, the sorted tracks of the points it observes (not rejected), for counting shared points. */
function pointTracksOf(state: SfmState, i: number): Uint32Array {
  const list: number[] = [];
  for (const obs of state.keypointObs[i]) {
    if (obs >= 0 && state.obsRejected[obs] === 0 && state.hasPoint[state.obsTrack[obs]] === 1) list.push(state.obsTrack[obs]);
  }
  return Uint32Array.from(list).sort();
}

/** Size of the intersection of two sorted track lists. */
function sharedCount(a: Uint32Array, b: Uint32Array): number {
  let shared = 0;
  for (let x = 0, y = 0; x < a.length && y < b.length; ) {
    if (a[x] === b[y]) shared++, x++, y++;
    else if (a[x] < b[y]) x++;
    else y++;
  }
  return shared;
}

/**
 * Registered pairs with no verified pair whose optical axes are within
 * `loopClosureMaxAngleDeg`, that share fewer than `loopClosureMinMatches` points and see
 * each other's points; closest axes first, at most `loopClosureMaxPairs`.
 * (Herz-Jesus-P8's one such pair already shared 132 points through other images, and
 * re-matching it only added noise: the principal point then failed its acceptance test.)
 */
export function loopCandidates(state: SfmState, pairsOfImage: VerifiedPair[][], options: Options): Array<[number, number]> {
  const found: Array<{ i: number; j: number; angle: number }> = [];
  const images = [...state.order].sort((a, b) => a - b);
  const tracksOf = new Map(images.map((i) => [i, pointTracksOf(state, i)]));
  const spheres = new Map(images.map((i) => [i, boundingSphere(state.pointXyz, tracksOf.get(i)!)]));
  const frustums = new Map(images.map((i) => [i, imageFrustum(state, i)]));
  for (const i of images) {
    const verified = new Set(pairsOfImage[i].map((p) => (p.imageA === i ? p.imageB : p.imageA)));
    for (const j of images) {
      if (j <= i || verified.has(j)) continue;
      const angle = opticalAxisAngleDeg(state, i, j);
      if (angle > options.loopClosureMaxAngleDeg) continue;
      // The exact tests below cost a pass over both images' points; on a large block most
      // pairs are far apart, and a sphere round one's points outside the other's frustum
      // means no point of one projects into the other (covisibleShare 0), so they are skipped.
      if (!sphereMeetsFrustum(spheres.get(i)!, frustums.get(j)!) || !sphereMeetsFrustum(spheres.get(j)!, frustums.get(i)!)) continue;
      // Tracks through other images already tie this pair together: nothing to close.
      if (sharedCount(tracksOf.get(i) as Uint32Array, tracksOf.get(j) as Uint32Array) >= options.loopClosureMinMatches) continue;
      if (Math.min(covisibleShare(state, i, j), covisibleShare(state, j, i)) < MIN_COVISIBLE_SHARE) continue;
      found.push({ i, j, angle });
    }
  }
  found.sort((a, b) => a.angle - b.angle);
  return found.slice(0, options.loopClosureMaxPairs).map((c) => [c.i, c.j]);
}

/** A fresh state on `tracks` with `old`'s registered poses and intrinsics, and no points yet. */
export function withTracks(old: SfmState, tracks: Tracks): SfmState {
  const state = createState(old.images, old.features, tracks, old.groupOfImage, old.intrinsics);
  state.rotation.set(old.rotation);
  state.translation.set(old.translation);
  state.registered.set(old.registered);
  state.order.push(...old.order);
  old.normalizedXy.forEach((xy, i) => (state.normalizedXy[i] = xy));
  return state;
}

/**
 * Guided matching of the loop candidates; returns the state on the extended tracks (no
 * points: the caller re-triangulates) or null when no pair gave enough matches.
 */
export function closeLoops(state: SfmState, pairsOfImage: VerifiedPair[][], options: Options): { state: SfmState | null; summary: ClosureSummary } {
  const candidates = loopCandidates(state, pairsOfImage, options);
  const found: PairMatches[] = [];
  let matches = 0;
  for (const [i, j] of candidates) {
    const pairMatches = guidedMatches(state, i, j, options.loopClosureThresholdPx);
    if (pairMatches.length / 2 < options.loopClosureMinMatches) continue;
    found.push({ imageA: i, imageB: j, matches: pairMatches });
    matches += pairMatches.length / 2;
  }
  const summary: ClosureSummary = { candidatePairs: candidates.length, matchedPairs: found.length, matches, applied: 0, conflicts: 0 };
  if (found.length === 0) return { state: null, summary };
  const merged = mergeTracks(state.tracks, state.features.map((f) => f.count), found);
  summary.applied = merged.applied;
  summary.conflicts = merged.conflicts;
  return { state: merged.applied > 0 ? withTracks(state, merged.tracks) : null, summary };
}
