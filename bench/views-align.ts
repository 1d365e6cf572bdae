/**
 * @module The similarity that carries a reference camera (published, or from a sparse run) into
 * the model the pipeline delivered, fitted on the scene itself: the model's sparse points
 * against the same tracks triangulated through the reference cameras.
 *
 * Why not the cameras: a render from the reference camera shows the model's surface, so the
 * surfaces must be what is aligned. Camera centres alone leave an arc of cameras at eye height
 * free to tilt about its chord (rendered/courtyard: 0.56°, 7 px at the render's size, where the
 * orientations agree within 0.02–0.16° each); the orientations instead carry the difference
 * between the pipeline's self-calibration and the reference's (a principal point a few pixels
 * off turns every camera alike), which tilts the model against the reference's surface
 * (fountain-P11: 27.26 → 26.69 dB). The tracks' points are neither: the reference cameras
 * triangulate the pipeline's own keypoints, so both clouds hold the same scene points.
 */
import { unzipSync } from "fflate";
import { robustSimilarity, type RobustSimilarity } from "../compute/geometry/similarity.js";
import { triangulateMultiView, triangulationAngleDeg } from "../compute/geometry/triangulation.js";
import type { RigidTransform } from "../compute/scene/index.js";
import { parseImagesTxt } from "./colmap.js";
import type { TrueCamera } from "./views-reference.js";

/** Points seen at a smaller angle than this are left out: their depth is mostly noise. */
const MIN_TRIANGULATION_DEG = 2;
/** …and those whose reference reprojection is farther than this from an observation (pixels of the reference's size). */
const MAX_REPROJECTION_PX = 4;
/** At most this many points go into the robust fit, spread over the list. */
const MAX_POINTS = 4000;

interface ModelImage {
  name: string;
  cameraId: string;
  /** (x, y) per 2-D point, corner-origin pixels of the model camera's size. */
  xy: Float64Array;
}

/** images.txt: each image's camera and its 2-D points, by COLMAP image id. */
function parseObservations(text: string): Map<string, ModelImage> {
  // Two lines per image, the second (its 2-D points) empty when it has none.
  const lines = text.split("\n").filter((l) => !l.startsWith("#"));
  const images = new Map<string, ModelImage>();
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim().length === 0) continue;
    const f = lines[i].trim().split(/\s+/);
    const values = (lines[++i] ?? "").trim().split(/\s+/).filter((v) => v.length > 0).map(Number);
    const xy = new Float64Array((2 * values.length) / 3);
    for (let k = 0; 3 * k + 1 < values.length; k++) {
      xy[2 * k] = values[3 * k];
      xy[2 * k + 1] = values[3 * k + 1];
    }
    images.set(f[0], { name: f.slice(9).join(" "), cameraId: f[8], xy });
  }
  return images;
}

/** Normalised pinhole coordinates of a reference camera's pixel (corner origin), its radial terms undone. */
function normalised(cam: TrueCamera, pixelCentreOffset: number, u: number, v: number): [number, number] {
  const K = cam.K;
  const yd = (v - (K[1][2] + pixelCentreOffset)) / K[1][1];
  const xd = (u - (K[0][2] + pixelCentreOffset) - K[0][1] * yd) / K[0][0];
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

function pose(cam: TrueCamera): RigidTransform {
  return { R: Float64Array.from(cam.R), t: Float64Array.from(cam.t) };
}

function centre(p: RigidTransform): number[] {
  const { R, t } = p;
  return [0, 1, 2].map((k) => -(R[k] * t[0] + R[3 + k] * t[1] + R[6 + k] * t[2]));
}

/**
 * The similarity x_model = s·R·x_reference + t fitted on the model's sparse points (the COLMAP
 * export `colmapZip`) and their tracks triangulated through `reference`; null when fewer than
 * 20 points are seen by two reference cameras.
 */
export function structureAlignment(colmapZip: Uint8Array, reference: TrueCamera[], pixelCentreOffset: number): (RobustSimilarity & { points: number }) | null {
  const zip = unzipSync(colmapZip);
  const text = (name: string) => new TextDecoder().decode(zip[name]);
  const widths = new Map<string, number>();
  for (const line of text("cameras.txt").split("\n")) {
    if (line.length === 0 || line.startsWith("#")) continue;
    const f = line.trim().split(/\s+/);
    widths.set(f[0], Number(f[2]));
  }
  const images = parseObservations(text("images.txt"));
  const poses = new Map(parseImagesTxt(text("images.txt")).map((p) => [p.name, p.camFromWorld]));
  const byName = new Map(reference.map((c) => [c.file, c]));
  const src: number[] = [];
  const dst: number[] = [];
  const pointLines = text("points3D.txt").split("\n").filter((l) => l.length > 0 && !l.startsWith("#"));
  const stride = Math.max(1, Math.floor(pointLines.length / (3 * MAX_POINTS)));
  for (let p = 0; p < pointLines.length && src.length < 3 * MAX_POINTS; p += stride) {
    const f = pointLines[p].trim().split(/\s+/).map(Number);
    const views: TrueCamera[] = [];
    const obs: number[] = [];
    const pixels: number[] = [];
    for (let k = 8; k + 1 < f.length; k += 2) {
      const image = images.get(String(f[k]));
      const cam = image && byName.get(image.name);
      if (!image || !cam || !poses.has(image.name)) continue;
      // The model's keypoints, in the reference camera's pixels (both corner-origin).
      const s = cam.width / (widths.get(image.cameraId) ?? cam.width);
      const u = s * image.xy[2 * f[k + 1]], v = s * image.xy[2 * f[k + 1] + 1];
      obs.push(...normalised(cam, pixelCentreOffset, u, v));
      pixels.push(u, v);
      views.push(cam);
    }
    if (views.length < 2) continue;
    const viewPoses = views.map(pose);
    const X = triangulateMultiView(viewPoses, Float64Array.from(obs), views.length);
    if (!X || !wellSeen(X, viewPoses, views, obs)) continue;
    src.push(X[0], X[1], X[2]);
    dst.push(f[1], f[2], f[3]);
  }
  const count = src.length / 3;
  if (count < 20) return null;
  const sim = robustSimilarity(src, dst, count);
  return sim && { ...sim, points: count };
}

/** In front of every camera, within MAX_REPROJECTION_PX of each observation, and seen from two directions at least MIN_TRIANGULATION_DEG apart. */
function wellSeen(X: Float64Array, viewPoses: RigidTransform[], views: TrueCamera[], obs: number[]): boolean {
  let widest = 0;
  const centres = viewPoses.map(centre);
  for (let i = 0; i < viewPoses.length; i++) {
    const { R, t } = viewPoses[i];
    const z = R[6] * X[0] + R[7] * X[1] + R[8] * X[2] + t[2];
    if (!(z > 0)) return false;
    const x = (R[0] * X[0] + R[1] * X[1] + R[2] * X[2] + t[0]) / z;
    const y = (R[3] * X[0] + R[4] * X[1] + R[5] * X[2] + t[1]) / z;
    if (views[i].K[0][0] * Math.hypot(x - obs[2 * i], y - obs[2 * i + 1]) > MAX_REPROJECTION_PX) return false;
    for (let j = 0; j < i; j++) widest = Math.max(widest, triangulationAngleDeg(centres[i], centres[j], X));
  }
  return widest >= MIN_TRIANGULATION_DEG;
}
