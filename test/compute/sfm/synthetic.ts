/**
 * @module Synthetic SfM scenes built directly as scene types (bypassing features/matching):
 * random points in a ball, a ring of cameras looking at its centre, projections with 0.5 px
 * noise, a share of observations replaced by random outliers, and optionally an image that
 * does not belong (random keypoints with random "verified" matches).
 */
import type { ImageFeatures, ImageRef, Tracks, VerifiedPair } from "../../../compute/scene/index.js";
import { createRng, gaussian } from "../../../compute/math/random.js";

export interface SyntheticScene {
  images: ImageRef[];
  features: ImageFeatures[];
  pairs: VerifiedPair[];
  tracks: Tracks;
  /** True camFromWorld per image (absent for the outlier image). */
  truth: Array<{ R: Float64Array; t: Float64Array } | null>;
  pointsWorld: Float64Array;
  sceneRadius: number;
}

export interface SyntheticOptions {
  cameras: number;
  points: number;
  noisePx: number;
  outlierShare: number;
  outlierImage: boolean;
  seed: number;
  /** When set, images carry no EXIF: source "default" with this (wrong) focal prior. */
  defaultFocalPrior?: number;
  /** True focal in pixels (default SYNTHETIC_FOCAL). */
  focal?: number;
  /**
   * Sparse tracks, as on a weakly textured object photographed from far apart: each point is
   * seen only by a random ring camera and the next one, and with this probability by the one
   * after too (so few points reach three views). Without it every camera sees every point.
   */
  threeViewShare?: number;
  /**
   * Camera heights vary by ± this around 1 along the ring. A ring at one height with every
   * camera aimed at one point is a critical configuration for focal self-calibration (Sturm,
   * CVPR 1997): a wrong focal then fits as well as the true one.
   */
  heightWave?: number;
  /** Principal point offset from the image centre (pixels, x then y); default none. */
  principalPointOffset?: [number, number];
  /** Radial distortion of the lens: normalised x, y scaled by 1 + k1·r² (default 0). */
  k1?: number;
}

const WIDTH = 640;
const HEIGHT = 480;
const FOCAL = 500;

const mulberry32 = createRng;

/** Camera on a ring of radius 3 at height 1 + heightWave·sin(3·angle) (world +Z up), looking at the origin. */
function ringCamera(angle: number, heightWave = 0): { R: Float64Array; t: Float64Array } {
  const C = [3 * Math.cos(angle), 3 * Math.sin(angle), 1 + heightWave * Math.sin(3 * angle)];
  const norm = (v: number[]) => {
    const n = Math.hypot(v[0], v[1], v[2]);
    return v.map((c) => c / n);
  };
  const z = norm(C.map((c) => -c));
  // x = z × up (world +Z up) is the camera's right; y = z × x points down.
  const x = norm([z[1], -z[0], 0]);
  const y = [z[1] * x[2] - z[2] * x[1], z[2] * x[0] - z[0] * x[2], z[0] * x[1] - z[1] * x[0]];
  const R = new Float64Array([...x, ...y, ...z]);
  const t = new Float64Array(3);
  for (let r = 0; r < 3; r++) t[r] = -(R[3 * r] * C[0] + R[3 * r + 1] * C[1] + R[3 * r + 2] * C[2]);
  return { R, t };
}

export const SYNTHETIC_FOCAL = FOCAL;

function makeImage(index: number, focal: number, defaultFocalPrior?: number): ImageRef {
  const name = `view${String(index).padStart(2, "0")}.jpg`;
  if (defaultFocalPrior !== undefined) return { index, name, path: "", width: WIDTH, height: HEIGHT, focalPrior: defaultFocalPrior, focalPriorSource: "default" };
  return { index, name, path: "", width: WIDTH, height: HEIGHT, focalPrior: focal, focalPriorSource: "exif35mm" };
}

/** Per point, the cameras that see it: all, or (sparse tracks) a random run of two or three ring neighbours. */
function viewersOf(opts: SyntheticOptions, points: number, rand: () => number): Array<Set<number>> {
  return Array.from({ length: points }, () => {
    if (opts.threeViewShare === undefined) return new Set(Array.from({ length: opts.cameras }, (_, c) => c));
    const first = Math.floor(rand() * opts.cameras);
    const length = rand() < opts.threeViewShare ? 3 : 2;
    return new Set(Array.from({ length }, (_, k) => (first + k) % opts.cameras));
  });
}

function makeFeatures(index: number, xy: number[]): ImageFeatures {
  const count = xy.length / 2;
  return {
    imageIndex: index,
    count,
    xy: Float32Array.from(xy),
    scale: new Float32Array(count).fill(2),
    angle: new Float32Array(count),
    descriptors: new Uint8Array(32 * count),
    descriptorBytes: 32,
    rgb: new Uint8Array(3 * count).fill(128),
  };
}

