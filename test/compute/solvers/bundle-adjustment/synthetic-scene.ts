/**
 * @module Seeded synthetic bundle adjustment problems with known truth, for the BA tests and
 * bench/ba.ts: points in a box, cameras on a ring looking inward, each point seen by a run of
 * neighbouring cameras (as a surface point is seen from the side it faces), Gaussian pixel
 * noise, then a perturbation of the parameters the solver has to undo.
 */
import type { BAProblem } from "../../../../compute/solvers/bundle-adjustment/index.js";
import { angleAxisToMatrix, matrixToAngleAxis, perturbRotationLeft } from "../../../../compute/solvers/bundle-adjustment/rotation.js";

/** Seeded uniform [0, 1) generator (mulberry32) with Box–Muller normals. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  uniform(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  normal(): number {
    const u = 1 - this.uniform();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.uniform());
  }
  int(minInclusive: number, maxInclusive: number): number {
    return minInclusive + Math.floor(this.uniform() * (maxInclusive - minInclusive + 1));
  }
}

export interface SceneSpec {
  cameras: number;
  points: number;
  seed: number;
  noisePx: number;
  /** Range of the number of neighbouring cameras that see one point. */
  minViews: number;
  maxViews: number;
  /** Intrinsics of the one shared group: focal, cx, cy, k1, k2. */
  intrinsics: [number, number, number, number, number];
  /** Half side of the point box (scene units); cameras sit at 4× this from the centre. */
  boxHalfSize: number;
}

export const DEFAULT_SPEC: SceneSpec = {
  cameras: 12, points: 400, seed: 1, noisePx: 0.5, minViews: 3, maxViews: 6,
  intrinsics: [1200, 800, 600, -0.05, 0.01], boxHalfSize: 1,
};

export interface Scene {
  /** True parameters with the noisy observations. */
  truth: BAProblem;
  spec: SceneSpec;
}

function lookAtPose(center: number[], target: number[], poses: Float64Array, c: number): void {
  const norm = (v: number[]): number[] => { const l = Math.hypot(v[0], v[1], v[2]); return v.map((x) => x / l); };
  const cross = (a: number[], b: number[]): number[] => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const zAxis = norm([target[0] - center[0], target[1] - center[1], target[2] - center[2]]);
  const xAxis = norm(cross(zAxis, [0, 0, 1]));
  const yAxis = cross(zAxis, xAxis);
  const R = new Float64Array([...xAxis, ...yAxis, ...zAxis]);
  matrixToAngleAxis(R, 0, poses, 6 * c);
  for (let i = 0; i < 3; i++) poses[6 * c + 3 + i] = -(R[3 * i] * center[0] + R[3 * i + 1] * center[1] + R[3 * i + 2] * center[2]);
}

/** Projects with the RADIAL model (the same formula as compute/scene/camera.ts), independent of the solver's code. */
export function projectPoint(problem: BAProblem, c: number, X: ArrayLike<number>): [number, number, number] {
  const R = new Float64Array(9);
  angleAxisToMatrix(problem.poses, 6 * c, R, 0);
  const t = problem.poses.subarray(6 * c + 3, 6 * c + 6);
  const xc = [0, 1, 2].map((i) => R[3 * i] * X[0] + R[3 * i + 1] * X[1] + R[3 * i + 2] * X[2] + t[i]);
  const g = 5 * problem.intrinsicsGroup[c];
  const [f, cx, cy, k1, k2] = problem.intrinsics.subarray(g, g + 5);
  const u = xc[0] / xc[2], v = xc[1] / xc[2];
  const r2 = u * u + v * v;
  const d = 1 + k1 * r2 + k2 * r2 * r2;
  return [f * d * u + cx, f * d * v + cy, xc[2]];
}

