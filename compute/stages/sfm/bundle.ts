/**
 * @module Bridge between the reconstruction state and bundle adjustment.
 *
 * Bundle adjustment is a solver library below the stages (compute/solvers/bundle-adjustment/;
 * docs/DESIGN.md: stages import solvers, never the reverse), and sfm is its only caller, through
 * this file (options.ts and georeference.ts use its types and priors). Local BA (Schönberger &
 * Frahm 2016, §4.5) optimises the newest cameras and the points they see, with every other
 * camera observing those points held fixed; global BA optimises everything with the first camera
 * fixed (the scale gauge is left to the solver's damping, as COLMAP does not need more than one
 * fixed pose in practice), or, when the photos' GPS fixes can hold the block (georeference.ts),
 * with no camera fixed and the fixes as priors.
 */
import { angleAxisToMatrix, matrixToAngleAxis } from "../../geometry/rotation.js";
import { closeTeam, run as runBundleAdjustment, type BAProblem, type CentrePrior } from "../../solvers/bundle-adjustment/index.js";
import { gpsPriorFor, type GpsPriorSummary } from "./georeference.js";
import type { ImageFeatures } from "../../scene/index.js";
import type { Options } from "./options.js";
import type { SfmState } from "./state.js";
import { clearNormalizedCache } from "./triangulate.js";

export interface BundleSummary {
  kind: "local" | "global";
  cameras: number;
  points: number;
  observations: number;
  initialRmsPx: number;
  finalRmsPx: number;
  iterations: number;
  wallMs: number;
  /** The solution ended above its starting robust cost and was not kept. */
  rejected: boolean;
  /** Robust cost at the start and the end, and which intrinsics were free. */
  initialCost: number;
  finalCost: number;
  refined: string[];
  /** Threads that ran it (solvers/bundle-adjustment/team.ts). */
  threads: number;
  /** Global adjustments of photos with GPS: the priors they had, or why none. */
  gps?: GpsPriorSummary;
}

/**
 * A bundle adjustment that ends above its starting robust cost is not kept (the solver's
 * steps only lower it, so this guards against a numerical failure, never against a normal
 * run). The RMS is reported but is not the test: under the Cauchy loss a better solution can
 * have a higher RMS (outliers pushed into the loss's tail while inliers fit better), and
 * rejecting on the RMS made templeSparseRing's cameras worse (median rotation error 0.358° →
 * 0.893°, `npm run bench -- sfm temple --no-colmap`). Runaway cameras are caught by the
 * model check in plausible.ts instead.
 */
interface Selection {
  /** Image index of each BA camera. */
  cameraImages: number[];
  /** Track index of each BA point. */
  pointTracks: number[];
  fixedPose: Uint8Array;
}

/** Cameras to optimise in a local BA: the new image and its most co-visible registered neighbours. */
export function localCameraSet(state: SfmState, newImage: number, size: number): number[] {
  const shared = new Map<number, number>();
  const { trackOffsets, trackImages } = state.tracks;
  const obs = state.keypointObs[newImage];
  for (let kp = 0; kp < obs.length; kp++) {
    const j = obs[kp];
    if (j < 0 || state.obsRejected[j] === 1) continue;
    const k = state.obsTrack[j];
    if (state.hasPoint[k] === 0) continue;
    for (let m = trackOffsets[k]; m < trackOffsets[k + 1]; m++) {
      const other = trackImages[m];
      if (other !== newImage && state.registered[other] === 1 && state.obsRejected[m] === 0) {
        shared.set(other, (shared.get(other) ?? 0) + 1);
      }
    }
  }
  const neighbours = [...shared.entries()].sort((a, b) => b[1] - a[1]).map((e) => e[0]);
  return [newImage, ...neighbours.slice(0, Math.max(0, size - 1))];
}

function selectLocal(state: SfmState, variable: number[]): Selection {
  const isVariable = new Uint8Array(state.images.length);
  for (const i of variable) isVariable[i] = 1;
  const { trackOffsets, trackImages } = state.tracks;
  const pointTracks: number[] = [];
  const cameraSet = new Set<number>(variable);
  for (let k = 0; k < state.tracks.count; k++) {
    if (state.hasPoint[k] === 0) continue;
    let seen = false;
    for (let j = trackOffsets[k]; j < trackOffsets[k + 1] && !seen; j++) {
      seen = isVariable[trackImages[j]] === 1 && state.obsRejected[j] === 0;
    }
    if (!seen) continue;
    pointTracks.push(k);
    for (let j = trackOffsets[k]; j < trackOffsets[k + 1]; j++) {
      if (state.registered[trackImages[j]] === 1 && state.obsRejected[j] === 0) cameraSet.add(trackImages[j]);
    }
  }
  const cameraImages = [...cameraSet];
  const fixedPose = new Uint8Array(cameraImages.length);
  cameraImages.forEach((img, c) => (fixedPose[c] = isVariable[img] === 1 ? 0 : 1));
  // Keep the gauge when every camera is variable (a small model): fix the oldest one.
  if (fixedPose.every((f) => f === 0)) {
    const oldest = cameraImages.indexOf(state.order[0]);
    fixedPose[oldest >= 0 ? oldest : cameraImages.length - 1] = 1;
  }
  return { cameraImages, pointTracks, fixedPose };
}

