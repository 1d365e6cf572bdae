/**
 * @module The bundle adjustment of a finished model with ground control (control-adjust.ts):
 * the model's cameras, intrinsics groups and points as they are, plus one point per control
 * point observed by its marks and held by a prior at its surveyed position with its stated σ
 * (solvers/bundle-adjustment/point-prior.ts: horizontal σ on x and z, vertical σ on y), and the
 * photos' GPS fixes as camera priors beside them where they can hold the block
 * (georeference.ts), each weighted by its own accuracy. No pose is held: the control fixes the
 * gauge. The model must already be in the control's frame (the similarity of control.ts).
 */
import { angleAxisToMatrix, matrixToAngleAxis } from "../../geometry/rotation.js";
import { cameraCenter, type ImageFeatures, type ImageRef, type SparseModel } from "../../scene/index.js";
import { reprojectionErrors, run as runBundleAdjustment, type BAProblem, type PointPrior } from "../../solvers/bundle-adjustment/index.js";
import { keypointSigma } from "./bundle.js";
import type { ControlTarget, ViewMark } from "./control.js";
import { gpsPriorForCentres, type GpsPriorSummary } from "./georeference.js";
import type { Options } from "./options.js";

/** A control point in the adjustment: its target, the marks it keeps and its starting position (the control's frame). */
export interface AdjustedControl {
  target: ControlTarget;
  marks: ViewMark[];
  start: ArrayLike<number>;
}

export interface ControlBundleSummary {
  cameras: number;
  points: number;
  observations: number;
  controlPoints: number;
  controlMarks: number;
  iterations: number;
  initialRmsPx: number;
  finalRmsPx: number;
  termination: string;
  /** Ended above its starting cost and not kept (the model keeps the similarity's placement). */
  rejected: boolean;
  refined: string[];
  gps: GpsPriorSummary;
  wallMs: number;
}

interface Built {
  problem: BAProblem;
  /** Intrinsics group (the state's) of each of the problem's groups. */
  groupIds: number[];
}

function buildProblem(model: SparseModel, features: ImageFeatures[], groupOfImage: Uint32Array, controls: AdjustedControl[], markSigma: number): Built {
  const { views, points } = model;
  const localGroup = new Map<number, number>();
  const groupIds: number[] = [];
  const intrinsicsGroup = new Uint32Array(views.length);
  const poses = new Float64Array(6 * views.length);
  const intrinsicsOf: number[] = [];
  views.forEach((view, c) => {
    const g = groupOfImage[view.imageIndex];
    if (!localGroup.has(g)) {
      localGroup.set(g, groupIds.length);
      groupIds.push(g);
      const { focal, cx, cy, k1, k2 } = view.intrinsics;
      intrinsicsOf.push(focal, cx, cy, k1, k2);
    }
    intrinsicsGroup[c] = localGroup.get(g)!;
    poses.set(matrixToAngleAxis(view.camFromWorld.R), 6 * c);
    poses.set(view.camFromWorld.t, 6 * c + 3);
  });
  const pointCount = points.count + controls.length;
  const xyz = new Float64Array(3 * pointCount);
  xyz.set(points.xyz);
  const obsCamera: number[] = [];
  const obsPoint: number[] = [];
  const obsXY: number[] = [];
  const obsSigma: number[] = [];
  for (let p = 0; p < points.count; p++) {
    for (let o = points.obsOffsets[p]; o < points.obsOffsets[p + 1]; o++) {
      const v = points.obsViews[o];
      const f = features[views[v].imageIndex];
      const kp = points.obsKeypoints[o];
      obsCamera.push(v);
      obsPoint.push(p);
      obsXY.push(f.xy[2 * kp], f.xy[2 * kp + 1]);
      obsSigma.push(keypointSigma(f, kp));
    }
  }
  const prior: PointPrior = { points: new Uint32Array(controls.length), positions: new Float64Array(3 * controls.length), sigmas: new Float64Array(3 * controls.length) };
  controls.forEach(({ target, marks, start }, k) => {
    const p = points.count + k;
    xyz.set([start[0], start[1], start[2]], 3 * p);
    for (const m of marks) {
      obsCamera.push(m.view);
      obsPoint.push(p);
      obsXY.push(m.x, m.y);
      obsSigma.push(markSigma);
    }
    prior.points[k] = p;
    prior.positions.set(target.position, 3 * k);
    prior.sigmas.set([target.sigma.horizontal, target.sigma.vertical, target.sigma.horizontal], 3 * k);
  });
  const problem: BAProblem = {
    cameraCount: views.length,
    poses,
    intrinsicsGroup,
    intrinsics: Float64Array.from(intrinsicsOf),
    pointCount,
    points: xyz,
    observationCount: obsCamera.length,
    obsCamera: Uint32Array.from(obsCamera),
    obsPoint: Uint32Array.from(obsPoint),
    obsXY: Float64Array.from(obsXY),
    obsSigma: Float64Array.from(obsSigma),
    fixedPose: new Uint8Array(views.length),
    pointPrior: prior,
  };
  return { problem, groupIds };
}