export function makeScene(partial: Partial<SceneSpec> = {}): Scene {
  const spec = { ...DEFAULT_SPEC, ...partial };
  const rng = new Rng(spec.seed);
  const h = spec.boxHalfSize;
  const poses = new Float64Array(6 * spec.cameras);
  const azimuths: number[] = [];
  for (let c = 0; c < spec.cameras; c++) {
    const azimuth = (2 * Math.PI * c) / spec.cameras;
    azimuths.push(azimuth);
    const radius = 4 * h;
    const height = h * (0.8 + 0.4 * Math.sin(3 * azimuth));
    lookAtPose([radius * Math.cos(azimuth), radius * Math.sin(azimuth), height], [0, 0, 0], poses, c);
  }
  const points = new Float64Array(3 * spec.points);
  for (let i = 0; i < 3 * spec.points; i++) points[i] = h * (2 * rng.uniform() - 1);
  const truth: BAProblem = {
    cameraCount: spec.cameras, poses, intrinsicsGroup: new Uint32Array(spec.cameras),
    intrinsics: Float64Array.from(spec.intrinsics), pointCount: spec.points, points,
    observationCount: 0, obsCamera: new Uint32Array(0), obsPoint: new Uint32Array(0), obsXY: new Float64Array(0),
  };
  const obsCamera: number[] = [], obsPoint: number[] = [], obsXY: number[] = [];
  for (let p = 0; p < spec.points; p++) {
    // The point "faces" a random direction; the cameras nearest that azimuth see it.
    const facing = 2 * Math.PI * rng.uniform();
    const views = Math.min(spec.cameras, rng.int(spec.minViews, spec.maxViews));
    const first = Math.round((facing / (2 * Math.PI)) * spec.cameras - views / 2);
    for (let k = 0; k < views; k++) {
      const c = (((first + k) % spec.cameras) + spec.cameras) % spec.cameras;
      const [x, y, depth] = projectPoint(truth, c, points.subarray(3 * p, 3 * p + 3));
      if (depth <= 0) continue;
      obsCamera.push(c); obsPoint.push(p);
      obsXY.push(x + spec.noisePx * rng.normal(), y + spec.noisePx * rng.normal());
    }
  }
  truth.observationCount = obsCamera.length;
  truth.obsCamera = Uint32Array.from(obsCamera);
  truth.obsPoint = Uint32Array.from(obsPoint);
  truth.obsXY = Float64Array.from(obsXY);
  return { truth, spec };
}

export function cloneProblem(problem: BAProblem): BAProblem {
  return {
    ...problem, poses: problem.poses.slice(), intrinsics: problem.intrinsics.slice(), points: problem.points.slice(),
    obsXY: problem.obsXY.slice(), fixedPose: problem.fixedPose?.slice(), fixedPoint: problem.fixedPoint?.slice(),
  };
}

export interface Perturbation {
  seed: number;
  rotationDeg: number;
  /** Camera-centre displacement as a fraction of the scene size (box side). */
  translationFraction: number;
  /** Point displacement (std. dev.) as a fraction of the scene size. */
  pointFraction: number;
  /** Multiplies the focal by (1 + focalFraction). */
  focalFraction: number;
  /** Replaces k1 (and sets k2 to 0), as an uncalibrated start would. */
  k1: number;
}

export const DEFAULT_PERTURBATION: Perturbation = {
  seed: 99, rotationDeg: 1, translationFraction: 0.02, pointFraction: 0.01, focalFraction: 0.05, k1: 0,
};

