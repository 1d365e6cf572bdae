/**
 * @module What the quality report needs of the features, measured while the pipeline still
 * holds them (they are garbage once the sparse stages return, compute/pipeline/index.ts): each
 * observation's reprojection error and each camera centre's covariance from the adjustment
 * (solvers/bundle-adjustment/covariance.ts), in the model frame. Small: 9 numbers per view and
 * one per observation.
 *
 * The adjustment is rebuilt from the model as sfm's global adjustment poses it
 * (stages/sfm/bundle.ts): one intrinsics group per distinct solved intrinsics, each
 * observation weighted by its keypoint's detection scale over the image's finest (sfm's
 * keypointSigma, Triggs et al. 2000 §3.2). The model's frame is a similarity of the solve's
 * (sfm/frame.ts), which changes no projection, so the covariance is the solve's, carried along.
 */
import { matrixToAngleAxis } from "../../geometry/rotation.js";
import type { ImageFeatures, Intrinsics, SparseModel } from "../../scene/index.js";
import { centreCovariances, type CentreCovariances, type CovarianceOptions } from "../../solvers/bundle-adjustment/covariance.js";
import type { BAProblem, CentrePrior } from "../../solvers/bundle-adjustment/index.js";

export interface ModelMeasures {
  /** Reprojection error of each observation (pixels), in the points' CSR order (SparsePoints.obsOffsets). */
  observationErrorsPx: Float32Array;
  /** Centre covariances per view (9 each, model frame) and how they were formed; null when not asked for. */
  covariance: Omit<CentreCovariances, "covariances"> & { perView: Float64Array } | null;
}

export interface MeasureOptions {
  /**
   * The options of sfm's global adjustment (which intrinsics it refined, its loss); what is not
   * given is inferred from the model (refinedOf) over the adjuster's defaults (Cauchy, 1 px).
   */
  covariance: Partial<CovarianceOptions>;
  /** Position priors the global adjustment had (in the model frame), when they held its gauge. */
  centrePrior?: CentrePrior;
  /** Skip the covariance (e.g. a job without a report). */
  skipCovariance: boolean;
}

export const MEASURE_DEFAULTS: MeasureOptions = { covariance: {}, skipCovariance: false };

function sameIntrinsics(a: Intrinsics, b: Intrinsics): boolean {
  return a.width === b.width && a.height === b.height && a.focal === b.focal && a.cx === b.cx && a.cy === b.cy && a.k1 === b.k1 && a.k2 === b.k2;
}

/** Views that share one solved set of intrinsics: index of the group of each view, and each group's representative. */
export function intrinsicsGroups(model: SparseModel): { groupOfView: Uint32Array; groups: Intrinsics[] } {
  const groups: Intrinsics[] = [];
  const groupOfView = new Uint32Array(model.views.length);
  model.views.forEach((v, i) => {
    let g = groups.findIndex((k) => sameIntrinsics(k, v.intrinsics));
    if (g < 0) g = groups.push(v.intrinsics) - 1;
    groupOfView[i] = g;
  });
  return { groupOfView, groups };
}

/** sfm/bundle.ts keypointSigma: the keypoint's detection scale over the image's finest, at least 1. */
function finestScale(features: ImageFeatures): number {
  let finest = Infinity;
  for (let k = 0; k < features.count; k++) if (features.scale[k] > 0) finest = Math.min(finest, features.scale[k]);
  return finest;
}

