/**
 * @module A synthetic survey for the quality report: four nadir cameras in a 2 × 2 block 10 m
 * above gently rolling ground, 100 × 100 px photos of focal 100 px (GSD 0.1 m/px, footprints
 * 10 m square), each photo's footprint reaching from its own side of the block across the
 * middle. With the cameras at x, z = ±2 m the footprints span [−7, 3] and [−3, 7] m on each
 * axis, so over the ground [−7, 7]² a 1 m cell is seen by (1 or 2) × (1 or 2) photos: 1 in the
 * corners, 2 along the edges, 4 in the middle, known for every cell.
 *
 * The model is given in a frame of its own (the target frame scaled down 10× and turned about
 * the vertical), with the similarity that carries it into the target frame, as the pipeline
 * has it after georeferencing.
 */
import type { ImageFeatures, ImageRef, Similarity, SparseModel } from "../../../compute/scene/index.js";
import { mapSparsePoints, mapViews } from "../../../compute/scene/index.js";
import { angleAxisToMatrix } from "../../../compute/geometry/rotation.js";
import { run as runBundleAdjustment } from "../../../compute/solvers/bundle-adjustment/index.js";
import { problemOfModel } from "../../../compute/stages/quality-report/measures.js";

export const FOCAL = 100;
export const SIZE = 100;
export const ALTITUDE = 10;
export const CAMERA_XZ: Array<[number, number]> = [[-2, -2], [2, -2], [-2, 2], [2, 2]];

/** Ground height (target y) at x, z: ±0.3 m of relief, so the block is not a plane. */
export function groundHeight(x: number, z: number): number {
  return 0.2 * Math.sin(0.9 * x) * Math.cos(0.7 * z) + 0.1 * Math.sin(0.5 * x + 0.3 * z);
}

/** Photos expected to see the cell of centre x, z: (1 or 2) × (1 or 2). */
export function expectedCount(x: number, z: number): number {
  const along = (v: number) => (v >= -7 && v < 3 ? 1 : 0) + (v > -3 && v <= 7 ? 1 : 0);
  return along(x) * along(z);
}