function selectGlobal(state: SfmState): Selection {
  const cameraImages = [...state.order];
  const pointTracks: number[] = [];
  for (let k = 0; k < state.tracks.count; k++) if (state.hasPoint[k] === 1) pointTracks.push(k);
  const fixedPose = new Uint8Array(cameraImages.length);
  fixedPose[0] = 1;
  return { cameraImages, pointTracks, fixedPose };
}

/** Smallest keypoint scale of each image's features (its finest detection scale), computed once. */
const finestScales = new WeakMap<ImageFeatures, number>();

/**
 * Standard deviation of a keypoint's position relative to the image's finest keypoints: its
 * detection scale over the finest one. A blob found at a coarser scale is located less
 * precisely (on templeSparseRing the reprojection RMS rose from 0.34 px at the finest scale
 * to 0.68 px above 5.7 px), so every BA weighs each observation by 1/σ² (Triggs et al. 2000
 * §3.2; ORB-SLAM weighs by pyramid level likewise). Measured with `npm run bench -- sfm
 * --no-colmap` (2026-11-22), median rotation error unweighted → weighted: templeSparseRing
 * 0.475 → 0.358° (centre 0.74 → 0.33 %), facade 0.039 → 0.026°, orbit-video 0.014 → 0.010°,
 * Herz-Jesus 0.043 → 0.041°, object-ring 0.008° both, smoke 0.067 → 0.071° (max 0.116 →
 * 0.097°), fountain 0.036 → 0.060° (its refined principal point came out 1 px further from
 * the published one); facade's sfm 25 → 19 s. σ = √ratio helped less (temple 0.478°,
 * facade 0.033°, fountain 0.053°). Features whose keypoints share one scale weigh alike.
 */
export function keypointSigma(features: ImageFeatures, keypoint: number): number {
  return sigmaAt(features, keypoint, finestScale(features));
}

/** The image's finest keypoint scale (remembered per features object). */
function finestScale(features: ImageFeatures): number {
  let finest = finestScales.get(features);
  if (finest === undefined) {
    finest = Infinity;
    for (let k = 0; k < features.count; k++) if (features.scale[k] > 0) finest = Math.min(finest, features.scale[k]);
    finestScales.set(features, finest);
  }
  return finest;
}

function sigmaAt(features: ImageFeatures, keypoint: number, finest: number): number {
  const ratio = features.scale[keypoint] / finest;
  return ratio >= 1 && Number.isFinite(ratio) ? ratio : 1;
}