/** A copy of the scene with fixedPose[0] = 1 and every other parameter perturbed. */
export function perturbedCopy(scene: Scene, partial: Partial<Perturbation> = {}): BAProblem {
  const spec = { ...DEFAULT_PERTURBATION, ...partial };
  const rng = new Rng(spec.seed);
  const problem = cloneProblem(scene.truth);
  problem.fixedPose = new Uint8Array(problem.cameraCount);
  problem.fixedPose[0] = 1;
  const sceneSize = 2 * scene.spec.boxHalfSize;
  const delta = new Float64Array(3);
  for (let c = 1; c < problem.cameraCount; c++) {
    const axis = [rng.normal(), rng.normal(), rng.normal()];
    const len = Math.hypot(axis[0], axis[1], axis[2]);
    for (let i = 0; i < 3; i++) delta[i] = (axis[i] / len) * (spec.rotationDeg * Math.PI) / 180;
    perturbRotationLeft(problem.poses, 6 * c, delta, 0);
    for (let i = 0; i < 3; i++) problem.poses[6 * c + 3 + i] += (spec.translationFraction * sceneSize * rng.normal()) / Math.sqrt(3);
  }
  for (let i = 0; i < problem.points.length; i++) problem.points[i] += spec.pointFraction * sceneSize * rng.normal();
  for (let g = 0; g < problem.intrinsics.length / 5; g++) {
    problem.intrinsics[5 * g] *= 1 + spec.focalFraction;
    problem.intrinsics[5 * g + 3] = spec.k1;
    problem.intrinsics[5 * g + 4] = 0;
  }
  return problem;
}

/** Replaces a fraction of the observations by gross outliers (20–100 px off). Returns their indices. */
export function injectOutliers(problem: BAProblem, fraction: number, seed: number): Uint32Array {
  const rng = new Rng(seed);
  const chosen: number[] = [];
  for (let o = 0; o < problem.observationCount; o++) {
    if (rng.uniform() >= fraction) continue;
    const angle = 2 * Math.PI * rng.uniform();
    const distance = 20 + 80 * rng.uniform();
    problem.obsXY[2 * o] += distance * Math.cos(angle);
    problem.obsXY[2 * o + 1] += distance * Math.sin(angle);
    chosen.push(o);
  }
  return Uint32Array.from(chosen);
}

/** Root mean square reprojection error of the problem's current parameters (pixels). */
export function rmsePx(problem: BAProblem): number {
  let sum = 0;
  for (let o = 0; o < problem.observationCount; o++) {
    const p = problem.obsPoint[o];
    const [x, y] = projectPoint(problem, problem.obsCamera[o], problem.points.subarray(3 * p, 3 * p + 3));
    sum += (x - problem.obsXY[2 * o]) ** 2 + (y - problem.obsXY[2 * o + 1]) ** 2;
  }
  return Math.sqrt(sum / problem.observationCount);
}

/** The problem with its whole scene mapped by x ↦ s·Rz(angle)·x + shift (poses and points; the photos unchanged). */
export function similarityOf(problem: BAProblem, scale: number, angle: number, shift: number[]): BAProblem {
  const out = cloneProblem(problem);
  const [c, s] = [Math.cos(angle), Math.sin(angle)];
  const Rz = [c, -s, 0, s, c, 0, 0, 0, 1];
  for (let p = 0; p < out.pointCount; p++) {
    const X = out.points.subarray(3 * p, 3 * p + 3);
    X.set([0, 1, 2].map((r) => scale * (Rz[3 * r] * X[0] + Rz[3 * r + 1] * X[1] + Rz[3 * r + 2] * X[2]) + shift[r]));
  }
  // camFromWorld ∘ (x ↦ Rzᵀ(x − shift)/s), up to the scale of the camera frame: R' = R·Rzᵀ, t' = s·t − R'·shift.
  const R = new Float64Array(9);
  for (let k = 0; k < out.cameraCount; k++) {
    const pose = out.poses.subarray(6 * k, 6 * k + 6);
    angleAxisToMatrix(pose, 0, R, 0);
    const Rn = Float64Array.from([0, 1, 2].flatMap((i) => [0, 1, 2].map((j) => R[3 * i] * Rz[3 * j] + R[3 * i + 1] * Rz[3 * j + 1] + R[3 * i + 2] * Rz[3 * j + 2])));
    const t = [0, 1, 2].map((i) => scale * pose[3 + i] - (Rn[3 * i] * shift[0] + Rn[3 * i + 1] * shift[1] + Rn[3 * i + 2] * shift[2]));
    matrixToAngleAxis(Rn, 0, pose, 0);
    pose.set(t, 3);
  }
  return out;
}
