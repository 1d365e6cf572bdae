/**
 * @module Registration of an image from one verified pair with a registered image, for the
 * images PnP cannot take because too few of their keypoints see triangulated points.
 *
 * Why: on sparse captures (a ring of photos ~22° apart, a weakly textured object) neighbours
 * match well pairwise but few keypoints survive across three views, so a new image sees only
 * a handful of 3-D points even though it shares hundreds of matches with a registered
 * neighbour; PnP needs tens of them and the model stops growing at that link. The pair's
 * essential matrix (Nistér's five-point solver in RANSAC) gives the new camera's rotation
 * and its direction of travel from the neighbour; only the length of that baseline (the
 * model's scale) is missing, and one 3-D point seen by the new image fixes it. This is the
 * relative-pose-then-scale step of visual odometry (Nistér, Naroditsky & Bergen, CVPR 2004):
 * a 1-DoF problem, solved by letting every 2-D–3-D correspondence propose a scale and
 * keeping the one most others agree with, instead of a 6-DoF PnP. The pose is then refined
 * by the caller's triangulation and local bundle adjustment.
 *
 * Limits: on a narrow lens two views fix the rotation less well than PnP does (rotation
 * trades against translation, the bas-relief ambiguity), hence the tight essential-matrix
 * threshold; and a scale resting on one or two points is only as good as those points, so
 * the caller uses this only when PnP takes no image, and takes the best-supported candidate.
 */
import { estimateEssential, recoverPose } from "../../geometry/essential.js";
import type { Rng } from "../../math/random.js";
import type { VerifiedPair } from "../../scene/index.js";
import type { Options } from "./options.js";
import { visibleObservations } from "./register.js";
import { essentialMinIterations, type SfmState } from "./state.js";
import { normalizedKeypoints } from "./triangulate.js";

/** Share of the essential matrix's inliers that must triangulate in front of both cameras. */
const MIN_IN_FRONT_SHARE = 0.9;

/** The strongest usable verified pair (among `pairs`) between `image` and a registered image, or null. */
export function bestRegisteredPartner(state: SfmState, image: number, pairs: VerifiedPair[], options: Options): VerifiedPair | null {
  let best: VerifiedPair | null = null;
  for (const p of pairs) {
    const other = p.imageA === image ? p.imageB : p.imageB === image ? p.imageA : -1;
    if (other < 0 || state.registered[other] === 0) continue;
    // A pair a homography explains has no usable baseline direction (pure rotation, or a plane).
    if (p.model === "homography" || p.homographyRatio > options.initMaxHomographyRatio) continue;
    if (p.matches.length / 2 < options.pairRegistrationMinMatches) continue;
    if (best === null || p.matches.length > best.matches.length) best = p;
  }
  return best;
}

/** The pair's matches in normalized coordinates, the registered image's first. */
function normalizedMatches(state: SfmState, pair: VerifiedPair, registered: number): { x1: Float64Array; x2: Float64Array; count: number } {
  const count = pair.matches.length / 2;
  const flip = pair.imageA !== registered;
  const xr = normalizedKeypoints(state, registered);
  const xn = normalizedKeypoints(state, flip ? pair.imageA : pair.imageB);
  const x1 = new Float64Array(2 * count);
  const x2 = new Float64Array(2 * count);
  for (let m = 0; m < count; m++) {
    const kr = pair.matches[2 * m + (flip ? 1 : 0)];
    const kn = pair.matches[2 * m + (flip ? 0 : 1)];
    x1[2 * m] = xr[2 * kr];
    x1[2 * m + 1] = xr[2 * kr + 1];
    x2[2 * m] = xn[2 * kn];
    x2[2 * m + 1] = xn[2 * kn + 1];
  }
  return { x1, x2, count };
}

/**
 * Baseline length s at which the point u + s·v (new-camera frame) projects onto the ray of
 * normalized (x, y): least squares of the cross product x̃ × (u + s v) = 0. NaN when the ray
 * is parallel to the baseline (the point says nothing about s).
 */