/** Poses, intrinsics, points and each point's mean reprojection error from the solved problem into the model. */
function writeBack(model: SparseModel, built: Built): void {
  const { problem } = built;
  const { views, points } = model;
  views.forEach((view, c) => {
    const g = 5 * problem.intrinsicsGroup[c];
    const K = problem.intrinsics;
    view.camFromWorld = { R: angleAxisToMatrix(problem.poses.subarray(6 * c, 6 * c + 3)), t: problem.poses.slice(6 * c + 3, 6 * c + 6) };
    view.intrinsics = { ...view.intrinsics, focal: K[g], cx: K[g + 1], cy: K[g + 2], k1: K[g + 3], k2: K[g + 4] };
  });
  points.xyz.set(problem.points.subarray(0, 3 * points.count));
  const errors = reprojectionErrors(problem);
  // The model's points' observations come first, in the model's order.
  for (let p = 0; p < points.count; p++) {
    let sum = 0;
    for (let o = points.obsOffsets[p]; o < points.obsOffsets[p + 1]; o++) sum += errors[o];
    const n = points.obsOffsets[p + 1] - points.obsOffsets[p];
    points.error[p] = n > 0 ? sum / n : 0;
  }
}

/**
 * Adjusts `model` (in the control's frame) in place with `controls` and the photos' GPS fixes.
 * Intrinsics are refined as the stage's last global adjustment refined them: the focal when
 * `refineIntrinsics`, k1 and k2 when the model has them (distortion was observable and kept).
 */
export function adjustWithControlPoints(model: SparseModel, images: ImageRef[], features: ImageFeatures[], groupOfImage: Uint32Array, controls: AdjustedControl[], options: Options): ControlBundleSummary {
  const started = performance.now();
  const built = buildProblem(model, features, groupOfImage, controls, options.controlMarkSigmaPx);
  const { problem } = built;
  const cameraImages = model.views.map((v) => v.imageIndex);
  const centreOfImage = new Map(model.views.map((v) => [v.imageIndex, Array.from(cameraCenter(v.camFromWorld))]));
  const gps = gpsPriorForCentres(images, cameraImages, (img) => centreOfImage.get(img)!, options);
  if (gps.prior) problem.centrePrior = gps.prior;
  const focal = options.refineIntrinsics;
  const distortion = focal && options.refineDistortion && model.views.some((v) => v.intrinsics.k1 !== 0 || v.intrinsics.k2 !== 0);
  const report = runBundleAdjustment(problem, {
    loss: "cauchy",
    lossScalePx: options.baLossScalePx,
    refineFocal: focal,
    refineDistortion: distortion,
    refinePrincipalPoint: false,
    maxIterations: options.globalBaIterations,
    threads: model.views.length >= options.baParallelMinImages ? options.baThreads : 1,
    parallelMinObservations: options.baParallelMinObservations,
  });
  const rejected = !(report.finalCost <= report.initialCost);
  if (!rejected) writeBack(model, built);
  return {
    cameras: problem.cameraCount,
    points: problem.pointCount,
    observations: problem.observationCount,
    controlPoints: controls.length,
    controlMarks: controls.reduce((n, c) => n + c.marks.length, 0),
    iterations: report.iterations,
    initialRmsPx: report.initialRmsePx,
    finalRmsPx: report.finalRmsePx,
    termination: report.termination,
    rejected,
    refined: ["poses", ...(focal ? ["focal"] : []), ...(distortion ? ["k1", "k2"] : [])],
    gps: gps.summary,
    wallMs: performance.now() - started,
  };
}
