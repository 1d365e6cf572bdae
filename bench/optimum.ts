/**
 * @module Is a camera error the pipeline's or the photos'? A reconstruction can be no closer to
 * the truth than the optimum of its own observations: bundle adjustment of the model's
 * observations started from the true cameras (true intrinsics held, points first placed by the
 * model under its alignment to the truth) lands there. If our model sits close to that optimum
 * and the optimum itself is off, the error is in what the photos determine (keypoint noise along
 * a weakly constrained direction, such as rotation against translation), and only more or better
 * observations reduce it; if our model is far from the optimum, the pipeline stopped short of it
 * (a wrong basin, a frozen drift). The same split as a Cramér–Rao bound against an estimator's
 * error (Triggs et al. 2000, "Bundle adjustment — a modern synthesis", §9–10 on precision).
 */
import { run as runBundleAdjustment } from "../compute/solvers/bundle-adjustment/index.js";
import { angleAxisToMatrix, matrixToAngleAxis } from "../compute/geometry/rotation.js";
import { robustSimilarity } from "../compute/geometry/similarity.js";
import { cameraCenter, type ImageFeatures, type SparseModel } from "../compute/scene/index.js";
import { cameraAccuracy, type CameraAccuracy, type NamedPose } from "../compute/stages/sfm/accuracy.js";
import { keypointSigma } from "../compute/stages/sfm/bundle.js";

export interface TrueCamera extends NamedPose {
  focal: number;
  cx: number;
  cy: number;
}

export interface ObservationsOptimum {
  /** RMS reprojection error with the true cameras held and only the points adjusted. */
  truthRmsPx: number;
  /** RMS at the optimum reached from the true cameras (poses free, true intrinsics held). */
  optimumRmsPx: number;
  /** The optimum's cameras against the truth: the best any pipeline could do with these observations. */
  optimumVsTruth: CameraAccuracy;
  /** Our model's cameras against that optimum: what the pipeline left on the table. */
  modelVsOptimum: CameraAccuracy;
}

/** The model's points moved into the truth's frame by the similarity of the camera centres. */
function pointsInTruthFrame(model: SparseModel, truthOf: (name: string) => TrueCamera): Float64Array | null {
  const src = model.views.flatMap((v) => [...cameraCenter(v.camFromWorld)]);
  const dst = model.views.flatMap((v) => [...cameraCenter(truthOf(v.name).camFromWorld)]);
  const sim = robustSimilarity(Float64Array.from(src), Float64Array.from(dst), model.views.length);
  if (sim === null) return null;
  const { xyz, count } = model.points;
  const out = new Float64Array(3 * count);
  for (let p = 0; p < count; p++) {
    for (let r = 0; r < 3; r++) {
      out[3 * p + r] = sim.scale * (sim.R[3 * r] * xyz[3 * p] + sim.R[3 * r + 1] * xyz[3 * p + 1] + sim.R[3 * r + 2] * xyz[3 * p + 2]) + sim.t[r];
    }
  }
  return out;
}

/** Null when fewer than three registered views have a true camera. */
export function observationsOptimum(model: SparseModel, features: ImageFeatures[], truth: TrueCamera[], sceneRadius: number): ObservationsOptimum | null {
  const byName = new Map(truth.map((t) => [t.name, t]));
  if (model.views.filter((v) => byName.has(v.name)).length < 3 || model.views.some((v) => !byName.has(v.name))) return null;
  const truthOf = (name: string) => byName.get(name)!;
  const points = pointsInTruthFrame(model, truthOf);
  if (points === null) return null;
  const cameraCount = model.views.length;
  const poses = new Float64Array(6 * cameraCount);
  const intrinsics = new Float64Array(5 * cameraCount);
  model.views.forEach((v, c) => {
    const t = truthOf(v.name);
    poses.set(matrixToAngleAxis(t.camFromWorld.R), 6 * c);
    poses.set(t.camFromWorld.t, 6 * c + 3);
    intrinsics.set([t.focal, t.cx, t.cy, 0, 0], 5 * c);
  });
  const obsCamera: number[] = [];
  const obsPoint: number[] = [];
  const obsXY: number[] = [];
  const obsSigma: number[] = [];
  const P = model.points;
  for (let p = 0; p < P.count; p++) {
    for (let o = P.obsOffsets[p]; o < P.obsOffsets[p + 1]; o++) {
      const view = P.obsViews[o];
      const keypoint = P.obsKeypoints[o];
      const f = features[model.views[view].imageIndex];
      obsCamera.push(view);
      obsPoint.push(p);
      obsXY.push(f.xy[2 * keypoint], f.xy[2 * keypoint + 1]);
      obsSigma.push(keypointSigma(f, keypoint));
    }
  }
  const problem = {
    cameraCount, poses, intrinsics, points, pointCount: P.count,
    intrinsicsGroup: Uint32Array.from({ length: cameraCount }, (_, c) => c),
    observationCount: obsCamera.length, obsCamera: Uint32Array.from(obsCamera), obsPoint: Uint32Array.from(obsPoint),
    obsXY: Float64Array.from(obsXY), obsSigma: Float64Array.from(obsSigma),
  };
  const held = { refineFocal: false, refineDistortion: false, refinePrincipalPoint: false };
  const atTruth = runBundleAdjustment({ ...problem, fixedPose: new Uint8Array(cameraCount).fill(1) }, { ...held, maxIterations: 50 });
  const atOptimum = runBundleAdjustment(problem, { ...held, maxIterations: 100 });
  const optimum = model.views.map((v, c) => ({ name: v.name, camFromWorld: { R: angleAxisToMatrix(poses.subarray(6 * c, 6 * c + 3)), t: poses.slice(6 * c + 3, 6 * c + 6) } }));
  return {
    truthRmsPx: atTruth.finalRmsePx,
    optimumRmsPx: atOptimum.finalRmsePx,
    optimumVsTruth: cameraAccuracy(optimum, truth, sceneRadius),
    modelVsOptimum: cameraAccuracy(model.views.map((v) => ({ name: v.name, camFromWorld: v.camFromWorld })), optimum, sceneRadius),
  };
}