/** Seeded normals (mulberry32 + Box–Muller). */
function normals(seed: number): () => number {
  let state = seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

export interface SurveyScene {
  /** In the model frame. */
  model: SparseModel;
  images: ImageRef[];
  features: ImageFeatures[];
  modelToTarget: Similarity;
}

/** Nadir camera at (x, ALTITUDE, z): image x east, image y south (target +z), looking down. */
function nadirView(c: number, name: string) {
  const [x, z] = CAMERA_XZ[c];
  const R = Float64Array.of(1, 0, 0, 0, 0, 1, 0, -1, 0);
  const t = Float64Array.of(-x, -z, ALTITUDE);
  return { imageIndex: c, name, intrinsics: { width: SIZE, height: SIZE, focal: FOCAL, cx: SIZE / 2, cy: SIZE / 2, k1: 0, k2: 0 }, camFromWorld: { R, t } };
}

export function makeSurvey(noisePx = 0.5, seed = 3, names = ["DJI_0001.JPG", "DJI_0002.JPG", "DJI_0003.JPG", "DJI_0004.JPG"]): SurveyScene {
  const normal = normals(seed);
  const views = names.map((name, c) => nadirView(c, name));
  const ground: number[] = [];
  for (let i = 0; i <= 56; i++) for (let j = 0; j <= 56; j++) {
    const x = -7 + i * 0.25, z = -7 + j * 0.25;
    ground.push(x, groundHeight(x, z), z);
  }
  let count = ground.length / 3;
  const keypoints: number[][] = views.map(() => []);
  const obsOffsets = [0];
  const obsViews: number[] = [];
  const obsKeypoints: number[] = [];
  // Only points two photos or more see, as SfM keeps (the corners of the block have none).
  const kept: number[] = [];
  for (let p = 0; p < count; p++) {
    const seenBy: Array<[number, number, number]> = [];
    views.forEach((view, c) => {
      const { R, t } = view.camFromWorld;
      const [X, Y, Z] = ground.slice(3 * p, 3 * p + 3);
      const depth = R[6] * X + R[7] * Y + R[8] * Z + t[2];
      const u = FOCAL * (R[0] * X + R[1] * Y + R[2] * Z + t[0]) / depth + SIZE / 2;
      const v = FOCAL * (R[3] * X + R[4] * Y + R[5] * Z + t[1]) / depth + SIZE / 2;
      if (u >= 0 && u < SIZE && v >= 0 && v < SIZE) seenBy.push([c, u, v]);
    });
    if (seenBy.length < 2) continue;
    kept.push(...ground.slice(3 * p, 3 * p + 3));
    for (const [c, u, v] of seenBy) {
      obsViews.push(c);
      obsKeypoints.push(keypoints[c].length / 2);
      keypoints[c].push(u + noisePx * normal(), v + noisePx * normal());
    }
    obsOffsets.push(obsViews.length);
  }
  const xyz = kept;
  count = xyz.length / 3;
  const features: ImageFeatures[] = keypoints.map((xy, c) => ({
    imageIndex: c, count: xy.length / 2, xy: Float32Array.from(xy), scale: new Float32Array(xy.length / 2).fill(2),
    angle: new Float32Array(xy.length / 2), descriptors: new Uint8Array(0), descriptorBytes: 0, rgb: new Uint8Array(3 * (xy.length / 2)),
  }));
  const images: ImageRef[] = names.map((name, c) => ({ index: c, name, path: `/nowhere/${c}.jpg`, width: SIZE, height: SIZE, focalPrior: 90, focalPriorSource: "exif35mm" }));
  const inTarget: SparseModel = {
    views,
    unregistered: [],
    points: {
      count, xyz: Float64Array.from(xyz), rgb: new Uint8Array(3 * count), error: new Float32Array(count),
      obsOffsets: Uint32Array.from(obsOffsets), obsViews: Uint32Array.from(obsViews), obsKeypoints: Uint32Array.from(obsKeypoints),
    },
    otherModelSizes: [],
  };
  // Model = target turned 30° about the vertical, scaled by 1/10, shifted; modelToTarget undoes it.
  const [cos, sin] = [Math.cos(Math.PI / 6), Math.sin(Math.PI / 6)];
  const turn = Float64Array.of(cos, 0, sin, 0, 1, 0, -sin, 0, cos);
  const toModel: Similarity = { R: turn, s: 0.1, t: Float64Array.of(0.3, -1, 0.2) };
  const turnBack = Float64Array.of(cos, 0, -sin, 0, 1, 0, sin, 0, cos);
  // x_t = 10·Rᵀ·(x_m − t).
  const back = [0, 1, 2].map((i) => -10 * (turnBack[3 * i] * 0.3 + turnBack[3 * i + 1] * -1 + turnBack[3 * i + 2] * 0.2));
  const modelToTarget: Similarity = { R: turnBack, s: 10, t: Float64Array.from(back) };
  const model: SparseModel = { ...inTarget, views: mapViews(toModel, inTarget.views), points: mapSparsePoints(toModel, inTarget.points) };
  return { model, images, features, modelToTarget };
}

/**
 * The model with its poses and points adjusted to its noisy keypoints (squared loss, the
 * intrinsics as they are, the first pose held), as SfM hands it on: at a least-squares
 * solution the residuals have lost the degrees of freedom the unknowns took.
 */
export function adjusted(scene: SurveyScene): SparseModel {
  const problem = problemOfModel(scene.model, new Map(scene.features.map((f) => [f.imageIndex, f])));
  problem.fixedPose = new Uint8Array(problem.cameraCount);
  problem.fixedPose[0] = 1;
  runBundleAdjustment(problem, { loss: "squared", refineFocal: false, refineDistortion: false, maxIterations: 100 });
  const views = scene.model.views.map((v, c) => ({
    ...v,
    camFromWorld: { R: angleAxisToMatrix(problem.poses.subarray(6 * c, 6 * c + 3)), t: problem.poses.slice(6 * c + 3, 6 * c + 6) },
  }));
  return { ...scene.model, views, points: { ...scene.model.points, xyz: problem.points.slice() } };
}
