/**
 * @module Camera accuracy against ground truth, as the SfM tests and benchmark measure it. A
 * reconstruction has no absolute frame or scale, so the estimate is aligned to the truth first,
 * each error in the gauge that suits it:
 *
 * - **Centre errors** (% of the scene radius) after a similarity transform (rotation,
 *   translation, scale) of the estimated camera centres onto the true ones (geometry's robust
 *   similarity: LMedS over 3-point samples, then Umeyama 1991 on the inliers, so one lost camera
 *   does not skew the rest).
 * - **Rotation errors** (degrees) after the rotation that best aligns the cameras'
 *   orientations (LMedS over the per-camera candidates R_gtᵀ·R_est, then their chordal mean
 *   over the inliers; Hartley et al. 2013, "Rotation averaging", §5–6), as rotation-averaging
 *   evaluations do. Why not the centres' rotation: when the centres span little (four photos
 *   along a facade, a short arc of an orbit, cameras on a small circle inside a courtyard), that
 *   rotation is set by centre noise of a fraction of a percent, and it tilted every camera of
 *   good models alike — Herz-Jesus-P8's first half 0.21° on each camera where no two cameras'
 *   relative rotation was off by more than 0.05°, a temple subset 78.9° with relative rotations
 *   within 0.7° (`npm run bench -- subsets`; docs/decisions.md, "Rotation errors are read after
 *   aligning the orientations").
 *
 * Both over all matched cameras, outliers of the fit included. Cameras are matched by name.
 * When the true centres are nearly collinear or coincide (a camera panning in place, one pass
 * along a facade), centres alone leave the rotation about their line free: the similarity's
 * rotation then comes from the orientations too, and its scale and translation from the
 * centres under that rotation.
 */
import { robustSimilarity, type Similarity } from "../../geometry/similarity.js";
import { orthonormalize, rotationAngleDeg } from "../../geometry/rotation.js";
import { svd } from "../../math/linalg.js";
import type { RigidTransform } from "../../scene/index.js";
import { median } from "../../math/median.js";

export interface NamedPose {
  name: string;
  camFromWorld: RigidTransform;
}

export interface CameraAccuracy {
  matched: number;
  medianRotationErrorDeg: number;
  maxRotationErrorDeg: number;
  medianCenterErrorPercent: number;
  maxCenterErrorPercent: number;
  perCamera: Array<{ name: string; rotationErrorDeg: number; centerErrorPercent: number }>;
}

function center(pose: RigidTransform): number[] {
  const { R, t } = pose;
  return [0, 1, 2].map((c) => -(R[c] * t[0] + R[3 + c] * t[1] + R[6 + c] * t[2]));
}

function applySimilarity(sim: Similarity, x: number[]): number[] {
  return [0, 1, 2].map((r) => sim.scale * (sim.R[3 * r] * x[0] + sim.R[3 * r + 1] * x[1] + sim.R[3 * r + 2] * x[2]) + sim.t[r]);
}

/** Below this ratio of the centres' second to first principal spread, they are taken as a line. */
const COLLINEAR_SPREAD_RATIO = 0.1;

/** Ratio of the second to the first singular value of the centred point set (0 for a line). */
function spreadRatio(points: number[][]): number {
  const n = points.length;
  const mean = [0, 1, 2].map((a) => points.reduce((sum, p) => sum + p[a], 0) / n);
  const centred = points.flatMap((p) => [p[0] - mean[0], p[1] - mean[1], p[2] - mean[2]]);
  const { S } = svd(centred, n, 3);
  return S[0] > 0 ? S[1] / S[0] : 0;
}

type PosePair = { est: RigidTransform; gt: RigidTransform };

/** Angle (degrees) between est's rotation carried by the alignment Rₐ (R_est·Rₐᵀ) and the truth's. */
function alignedRotationErrorDeg(pair: PosePair, Ra: ArrayLike<number>): number {
  const Rest = pair.est.R;
  const R = new Float64Array(9);
  // x_cam = R_est·X_est + t, X_est = Rₐᵀ(X_gt − tₐ)/s: the aligned rotation is R_est·Rₐᵀ.
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) R[3 * r + c] = Rest[3 * r] * Ra[3 * c] + Rest[3 * r + 1] * Ra[3 * c + 1] + Rest[3 * r + 2] * Ra[3 * c + 2];
  return rotationAngleDeg(R, pair.gt.R);
}

