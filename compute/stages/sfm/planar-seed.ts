/**
 * @module The relative pose of a seed pair whose matches lie on one plane (a mural, a floor, a
 * painting, a facade seen from afar).
 *
 * Why: there the five-point essential matrix is ambiguous — a second motion fits every match
 * as well as the true one — and RANSAC returns either. On a rendered mural (10 photos of one
 * flat wall, EXIF focal) the seed pair's essential-matrix pose was 21.6° off and every camera
 * grown from it 3–26° off at a "registered" 0.4–1.1 px RMS. The homography decomposition
 * (decompose-homography.ts) states the ambiguity as two (R, t, n) candidates instead; the plane
 * is one and the same in every photo, so the right candidate is the one whose normal agrees
 * with the normals that the other planar pairs of the two images give (their own candidates,
 * brought into the seed's first camera). This is the multi-view disambiguation of Faugeras &
 * Lustman (1988, §5); ORB-SLAM's planar initialisation (Mur-Artal et al. 2015, §IV) likewise
 * refuses when the candidates cannot be told apart. Here a refusal returns its reason and the
 * caller (initialize.ts) falls back to the essential matrix, as for any pair: the other pairs
 * disagree when the scene is not one plane (a courtyard's four walls), and there the
 * homography is only the dominant plane's.
 */
import { dot3, mat3Inverse, mat3Mul, mat3Vec, norm3 } from "../../math/linalg.js";
import { decomposeHomography, type PlanarPose } from "../../geometry/decompose-homography.js";
import type { VerifiedPair } from "../../scene/index.js";
import type { SfmState } from "./state.js";
import { normalizedKeypoints } from "./triangulate.js";

/** Other planar pairs of each seed image whose normals vote. */
const VOTING_PAIRS_PER_IMAGE = 3;
/** The best candidate's normal must agree within this (degrees, median over the votes)... */
const MAX_NORMAL_DISAGREEMENT_DEG = 5;
/** ...and the other candidate's disagree at least this many times more. */
const MIN_AMBIGUITY_MARGIN = 3;

function angleDeg(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const cos = dot3(a, b) / (norm3(a) * norm3(b));
  return (Math.acos(Math.max(-1, Math.min(1, cos))) * 180) / Math.PI;
}

/** K of image i as a row-major 3×3 (distortion left out: the seed starts without it). */
function calibration(state: SfmState, i: number): Float64Array {
  const g = 5 * state.groupOfImage[i];
  const K = state.intrinsics;
  return new Float64Array([K[g], 0, K[g + 1], 0, K[g], K[g + 2], 0, 0, 1]);
}

/** The pair's candidates with `from` as camera 1 (normals in `from`'s frame), or [] without a homography. */
export function planarCandidates(state: SfmState, pair: VerifiedPair, from: number): PlanarPose[] {
  if (!pair.H) return [];
  const to = pair.imageA === from ? pair.imageB : pair.imageA;
  // pair.H maps imageA's pixels to imageB's; from `from`'s side it is H or H⁻¹.
  const Hpixels = pair.imageA === from ? pair.H : mat3Inverse(pair.H);
  const KtoInv = mat3Inverse(calibration(state, to));
  if (Hpixels === null || KtoInv === null) return [];
  // In normalised coordinates: K_to⁻¹·H·K_from.
  const Hn = mat3Mul(mat3Mul(KtoInv, Hpixels), calibration(state, from));
  const xFrom = normalizedKeypoints(state, from);
  const xTo = normalizedKeypoints(state, to);
  const count = pair.matches.length / 2;
  const x1 = new Float64Array(2 * count);
  const x2 = new Float64Array(2 * count);
  const fromSlot = pair.imageA === from ? 0 : 1;
  for (let m = 0; m < count; m++) {
    const kf = pair.matches[2 * m + fromSlot];
    const kt = pair.matches[2 * m + 1 - fromSlot];
    x1[2 * m] = xFrom[2 * kf];
    x1[2 * m + 1] = xFrom[2 * kf + 1];
    x2[2 * m] = xTo[2 * kt];
    x2[2 * m + 1] = xTo[2 * kt + 1];
  }
  return decomposeHomography(Hn, x1, x2, count);
}

/** The strongest other planar pairs of `image` (not `except`), best first. */
function votingPairs(pairs: VerifiedPair[], image: number, except: VerifiedPair): VerifiedPair[] {
  return pairs
    .filter((p) => p !== except && p.H && (p.imageA === image || p.imageB === image))
    .sort((a, b) => b.matches.length - a.matches.length)
    .slice(0, VOTING_PAIRS_PER_IMAGE);
}

/** Median over the votes of the smallest angle between `normal` and the vote's candidate normals. */
function disagreementDeg(normal: ArrayLike<number>, votes: Float64Array[][]): number {
  const angles = votes.map((normals) => Math.min(...normals.map((n) => angleDeg(normal, n)))).sort((a, b) => a - b);
  return angles.length === 0 ? Infinity : angles[angles.length >> 1];
}

export type PlanarSeed = { ok: true; pose: PlanarPose } | { ok: false; reason: string };

/**
 * The seed pair's motion from its homography (imageA as camera 1, t of unit length), chosen by
 * the plane normal the other planar pairs of both images agree on.
 */
export function planarSeedPose(state: SfmState, pair: VerifiedPair, pairs: VerifiedPair[]): PlanarSeed {
  const a = pair.imageA;
  const b = pair.imageB;
  const candidates = planarCandidates(state, pair, a);
  if (candidates.length === 0) return { ok: false, reason: "planar pair: its homography gives no motion (a camera turning in place)" };
  // Normals in a's frame from a's other pairs; b's other pairs give normals in b's frame,
  // compared with each candidate's normal carried into b (n_b = R·n_a).
  const votesOfA = votingPairs(pairs, a, pair).map((p) => planarCandidates(state, p, a).map((c) => c.n)).filter((v) => v.length > 0);
  const votesOfB = votingPairs(pairs, b, pair).map((p) => planarCandidates(state, p, b).map((c) => c.n)).filter((v) => v.length > 0);
  if (votesOfA.length + votesOfB.length === 0) return { ok: false, reason: "planar pair: no third photo sees the plane to tell its two solutions apart" };
  const scored = candidates
    .map((c) => {
      const parts = [disagreementDeg(c.n, votesOfA), disagreementDeg(mat3Vec(c.R, c.n), votesOfB)].filter(Number.isFinite);
      return { c, score: parts.reduce((sum, v) => sum + v, 0) / parts.length };
    })
    .sort((x, y) => x.score - y.score);
  const [best, second] = scored;
  if (best.score > MAX_NORMAL_DISAGREEMENT_DEG || (second && second.score < MIN_AMBIGUITY_MARGIN * best.score)) {
    return { ok: false, reason: `planar pair: the other photos do not single out one of its solutions (plane normals ${best.score.toFixed(1)}° and ${second ? second.score.toFixed(1) : "-"}° from theirs)` };
  }
  const length = Math.hypot(best.c.t[0], best.c.t[1], best.c.t[2]);
  return { ok: true, pose: { R: best.c.R, t: best.c.t.map((v) => v / length), n: best.c.n } };
}
