/**
 * @module A similarity between a reconstruction's frame and a reference frame (published or true
 * cameras), fitted on the scene itself: the reconstruction's sparse points against their tracks
 * triangulated through the reference cameras. Both clouds then hold the same scene points, so
 * the fit pins the gauge (rotation, translation, scale) on thousands of points spread through the
 * scene instead of on a dozen camera centres, and carries none of the self-calibration's
 * difference from the reference that the cameras' orientations do (docs/decisions.md, "The
 * views bench aligns the scene, not the cameras"). Used by the views and dense benches.
 */
import { robustSimilarity, type RobustSimilarity } from "../compute/geometry/similarity.js";
import { triangulateMultiView, triangulationAngleDeg } from "../compute/geometry/triangulation.js";
import { cameraCenter, type RigidTransform } from "../compute/scene/index.js";

/** Points seen at a smaller angle than this are left out: their depth is mostly noise. */
const MIN_TRIANGULATION_DEG = 2;
/** …and those whose reference reprojection is farther than this from an observation (pixels of the reference's size). */
const MAX_REPROJECTION_PX = 4;
/** At most this many points go into the robust fit, spread over the list. */
export const MAX_TRACK_POINTS = 4000;

/** A reference camera: K in corner-origin pixels (pixel centres at +0.5), camFromWorld, optional radial terms. */
export interface ReferenceCamera {
  K: number[][];
  pose: RigidTransform;
  radial?: [number, number];
}

/** K with `pixelCentreOffset` added to its principal point: corner-origin pixels for a set that publishes OpenCV's integer centres (0.5). */
export function cornerOriginK(K: number[][], pixelCentreOffset: number): number[][] {
  const out = K.map((row) => [...row]);
  out[0][2] += pixelCentreOffset;
  out[1][2] += pixelCentreOffset;
  return out;
}

/** One sparse point: where the reconstruction has it, and the reference cameras that see it with the pixel (corner origin) each saw it at. */
export interface Track {
  xyz: ArrayLike<number>;
  cameras: ReferenceCamera[];
  /** (u, v) per camera, in the reference camera's pixels. */
  pixels: number[];
}

/** Normalised pinhole coordinates of a reference camera's pixel, its radial terms undone. */
function normalised(cam: ReferenceCamera, u: number, v: number): [number, number] {
  const K = cam.K;
  const yd = (v - K[1][2]) / K[1][1];
  const xd = (u - K[0][2] - K[0][1] * yd) / K[0][0];
  if (!cam.radial) return [xd, yd];
  const [k1, k2] = cam.radial;
  let x = xd, y = yd;
  for (let i = 0; i < 20; i++) {
    const r2 = x * x + y * y;
    const d = 1 + k1 * r2 + k2 * r2 * r2;
    x = xd / d;
    y = yd / d;
  }
  return [x, y];
}

/**
 * The similarity x_reconstruction = s·R·x_reference + t fitted on the tracks (LMedS + Umeyama
 * over the points the reference cameras triangulate well); null when fewer than 20 are.
 */
export function fitOnTracks(tracks: Track[]): (RobustSimilarity & { points: number }) | null {
  const src: number[] = [];
  const dst: number[] = [];
  const stride = Math.max(1, Math.floor(tracks.length / (3 * MAX_TRACK_POINTS)));
  for (let p = 0; p < tracks.length && src.length < 3 * MAX_TRACK_POINTS; p += stride) {
    const { xyz, cameras, pixels } = tracks[p];
    if (cameras.length < 2) continue;
    const obs = new Float64Array(2 * cameras.length);
    cameras.forEach((cam, i) => obs.set(normalised(cam, pixels[2 * i], pixels[2 * i + 1]), 2 * i));
    const poses = cameras.map((c) => c.pose);
    const X = triangulateMultiView(poses, obs, cameras.length);
    if (!X || !wellSeen(X, cameras, obs)) continue;
    src.push(X[0], X[1], X[2]);
    dst.push(xyz[0], xyz[1], xyz[2]);
  }
  const count = src.length / 3;
  if (count < 20) return null;
  const sim = robustSimilarity(src, dst, count);
  return sim && { ...sim, points: count };
}

/** In front of every camera, within MAX_REPROJECTION_PX of each observation, and seen from two directions at least MIN_TRIANGULATION_DEG apart. */
function wellSeen(X: Float64Array, cameras: ReferenceCamera[], obs: Float64Array): boolean {
  let widest = 0;
  const centres = cameras.map((c) => cameraCenter(c.pose));
  for (let i = 0; i < cameras.length; i++) {
    const { R, t } = cameras[i].pose;
    const z = R[6] * X[0] + R[7] * X[1] + R[8] * X[2] + t[2];
    if (!(z > 0)) return false;
    const x = (R[0] * X[0] + R[1] * X[1] + R[2] * X[2] + t[0]) / z;
    const y = (R[3] * X[0] + R[4] * X[1] + R[5] * X[2] + t[1]) / z;
    if (cameras[i].K[0][0] * Math.hypot(x - obs[2 * i], y - obs[2 * i + 1]) > MAX_REPROJECTION_PX) return false;
    for (let j = 0; j < i; j++) widest = Math.max(widest, triangulationAngleDeg(centres[i], centres[j], X));
  }
  return widest >= MIN_TRIANGULATION_DEG;
}