export function makeSyntheticScene(opts: SyntheticOptions): SyntheticScene {
  const rand = mulberry32(opts.seed);
  const pointsWorld = new Float64Array(3 * opts.points);
  for (let p = 0; p < opts.points; p++) {
    for (;;) {
      const v = [2 * rand() - 1, 2 * rand() - 1, 2 * rand() - 1];
      if (Math.hypot(v[0], v[1], v[2]) <= 1) {
        pointsWorld.set(v, 3 * p);
        break;
      }
    }
  }
  const focal = opts.focal ?? FOCAL;
  const viewers = viewersOf(opts, opts.points, rand);
  const truth: SyntheticScene["truth"] = [];
  const keypoints: number[][] = [];
  // trackObs[p] = list of (image, keypoint)
  const trackObs: Array<Array<[number, number]>> = Array.from({ length: opts.points }, () => []);
  for (let c = 0; c < opts.cameras; c++) {
    const pose = ringCamera((2 * Math.PI * c) / opts.cameras, opts.heightWave);
    truth.push(pose);
    const xy: number[] = [];
    for (let p = 0; p < opts.points; p++) {
      if (!viewers[p].has(c)) continue;
      const X = pointsWorld.subarray(3 * p, 3 * p + 3);
      const cam = [0, 1, 2].map((r) => pose.R[3 * r] * X[0] + pose.R[3 * r + 1] * X[1] + pose.R[3 * r + 2] * X[2] + pose.t[r]);
      const [offsetX, offsetY] = opts.principalPointOffset ?? [0, 0];
      const radial = 1 + (opts.k1 ?? 0) * ((cam[0] / cam[2]) ** 2 + (cam[1] / cam[2]) ** 2);
      let u = (focal * radial * cam[0]) / cam[2] + WIDTH / 2 + offsetX + opts.noisePx * gaussian(rand);
      let v = (focal * radial * cam[1]) / cam[2] + HEIGHT / 2 + offsetY + opts.noisePx * gaussian(rand);
      if (u < 0 || v < 0 || u >= WIDTH || v >= HEIGHT) continue;
      if (rand() < opts.outlierShare) {
        u = rand() * WIDTH;
        v = rand() * HEIGHT;
      }
      trackObs[p].push([c, xy.length / 2]);
      xy.push(u, v);
    }
    keypoints.push(xy);
  }
  if (opts.outlierImage) {
    const c = opts.cameras;
    truth.push(null);
    const xy: number[] = [];
    for (let p = 0; p < opts.points; p++) {
      if (rand() < 0.5) {
        trackObs[p].push([c, xy.length / 2]);
        xy.push(rand() * WIDTH, rand() * HEIGHT);
      }
    }
    keypoints.push(xy);
  }
  const imageCount = keypoints.length;
  const images = Array.from({ length: imageCount }, (_, i) => makeImage(i, focal, opts.defaultFocalPrior));
  const features = keypoints.map((xy, i) => makeFeatures(i, xy));
  return { images, features, tracks: buildTracks(trackObs), pairs: buildPairs(trackObs, imageCount), truth, pointsWorld, sceneRadius: 1 };
}

function buildTracks(trackObs: Array<Array<[number, number]>>): Tracks {
  const offsets = [0];
  const trackImages: number[] = [];
  const trackKeypoints: number[] = [];
  for (const obs of trackObs) {
    if (obs.length < 2) continue;
    for (const [image, kp] of obs) {
      trackImages.push(image);
      trackKeypoints.push(kp);
    }
    offsets.push(trackImages.length);
  }
  return { count: offsets.length - 1, trackOffsets: Uint32Array.from(offsets), trackImages: Uint32Array.from(trackImages), trackKeypoints: Uint32Array.from(trackKeypoints) };
}

function buildPairs(trackObs: Array<Array<[number, number]>>, imageCount: number): VerifiedPair[] {
  const matches = new Map<number, number[]>();
  for (const obs of trackObs) {
    for (let a = 0; a < obs.length; a++) {
      for (let b = a + 1; b < obs.length; b++) {
        const key = obs[a][0] * imageCount + obs[b][0];
        const list = matches.get(key) ?? [];
        list.push(obs[a][1], obs[b][1]);
        matches.set(key, list);
      }
    }
  }
  const pairs: VerifiedPair[] = [];
  for (const [key, list] of matches) {
    if (list.length / 2 < 15) continue;
    pairs.push({ imageA: Math.floor(key / imageCount), imageB: key % imageCount, matches: Uint32Array.from(list), model: "essential", homographyRatio: 0.3 });
  }
  return pairs;
}

/** Two unrelated scenes side by side in one input (image indices and keypoints of `b` offset after `a`). */
export function concatScenes(a: SyntheticScene, b: SyntheticScene): SyntheticScene {
  const offset = a.images.length;
  const images = [...a.images, ...b.images.map((img, i) => ({ ...img, index: offset + i, name: `b_${img.name}` }))];
  const features = [...a.features, ...b.features.map((f, i) => ({ ...f, imageIndex: offset + i }))];
  const pairs = [...a.pairs, ...b.pairs.map((p) => ({ ...p, imageA: p.imageA + offset, imageB: p.imageB + offset }))];
  const aObs = a.tracks.trackImages.length;
  const tracks: Tracks = {
    count: a.tracks.count + b.tracks.count,
    trackOffsets: Uint32Array.from([...a.tracks.trackOffsets, ...Array.from(b.tracks.trackOffsets.subarray(1), (o) => o + aObs)]),
    trackImages: Uint32Array.from([...a.tracks.trackImages, ...Array.from(b.tracks.trackImages, (i) => i + offset)]),
    trackKeypoints: Uint32Array.from([...a.tracks.trackKeypoints, ...b.tracks.trackKeypoints]),
  };
  const pointsWorld = new Float64Array([...a.pointsWorld, ...b.pointsWorld]);
  return { images, features, pairs, tracks, truth: [...a.truth, ...b.truth], pointsWorld, sceneRadius: a.sceneRadius };
}
