/**
 * @module Expressing the model in the API frame: right-handed, +Y up, origin at the median of
 * the sparse points, scaled so the median distance of the points from the origin is 1 unit.
 *
 * "Up" is the mean of the cameras' up directions (−y of each camera, OpenCV axes), the usual
 * assumption that photos are taken roughly upright (OpenSfM's `align_orientation: horizontal`).
 * That assumption fails for a drone survey, whose photos look down: their "up" is the flight's
 * heading, and the town would stand on its side. Where a drone states its gimbal's pitch (DJI's
 * XMP), each photo's up comes from it instead. And where the photos' GPS fixes held the model
 * (georeference.ts), x is east, z south, and y is the fixes' up unless the photos' own up
 * agrees with it within 3 σ of the fixes' tilt: a phone's altitudes, metres apart, tilt a
 * walk-around by degrees, where its upright photos are right to about one.
 * The scale keeps the reconstruction's own (arbitrary) units but brings them to a size viewers
 * handle well; no absolute scale is claimed.
 */
import { dot3 } from "../../math/linalg.js";
import type { SparseModel } from "../../scene/index.js";
import type { GpsFrame } from "./georeference.js";

export interface WorldAlignment {
  /** new = scale · R · (old − origin); R row-major. */
  R: Float64Array;
  origin: Float64Array;
  scale: number;
  upFrom: UpSource;
  /** Whether x is east (the fixes'); otherwise it is across the photos' mean viewing direction. */
  eastFromGps: boolean;
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

function normalize(v: number[]): number[] {
  const n = Math.hypot(v[0], v[1], v[2]);
  return n === 0 ? v : [v[0] / n, v[1] / n, v[2] / n];
}

function cross(a: number[], b: number[]): number[] {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

/**
 * The photos' mean up (unit) and summed viewing directions (+z). A photo's up is −y of its
 * camera (OpenCV axes: it was held upright), or, where its gimbal's pitch φ is known, the
 * direction (0, −cos φ, sin φ) in the camera's axes: −z for a photo looking straight down.
 */
function photosDirections(model: SparseModel, pitchDegOf: (imageIndex: number) => number | undefined): { up: number[]; forward: number[] } {
  const up = [0, 0, 0];
  const forward = [0, 0, 0];
  for (const v of model.views) {
    const R = v.camFromWorld.R;
    const pitch = pitchDegOf(v.imageIndex);
    // Rows 1 and 2 of R are the camera's +y and +z axes in world coordinates.
    const [alongY, alongZ] = pitch === undefined ? [-1, 0] : [-Math.cos((pitch * Math.PI) / 180), Math.sin((pitch * Math.PI) / 180)];
    for (let a = 0; a < 3; a++) {
      up[a] += alongY * R[3 + a] + alongZ * R[6 + a];
      forward[a] += R[6 + a];
    }
  }
  return { up: normalize(up), forward };
}

/** Rows x, y (= up), z of a rotation: x from `reference` made perpendicular to up (another axis where they are parallel). */
function axesAbout(y: number[], reference: number[]): Float64Array {
  let ref = reference;
  if (Math.hypot(...cross(ref, y)) < 1e-6) ref = Math.abs(y[0]) < 0.9 ? [1, 0, 0] : [0, 0, 1];
  const x = normalize(ref.map((c, a) => c - dot3(ref, y) * y[a]));
  const z = cross(x, y);
  return new Float64Array([...x, ...y, ...z]);
}

/** Whose up the new frame took: the photos', the GPS fixes' (which then also set east), or the ground control's (control-adjust.ts, which sets the whole frame). */
export type UpSource = "photos" | "gps" | "control";

/** Rotation whose rows are the new x, y (=up), z axes expressed in old coordinates, and where up came from. */
function frameRotation(model: SparseModel, gps: GpsFrame | null | undefined, pitchDegOf: (imageIndex: number) => number | undefined): { W: Float64Array; upFrom: UpSource; eastFromGps: boolean } {
  const photos = photosDirections(model, pitchDegOf);
  if (!gps) return { W: axesAbout(photos.up, cross(photos.forward, photos.up)), upFrom: "photos", eastFromGps: false };
  const gpsUp = normalize(Array.from(gps.up));
  const apart = Math.acos(Math.min(1, Math.max(-1, dot3(photos.up, gpsUp))));
  const upFrom: UpSource = apart > 3 * gps.tiltSigmaRad ? "gps" : "photos";
  return { W: axesAbout(upFrom === "gps" ? gpsUp : photos.up, Array.from(gps.east)), upFrom, eastFromGps: true };
}

/**
 * `gps`: where the fixes held the model, the world's east and up by them (georeference.ts
 * gpsFrame); x is then east, and y the fixes' up or the photos' (see the module's comment).
 * `pitchDegOf`: a drone photo's gimbal pitch by image index, where known.
 */
export function computeAlignment(model: SparseModel, gps?: GpsFrame | null, pitchDegOf: (imageIndex: number) => number | undefined = () => undefined): WorldAlignment {
  const { xyz, count } = model.points;
  const { W, upFrom, eastFromGps } = frameRotation(model, gps, pitchDegOf);
  // The median is taken per axis of the new frame, so the final coordinates have median 0.
  const rotatedMedian = [0, 1, 2].map((a) => median(Array.from({ length: count }, (_, p) => W[3 * a] * xyz[3 * p] + W[3 * a + 1] * xyz[3 * p + 1] + W[3 * a + 2] * xyz[3 * p + 2])));
  const origin = new Float64Array([0, 1, 2].map((c) => W[c] * rotatedMedian[0] + W[3 + c] * rotatedMedian[1] + W[6 + c] * rotatedMedian[2]));
  const distances = Array.from({ length: count }, (_, p) =>
    Math.hypot(xyz[3 * p] - origin[0], xyz[3 * p + 1] - origin[1], xyz[3 * p + 2] - origin[2]),
  );
  const spread = median(distances);
  return { R: W, origin, scale: spread > 0 ? 1 / spread : 1, upFrom, eastFromGps };
}

/** Apply the alignment to every pose and point, in place. */
export function applyAlignment(model: SparseModel, align: WorldAlignment): void {
  const { R: W, origin: o, scale: s } = align;
  const xyz = model.points.xyz;
  for (let p = 0; p < model.points.count; p++) {
    const d = [xyz[3 * p] - o[0], xyz[3 * p + 1] - o[1], xyz[3 * p + 2] - o[2]];
    for (let a = 0; a < 3; a++) xyz[3 * p + a] = s * (W[3 * a] * d[0] + W[3 * a + 1] * d[1] + W[3 * a + 2] * d[2]);
  }
  for (const view of model.views) {
    const { R, t } = view.camFromWorld;
    // x_cam = R·X + t with X = Wᵀ·X'/s + o; scaling the camera frame by s gives
    // R' = R·Wᵀ and t' = s·(R·o + t).
    const Rn = new Float64Array(9);
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) Rn[3 * r + c] = R[3 * r] * W[3 * c] + R[3 * r + 1] * W[3 * c + 1] + R[3 * r + 2] * W[3 * c + 2];
    const tn = new Float64Array(3);
    for (let r = 0; r < 3; r++) tn[r] = s * (R[3 * r] * o[0] + R[3 * r + 1] * o[1] + R[3 * r + 2] * o[2] + t[r]);
    view.camFromWorld = { R: Rn, t: tn };
  }
}