export function scaleFromPoint(x: number, y: number, u: ArrayLike<number>, v: ArrayLike<number>): number {
  // a = x̃ × u, b = x̃ × v with x̃ = (x, y, 1).
  const a0 = y * u[2] - u[1];
  const a1 = u[0] - x * u[2];
  const a2 = x * u[1] - y * u[0];
  const b0 = y * v[2] - v[1];
  const b1 = v[0] - x * v[2];
  const b2 = x * v[1] - y * v[0];
  const bb = b0 * b0 + b1 * b1 + b2 * b2;
  return bb < 1e-12 ? Number.NaN : -(a0 * b0 + a1 * b1 + a2 * b2) / bb;
}

interface ScaleProblem {
  /** Per correspondence: the 3-D point in the new camera's frame without the baseline term (3 each). */
  u: Float64Array;
  /** Normalized observation in the new image (2 each). */
  xy: Float64Array;
  count: number;
  /** Unit baseline direction in the new camera's frame. */
  v: Float64Array;
}

/** Squared normalized reprojection error of correspondence m at scale s; Infinity behind the camera. */
function errorAt(p: ScaleProblem, m: number, s: number): number {
  const X = p.u[3 * m] + s * p.v[0];
  const Y = p.u[3 * m + 1] + s * p.v[1];
  const Z = p.u[3 * m + 2] + s * p.v[2];
  if (Z <= 1e-12) return Infinity;
  const dx = X / Z - p.xy[2 * m];
  const dy = Y / Z - p.xy[2 * m + 1];
  return dx * dx + dy * dy;
}

/** Every correspondence proposes a scale; keep the one most others agree with, refit on its inliers. */
function consensusScale(p: ScaleProblem, maxErrSq: number): { scale: number; inliers: Uint8Array; inlierCount: number } | null {
  let best: { scale: number; inliers: Uint8Array; inlierCount: number } | null = null;
  for (let m = 0; m < p.count; m++) {
    const s = scaleFromPoint(p.xy[2 * m], p.xy[2 * m + 1], p.u.subarray(3 * m, 3 * m + 3), p.v);
    if (!(s > 0)) continue;
    const inliers = new Uint8Array(p.count);
    let inlierCount = 0;
    for (let n = 0; n < p.count; n++) if (errorAt(p, n, s) <= maxErrSq) inliers[n] = 1, inlierCount++;
    if (best === null || inlierCount > best.inlierCount) best = { scale: s, inliers, inlierCount };
  }
  if (best === null || best.inlierCount === 0) return null;
  // Refit: the least-squares scale over the inliers' cross-product residuals.
  let num = 0;
  let den = 0;
  for (let m = 0; m < p.count; m++) {
    if (!best.inliers[m]) continue;
    const x = p.xy[2 * m];
    const y = p.xy[2 * m + 1];
    const u = p.u.subarray(3 * m, 3 * m + 3);
    const b = [y * p.v[2] - p.v[1], p.v[0] - x * p.v[2], x * p.v[1] - y * p.v[0]];
    const a = [y * u[2] - u[1], u[0] - x * u[2], x * u[1] - y * u[0]];
    num -= a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    den += b[0] * b[0] + b[1] * b[1] + b[2] * b[2];
  }
  const refit = den > 0 ? num / den : best.scale;
  return refit > 0 ? { ...best, scale: refit } : best;
}

/** cam_new_from_world = R_rel · camRegistered_from_world, translation R_rel t_reg + s t_rel. */
function composePose(state: SfmState, registered: number, R: Float64Array, t: Float64Array, scale: number): { R: Float64Array; t: Float64Array } {
  const Rr = state.rotation.subarray(9 * registered, 9 * registered + 9);
  const tr = state.translation.subarray(3 * registered, 3 * registered + 3);
  const Rn = new Float64Array(9);
  const tn = new Float64Array(3);
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) Rn[3 * r + c] = R[3 * r] * Rr[c] + R[3 * r + 1] * Rr[3 + c] + R[3 * r + 2] * Rr[6 + c];
    tn[r] = R[3 * r] * tr[0] + R[3 * r + 1] * tr[1] + R[3 * r + 2] * tr[2] + scale * t[r];
  }
  return { R: Rn, t: tn };
}