function buildProblem(state: SfmState, sel: Selection, prior: CentrePrior | null): { problem: BAProblem; groupIds: number[] } {
  // Per image: its camera in the problem (−1: none) and its finest keypoint scale, looked up
  // once per image rather than per observation (an SfM runs ~70 adjustments of up to ~10⁵
  // observations on a 20-photo capture; through a Map and a WeakMap per observation this was
  // 1.45 s of synthetic/facade's main thread).
  const cameraOfImage = new Int32Array(state.features.length).fill(-1);
  const finestOfImage = new Float64Array(state.features.length);
  sel.cameraImages.forEach((img, c) => {
    cameraOfImage[img] = c;
    finestOfImage[img] = finestScale(state.features[img]);
  });
  const localGroup = new Map<number, number>();
  const groupIds: number[] = [];
  const intrinsicsGroup = new Uint32Array(sel.cameraImages.length);
  const poses = new Float64Array(6 * sel.cameraImages.length);
  sel.cameraImages.forEach((img, c) => {
    const g = state.groupOfImage[img];
    if (!localGroup.has(g)) {
      localGroup.set(g, groupIds.length);
      groupIds.push(g);
    }
    intrinsicsGroup[c] = localGroup.get(g) as number;
    const aa = matrixToAngleAxis(state.rotation.subarray(9 * img, 9 * img + 9));
    poses.set([aa[0], aa[1], aa[2]], 6 * c);
    poses.set(state.translation.subarray(3 * img, 3 * img + 3), 6 * c + 3);
  });
  const intrinsics = new Float64Array(5 * groupIds.length);
  groupIds.forEach((g, l) => intrinsics.set(state.intrinsics.subarray(5 * g, 5 * g + 5), 5 * l));
  const points = new Float64Array(3 * sel.pointTracks.length);
  const { trackOffsets, trackImages, trackKeypoints } = state.tracks;
  const { obsRejected, pointXyz } = state;
  const tracks = sel.pointTracks;
  let observationCount = 0;
  for (let p = 0; p < tracks.length; p++) {
    const k = tracks[p];
    for (let j = trackOffsets[k]; j < trackOffsets[k + 1]; j++) if (cameraOfImage[trackImages[j]] >= 0 && obsRejected[j] !== 1) observationCount++;
  }
  const obsCamera = new Uint32Array(observationCount);
  const obsPoint = new Uint32Array(observationCount);
  const obsXY = new Float64Array(2 * observationCount);
  const obsSigma = new Float64Array(observationCount);
  let o = 0;
  for (let p = 0; p < tracks.length; p++) {
    const k = tracks[p];
    points[3 * p] = pointXyz[3 * k];
    points[3 * p + 1] = pointXyz[3 * k + 1];
    points[3 * p + 2] = pointXyz[3 * k + 2];
    for (let j = trackOffsets[k]; j < trackOffsets[k + 1]; j++) {
      const image = trackImages[j];
      const c = cameraOfImage[image];
      if (c < 0 || obsRejected[j] === 1) continue;
      const features = state.features[image];
      const kp = trackKeypoints[j];
      obsCamera[o] = c;
      obsPoint[o] = p;
      obsXY[2 * o] = features.xy[2 * kp];
      obsXY[2 * o + 1] = features.xy[2 * kp + 1];
      obsSigma[o] = sigmaAt(features, kp, finestOfImage[image]);
      o++;
    }
  }
  const problem: BAProblem = {
    cameraCount: sel.cameraImages.length,
    poses,
    intrinsicsGroup,
    intrinsics,
    pointCount: sel.pointTracks.length,
    points,
    observationCount,
    obsCamera,
    obsPoint,
    obsXY,
    obsSigma,
    fixedPose: sel.fixedPose,
    ...(prior ? { centrePrior: prior } : {}),
  };
  return { problem, groupIds };
}

function writeBack(state: SfmState, sel: Selection, problem: BAProblem, groupIds: number[]): void {
  sel.cameraImages.forEach((img, c) => {
    if (sel.fixedPose[c] === 1) return;
    const R = angleAxisToMatrix(problem.poses.subarray(6 * c, 6 * c + 3));
    state.rotation.set(R, 9 * img);
    state.translation.set(problem.poses.subarray(6 * c + 3, 6 * c + 6), 3 * img);
  });
  sel.pointTracks.forEach((k, p) => state.pointXyz.set(problem.points.subarray(3 * p, 3 * p + 3), 3 * k));
  groupIds.forEach((g, l) => state.intrinsics.set(problem.intrinsics.subarray(5 * l, 5 * l + 5), 5 * g));
}

/** Frees the bundle adjustments' worker threads and shared memory once SfM is done. */
export function closeBundleThreads(): void {
  closeTeam();
}

interface Refine {
  focal: boolean;
  distortion: boolean;
  principalPoint: boolean;
}

function solve(state: SfmState, sel: Selection, kind: "local" | "global", options: Options, refine: Refine, prior: CentrePrior | null = null): BundleSummary {
  const started = performance.now();
  const { problem, groupIds } = buildProblem(state, sel, prior);
  const report = runBundleAdjustment(problem, {
    loss: "cauchy",
    lossScalePx: options.baLossScalePx,
    refineFocal: refine.focal,
    refineDistortion: refine.distortion,
    refinePrincipalPoint: refine.principalPoint,
    maxIterations: kind === "local" ? options.localBaIterations : options.globalBaIterations,
    threads: state.order.length >= options.baParallelMinImages ? options.baThreads : 1,
    parallelMinObservations: options.baParallelMinObservations,
  });
  const rejected = !(report.finalCost <= report.initialCost);
  if (!rejected) writeBack(state, sel, problem, groupIds);
  const refined = ["poses", ...(refine.focal ? ["focal"] : []), ...(refine.distortion ? ["k1", "k2"] : []), ...(refine.principalPoint ? ["principal point"] : [])];
  return {
    kind,
    cameras: problem.cameraCount,
    points: problem.pointCount,
    observations: problem.observationCount,
    initialRmsPx: report.initialRmsePx,
    finalRmsPx: report.finalRmsePx,
    iterations: report.iterations,
    wallMs: performance.now() - started,
    rejected,
    threads: report.counts.threads,
    initialCost: report.initialCost,
    finalCost: report.finalCost,
    refined,
  };
}

/**
 * Local BA; with `refineFocal` the focal of every group in the problem is refined too (as
 * COLMAP's local BA does), so a poor focal prior is corrected before it biases the next
 * registrations. Distortion is left to global BA, where more views constrain it.
 */