/** The global adjustment of the model, posed again: no pose held (the covariance fixes the gauge). */
export function problemOfModel(model: SparseModel, featuresOf: Map<number, ImageFeatures>): BAProblem {
  const { views, points } = model;
  const { groupOfView, groups } = intrinsicsGroups(model);
  const poses = new Float64Array(6 * views.length);
  views.forEach((v, c) => {
    poses.set(matrixToAngleAxis(v.camFromWorld.R), 6 * c);
    poses.set(v.camFromWorld.t, 6 * c + 3);
  });
  const intrinsics = new Float64Array(5 * groups.length);
  groups.forEach((k, g) => intrinsics.set([k.focal, k.cx, k.cy, k.k1, k.k2], 5 * g));
  const observations = points.obsOffsets[points.count];
  const obsCamera = new Uint32Array(observations);
  const obsPoint = new Uint32Array(observations);
  const obsXY = new Float64Array(2 * observations);
  const obsSigma = new Float64Array(observations);
  const finest = new Map<number, number>();
  for (let p = 0; p < points.count; p++) {
    for (let o = points.obsOffsets[p]; o < points.obsOffsets[p + 1]; o++) {
      const view = points.obsViews[o];
      const imageIndex = views[view].imageIndex;
      const features = featuresOf.get(imageIndex);
      if (!features) throw new Error(`quality-report: no features for image ${imageIndex}`);
      const kp = points.obsKeypoints[o];
      obsCamera[o] = view;
      obsPoint[o] = p;
      obsXY[2 * o] = features.xy[2 * kp];
      obsXY[2 * o + 1] = features.xy[2 * kp + 1];
      if (!finest.has(imageIndex)) finest.set(imageIndex, finestScale(features));
      const ratio = features.scale[kp] / finest.get(imageIndex)!;
      obsSigma[o] = ratio >= 1 && Number.isFinite(ratio) ? ratio : 1;
    }
  }
  return {
    cameraCount: views.length, poses, intrinsicsGroup: groupOfView, intrinsics,
    pointCount: points.count, points: points.xyz.slice(),
    observationCount: observations, obsCamera, obsPoint, obsXY, obsSigma,
  };
}

/** Reprojection error of each observation with the model's own camera model (compute/scene/camera.ts). */
function observationErrors(model: SparseModel, problem: BAProblem): Float32Array {
  const errors = new Float32Array(problem.observationCount);
  const { xyz } = model.points;
  for (let o = 0; o < problem.observationCount; o++) {
    const view = model.views[problem.obsCamera[o]];
    const { R, t } = view.camFromWorld;
    const p = 3 * problem.obsPoint[o];
    const x = R[0] * xyz[p] + R[1] * xyz[p + 1] + R[2] * xyz[p + 2] + t[0];
    const y = R[3] * xyz[p] + R[4] * xyz[p + 1] + R[5] * xyz[p + 2] + t[1];
    const z = R[6] * xyz[p] + R[7] * xyz[p + 1] + R[8] * xyz[p + 2] + t[2];
    const { focal, cx, cy, k1, k2 } = view.intrinsics;
    const u = x / z;
    const v = y / z;
    const r2 = u * u + v * v;
    const d = 1 + r2 * (k1 + r2 * k2);
    errors[o] = Math.hypot(focal * d * u + cx - problem.obsXY[2 * o], focal * d * v + cy - problem.obsXY[2 * o + 1]);
  }
  return errors;
}

/**
 * Which intrinsics sfm's last global adjustment refined, as the model shows it
 * (stages/sfm/bundle.ts globalBundleAdjustment): the focal always (sfm's refineIntrinsics
 * default), k1, k2 where some camera has distortion (sfm zeroes it where it cannot observe
 * it), the principal point where some camera's is off the image centre (sfm refines it only
 * in its last adjustment and keeps it only when it moved).
 */
export function refinedOf(model: SparseModel): Pick<CovarianceOptions, "refineFocal" | "refineDistortion" | "refinePrincipalPoint"> {
  const { groups } = intrinsicsGroups(model);
  return {
    refineFocal: true,
    refineDistortion: groups.some((k) => k.k1 !== 0 || k.k2 !== 0),
    refinePrincipalPoint: groups.some((k) => k.cx !== k.width / 2 || k.cy !== k.height / 2),
  };
}

/** Measures a solved model with the features its observations index (any order; matched by imageIndex). */
export function measureModel(model: SparseModel, features: ImageFeatures[], options: Partial<MeasureOptions> = {}): ModelMeasures {
  const settings = { ...MEASURE_DEFAULTS, ...options };
  const featuresOf = new Map(features.map((f) => [f.imageIndex, f]));
  const problem = problemOfModel(model, featuresOf);
  if (settings.centrePrior) problem.centrePrior = settings.centrePrior;
  const observationErrorsPx = observationErrors(model, problem);
  if (settings.skipCovariance || model.views.length < 2) return { observationErrorsPx, covariance: null };
  const { covariances, ...rest } = centreCovariances(problem, { ...refinedOf(model), ...settings.covariance });
  return { observationErrorsPx, covariance: { ...rest, perView: covariances } };
}