/** The 2-D–3-D correspondences of `image` expressed for the scale search. */
function scaleProblem(state: SfmState, image: number, registered: number, R: Float64Array, t: Float64Array, observations: number[]): ScaleProblem {
  const unit = composePose(state, registered, R, t, 0);
  const normalized = normalizedKeypoints(state, image);
  const count = observations.length;
  const u = new Float64Array(3 * count);
  const xy = new Float64Array(2 * count);
  observations.forEach((j, m) => {
    const k = state.obsTrack[j];
    const kp = state.tracks.trackKeypoints[j];
    const X = state.pointXyz.subarray(3 * k, 3 * k + 3);
    for (let r = 0; r < 3; r++) u[3 * m + r] = unit.R[3 * r] * X[0] + unit.R[3 * r + 1] * X[1] + unit.R[3 * r + 2] * X[2] + unit.t[r];
    xy[2 * m] = normalized[2 * kp];
    xy[2 * m + 1] = normalized[2 * kp + 1];
  });
  return { u, xy, count, v: t };
}

export type PairRegistration =
  | { ok: true; image: number; R: Float64Array; t: Float64Array; inliers: Uint8Array; inlierCount: number; observations: number[] }
  | { ok: false; reason: string };

/**
 * Pose of `image` from its strongest verified pair with a registered image: relative pose
 * from the essential matrix (five-point RANSAC), baseline length by consensus over its
 * 2-D–3-D correspondences (at least `pairRegistrationMinPoints` must agree). Nothing is
 * written: the caller compares candidates and applies the best with applyPairRegistration.
 */
export function planPairRegistration(state: SfmState, image: number, pairs: VerifiedPair[], options: Options, rng: Rng): PairRegistration {
  const observations = visibleObservations(state, image);
  const pair = bestRegisteredPartner(state, image, pairs, options);
  if (pair === null) return { ok: false, reason: `no verified pair of ${options.pairRegistrationMinMatches}+ matches with a registered image` };
  const registered = pair.imageA === image ? pair.imageB : pair.imageA;
  const { x1, x2, count } = normalizedMatches(state, pair, registered);
  const focal = 0.5 * (state.intrinsics[5 * state.groupOfImage[image]] + state.intrinsics[5 * state.groupOfImage[registered]]);
  const { width, height } = state.images[image];
  const thresholdPx = Math.max(0.5, options.pairRegistrationThreshold * Math.max(width, height));
  const essential = estimateEssential(x1, x2, count, { thresholdPx, focal, confidence: 0.9999, maxIterations: 5000, minIterations: essentialMinIterations(state, image, registered), rng });
  // The tight threshold drops part of the (looser) verified matches, more so while the focal
  // is still far off; what remains must still reach PnP's minimum for a pose.
  if (essential === null || essential.inlierCount < options.minPnpInliers) {
    return { ok: false, reason: `pair registration: essential matrix kept ${essential?.inlierCount ?? 0} of ${count} matches (need ${options.minPnpInliers})` };
  }
  const relative = recoverPose(essential.E, x1, x2, count, essential.inliers);
  // A physically valid relative pose has (nearly) every inlier in front of both cameras; a
  // large share behind one of them says RANSAC settled on a wrong, ambiguous solution.
  if (relative.inFront < Math.max(options.minPnpInliers, MIN_IN_FRONT_SHARE * essential.inlierCount)) {
    return { ok: false, reason: `pair registration: only ${relative.inFront} of ${essential.inlierCount} inliers in front of both cameras` };
  }
  const problem = scaleProblem(state, image, registered, relative.R, relative.t, observations);
  const thresholdNormalized = options.ransacThresholdPx / state.intrinsics[5 * state.groupOfImage[image]];
  const scale = consensusScale(problem, thresholdNormalized * thresholdNormalized);
  if (scale === null || scale.inlierCount < options.pairRegistrationMinPoints) {
    return { ok: false, reason: `pair registration: ${scale?.inlierCount ?? 0} of ${observations.length} triangulated points agree on the baseline (need ${options.pairRegistrationMinPoints})` };
  }
  const pose = composePose(state, registered, relative.R, relative.t, scale.scale);
  return { ok: true, image, R: pose.R, t: pose.t, inliers: scale.inliers, inlierCount: scale.inlierCount, observations };
}

/** Write a planned pose and mark the correspondences that disagreed with it as outliers. */
export function applyPairRegistration(state: SfmState, plan: Extract<PairRegistration, { ok: true }>): void {
  state.rotation.set(plan.R, 9 * plan.image);
  state.translation.set(plan.t, 3 * plan.image);
  plan.observations.forEach((j, m) => (state.obsRejected[j] = plan.inliers[m] ? 0 : 1));
}