/** The chordal mean of R_gtᵀ·R_est over the given cameras (Rₐ = R_gtᵀ·R_est for a perfect estimate). */
function chordalMeanAlignment(pairs: PosePair[]): Float64Array {
  const sum = new Float64Array(9);
  for (const { est, gt } of pairs) {
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) for (let k = 0; k < 3; k++) sum[3 * r + c] += gt.R[3 * k + r] * est.R[3 * k + c];
  }
  return orthonormalize(sum);
}

/** Inliers of the orientation alignment: within this multiple of the best candidate's median error (and at least MIN_INLIER_ERROR_DEG). */
const INLIER_MEDIAN_MULTIPLE = 3;
const MIN_INLIER_ERROR_DEG = 0.5;

/** The rotation aligning the orientations: LMedS over per-camera candidates, then the chordal mean of the inliers. */
function orientationAlignment(pairs: PosePair[]): Float64Array {
  let best: { Ra: Float64Array; median: number } | null = null;
  for (const candidate of pairs) {
    const Ra = chordalMeanAlignment([candidate]);
    const m = median(pairs.map((p) => alignedRotationErrorDeg(p, Ra)));
    if (best === null || m < best.median) best = { Ra, median: m };
  }
  if (best === null) return new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]);
  const limit = Math.max(MIN_INLIER_ERROR_DEG, INLIER_MEDIAN_MULTIPLE * best.median);
  const inliers = pairs.filter((p) => alignedRotationErrorDeg(p, best.Ra) <= limit);
  return chordalMeanAlignment(inliers.length > 0 ? inliers : pairs);
}

/** Rotation from the orientations, then scale and translation from the centres under it. */
function poseSimilarity(pairs: PosePair[], src: number[][], dst: number[][]): Similarity {
  const R = orientationAlignment(pairs);
  const n = src.length;
  const muS = [0, 1, 2].map((a) => src.reduce((acc, p) => acc + p[a], 0) / n);
  const muD = [0, 1, 2].map((a) => dst.reduce((acc, p) => acc + p[a], 0) / n);
  let dot = 0;
  let norm = 0;
  src.forEach((p, i) => {
    const rotated = [0, 1, 2].map((r) => R[3 * r] * (p[0] - muS[0]) + R[3 * r + 1] * (p[1] - muS[1]) + R[3 * r + 2] * (p[2] - muS[2]));
    for (let a = 0; a < 3; a++) {
      dot += rotated[a] * (dst[i][a] - muD[a]);
      norm += rotated[a] * rotated[a];
    }
  });
  const scale = norm > 0 ? dot / norm : 1;
  const t = new Float64Array([0, 1, 2].map((r) => muD[r] - scale * (R[3 * r] * muS[0] + R[3 * r + 1] * muS[1] + R[3 * r + 2] * muS[2])));
  return { R, t, s: scale, scale };
}

export function cameraAccuracy(estimated: NamedPose[], truth: NamedPose[], sceneRadius: number): CameraAccuracy {
  const truthByName = new Map(truth.map((p) => [p.name, p.camFromWorld]));
  const pairs = estimated.flatMap((e) => {
    const gt = truthByName.get(e.name);
    return gt ? [{ name: e.name, est: e.camFromWorld, gt }] : [];
  });
  const src = pairs.map((p) => center(p.est));
  const dst = pairs.map((p) => center(p.gt));
  const collinear = pairs.length >= 2 && spreadRatio(dst) < COLLINEAR_SPREAD_RATIO;
  const sim = collinear ? poseSimilarity(pairs, src, dst) : robustSimilarity(new Float64Array(src.flat()), new Float64Array(dst.flat()), pairs.length);
  if (sim === null) {
    return { matched: pairs.length, medianRotationErrorDeg: NaN, maxRotationErrorDeg: NaN, medianCenterErrorPercent: NaN, maxCenterErrorPercent: NaN, perCamera: [] };
  }
  const aligned = sim;
  const rotationAlignment = orientationAlignment(pairs);
  const perCamera = pairs.map((p, i) => {
    const C = applySimilarity(aligned, src[i]);
    return {
      name: p.name,
      rotationErrorDeg: alignedRotationErrorDeg(p, rotationAlignment),
      centerErrorPercent: (100 * Math.hypot(C[0] - dst[i][0], C[1] - dst[i][1], C[2] - dst[i][2])) / sceneRadius,
    };
  });
  const rot = perCamera.map((c) => c.rotationErrorDeg);
  const ctr = perCamera.map((c) => c.centerErrorPercent);
  return {
    matched: pairs.length,
    medianRotationErrorDeg: median(rot),
    maxRotationErrorDeg: Math.max(...rot),
    medianCenterErrorPercent: median(ctr),
    maxCenterErrorPercent: Math.max(...ctr),
    perCamera,
  };
}