export function localBundleAdjustment(state: SfmState, newImage: number, options: Options, refineFocal: boolean): BundleSummary {
  const variable = localCameraSet(state, newImage, options.localBaCameras);
  const refine = refineFocal && options.refineIntrinsics;
  return solve(state, selectLocal(state, variable), "local", options, { focal: refine, distortion: false, principalPoint: false });
}

/** Registered views a group needs before its distortion (and principal point) is refined. */
export const MIN_VIEWS_FOR_DISTORTION = 3;

/**
 * True when every intrinsics group of the registered images has at least
 * MIN_VIEWS_FOR_DISTORTION registered views. Intrinsics seen by one or two views trade off
 * against focal and depth: on a narrow lens (a 640-px image at f ≈ 1500 px spans ±12°) a
 * single EXIF-less image's own group drove k1, k2 to −3 and +20 on the temple ring while the
 * reprojection error stayed low. COLMAP rejects such "bogus" cameras after the fact
 * (Schönberger & Frahm 2016, §4.5); not refining what is unobservable avoids them.
 */
export function groupsWellViewed(state: SfmState): boolean {
  const views = new Map<number, number>();
  for (const i of state.order) views.set(state.groupOfImage[i], (views.get(state.groupOfImage[i]) ?? 0) + 1);
  return [...views.values()].every((n) => n >= MIN_VIEWS_FOR_DISTORTION);
}

/**
 * Smallest half-diagonal field of view, as tan (half diagonal / focal), at which radial
 * distortion is refined. k1 moves a corner by f·k1·r³ (r that tangent), so on a narrow lens
 * it takes a large k1 to move anything, and the pair (k1, k2) trades off against the focal
 * and principal point instead: on templeSparseRing (r = 0.26) one shared group went to
 * k1 −0.38, k2 −5.7 with the principal point 38 px from the dataset's while the RMS moved
 * 0.5 %; without distortion the principal point came within 10 px. Every other benchmark set
 * has r ≥ 0.56.
 */
export const MIN_DISTORTION_FIELD = 0.35;

/** Whether image i's group is wide enough (MIN_DISTORTION_FIELD) at its current focal for k1, k2. */
function wideEnoughForDistortion(state: SfmState, i: number): boolean {
  const { width, height } = state.images[i];
  return Math.hypot(width, height) / 2 >= MIN_DISTORTION_FIELD * state.intrinsics[5 * state.groupOfImage[i]];
}

/** Every group well viewed (groupsWellViewed) and wide enough (MIN_DISTORTION_FIELD) for k1, k2. */
export function distortionObservable(state: SfmState): boolean {
  if (!groupsWellViewed(state)) return false;
  return state.order.every((i) => wideEnoughForDistortion(state, i));
}

/**
 * Zero k1, k2 of every group too narrow at its current focal to observe them. Without EXIF the
 * focal starts at a guess (a 640-px photo at 768 px looks wide enough); distortion refined then
 * was carried unchanged once the focal grew to its true ~1,500 px, where no later adjustment
 * refines it: on the temple ring without its 8th photos one start's 3-photo model kept k1 −0.83,
 * k2 −1.88 (6 % of the radius at the corner), 1.97° median rotation error against 0.11° with
 * them cleared (`bench-out/dbg-subset.ts`). Returns how many groups were cleared.
 */
export function clearUnobservableDistortion(state: SfmState): number {
  const K = state.intrinsics;
  const cleared = new Set<number>();
  for (const i of state.order) {
    const g = state.groupOfImage[i];
    if (cleared.has(g) || wideEnoughForDistortion(state, i)) continue;
    if (K[5 * g + 3] === 0 && K[5 * g + 4] === 0) continue;
    K[5 * g + 3] = K[5 * g + 4] = 0;
    cleared.add(g);
  }
  return cleared.size;
}

export function globalBundleAdjustment(state: SfmState, options: Options, refineIntrinsics: boolean, refinePrincipalPoint = false): BundleSummary {
  const refine = refineIntrinsics && options.refineIntrinsics;
  const lens = refine && options.refineDistortion && distortionObservable(state);
  const principalPoint = refine && refinePrincipalPoint && groupsWellViewed(state);
  if (refine && clearUnobservableDistortion(state) > 0) clearNormalizedCache(state);
  const sel = selectGlobal(state);
  const gps = gpsPriorFor(state, sel.cameraImages, options);
  // The fixes fix the gauge: a held camera would impose its own fix's error on the block.
  if (gps.prior) sel.fixedPose.fill(0);
  return { ...solve(state, sel, "global", options, { focal: refine, distortion: lens, principalPoint }, gps.prior), gps: gps.summary };
}
