/**
 * @module `npm run bench -- dense [set-name-filter...] [--quality=preview|standard|high]
 * [--true-cameras] [--dense-side=px] [--dense=<json of dense options>] [--mesh=<json of mesh options>] [--colmap]
 * [--keep=<dir>] [--reuse-dense=<dir>]`:
 * the whole chain ingest → features → matching → sfm → dense → mesh → texture → export (all six files)
 * on each dataset in ../shared/datasets, with the stage options of the pipeline's quality
 * preset (compute/pipeline QUALITY_PRESETS). The stages are called one by one rather than
 * through runPipeline because the accuracy figures need the in-memory cameras and cloud, which
 * runPipeline only writes to files. With --colmap, COLMAP's sparse run (feature_extractor +
 * exhaustive_matcher + mapper, bench/colmap.ts) follows on the same images, and the ratio of our
 * whole pipeline's wall time to COLMAP's sparse time is printed.
 *
 * For sets with gt/surface.ply: the model is aligned to the truth by a robust similarity fitted
 * on the scene (track-alignment.ts: its sparse points against their tracks triangulated through
 * the true cameras; the camera centres' similarity when too few points are seen well; since
 * 2026-12-01, figures before that aligned the centres), the dense points are mapped through it, and
 * accuracy (median distance to the true surface samples), completeness (share of samples with
 * a point within τ) and F-score are computed at τ = 1 % of scene.radius (datasets/README.md);
 * accuracy and precision only over the points inside the ball the truth was sampled from
 * (scene.center, scene.eval_radius of cameras.json). The delivered mesh is scored the same way
 * (mesh-truth.ts: precision on points spread over its faces by area, completeness as the share of
 * true samples within τ of its nearest face), since a cloud's completeness at 0.5 % also measures
 * how densely it samples the surface. With --keep=<dir>, the scored points and their distances
 * are written there as PLY (<set>-cloud.ply, -mesh.ply: its samples; -truth-to-cloud.ply, -truth-to-mesh.ply).
 * With --reuse-dense=<dir>, the state after dense is kept there and read again by later runs with
 * the same quality and dense options (mesh experiments skip the front, SfM and dense).
 * With --true-cameras, dense runs a second time on the true cameras (SfM's sparse points mapped
 * into the true frame), which separates the dense stage's error from the SfM's.
 * Prints wall time per stage and in total, peak RSS, point and face counts; writes
 * bench/out/dense.json.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { deserialize, serialize } from "node:v8";
import type { Quality } from "../shared/jobs.js";
import { robustSimilarity, type Similarity } from "../compute/geometry/similarity.js";
import { KdTree } from "../compute/math/kdtree.js";
import { faceBudgetFor, QUALITY_PRESETS, type StagePresets } from "../compute/pipeline/presets.js";
import * as texture from "../compute/stages/texture/index.js";
import { cameraCenter, type ImageFeatures, type ImageRef, type Mesh, type PointCloud, type RegisteredView, type SparseModel } from "../compute/scene/index.js";
import * as dense from "../compute/stages/dense/index.js";
import * as exportStage from "../compute/stages/export/index.js";
import * as mesh from "../compute/stages/mesh/index.js";
import * as sfm from "../compute/stages/sfm/index.js";
import { datasetInputs, datasetsRoot, listDatasets, repoRoot } from "./datasets.js";
import { runFront } from "./pipeline-front.js";
import { cornerOriginK, fitOnTracks, type ReferenceCamera, type Track } from "./track-alignment.js";
import { readTrueMesh, seenByCameras, type SeeingCamera } from "./seen-truth.js";
import { renderGlbView } from "./look.js";
import { ensureColmap, runColmap } from "./colmap.js";
import { groundLine } from "./ground-line.js";
import { MODEL_FORMATS } from "../shared/formats.js";
import { FaceGrid, samplesByArea } from "./mesh-truth.js";


export interface SurfaceAccuracy {
  tau: number;
  accuracyMedian: number;
  precision: number;
  completeness: number;
  fScore: number;
  alignedCameras: number;
  /** Points scored for accuracy and precision: those inside the ground truth's evaluation ball. */
  scoredPoints: number;
  /** The cloud's points (for a mesh: its faces). */
  totalPoints: number;
}

interface SetResult {
  set: string;
  images: number;
  registered: number;
  points: number;
  faces: number;
  stageSeconds: Record<string, number>;
  totalSeconds: number;
  peakRssMiB: number;
  denseKernel: string;
  /** PatchMatch's plane hypotheses scored, and its working-level pixels marked for the narrow window's lower grey spread (the dense report's counts). */
  hypotheses?: number;
  nearDepthEdgePixels?: number;
  surface: SurfaceAccuracy | null;
  /** What the model was aligned to the truth on: the scene's points, or the camera centres. */
  alignedOn?: "scene" | "centres";
  /** The same at τ = 0.5 % of the radius (issue 13's targets). */
  surfaceHalf?: SurfaceAccuracy | null;
  /** How the mesh stage placed the ground plane (groundLine), when it found one. */
  ground?: string;
  /** The delivered mesh at τ = 1 % and 0.5 % (meshAccuracy). */
  mesh?: { surface: SurfaceAccuracy; surfaceHalf: SurfaceAccuracy; seenHalf: SeenPrecision | null } | null;
  /** Dense alone: the same sparse points, the true cameras (with --true-cameras). */
  trueCameras?: { points: number; seconds: number; surface: SurfaceAccuracy | null; surfaceHalf: SurfaceAccuracy | null; meshHalf: SurfaceAccuracy | null; ground?: string };
  /** COLMAP's sparse run on the same images (with --colmap): wall seconds and registered images. */
  colmap?: { seconds: number; registered: number; error?: string };
  /** The mesh as glb and a picture of it from the first camera (bench/out/<set>.glb/.png). */
  picture?: string;
  error?: string;
}

export interface GroundTruth {
  radius: number;
  /**
   * The ball the surface samples were drawn from (cameras.json scene.center and eval_radius):
   * outside it there is real surface (the ground runs on) but no truth, so precision is scored
   * inside it only, as benchmarks with partial ground truth crop to its bounds (Knapitsch et al.,
   * "Tanks and Temples", SIGGRAPH 2017, crop volumes; Aanæs et al., DTU, IJCV 2016, observation masks).
   */
  evalBall: { center: Float64Array; radius: number } | null;
  centres: Map<string, Float64Array>;
  /** K as published, for photos `width` pixels wide; camFromWorld. */
  cameras: Map<string, { K: number[][]; R: number[][]; t: number[]; width: number; height: number }>;
  /** What K's principal point lacks to be in corner-origin pixels: 0.5 for sets that publish OpenCV's integer centres. */
  pixelCentreOffset: number;
  /** Surface samples and their unit normals (3·n each). */
  surface: { points: Float32Array; normals: Float32Array } | null;
  /** The true mesh (gt/mesh.ply), for which of the delivered mesh's samples the true cameras see. */
  mesh: { positions: Float32Array; indices: Uint32Array } | null;
  /** How many cameras see every surface sample (cameras.json `surface.min_views`; 1 when not given). */
  minViews: number;
}

export async function loadGroundTruth(setDir: string): Promise<GroundTruth | null> {
  const file = path.join(setDir, "gt/cameras.json");
  if (!existsSync(file)) return null;
  type TrueCamera = { file: string; center: number[]; K: number[][]; R: number[][]; t: number[]; width: number; height: number; outlier?: boolean };
  const gt = JSON.parse(await readFile(file, "utf8")) as {
    convention: string;
    scene: { radius: number; center?: number[]; eval_radius?: number };
    surface?: { min_views?: number };
    images?: TrueCamera[];
    videos?: Array<{ file: string }>;
    frames?: Array<Omit<TrueCamera, "file"> & { index: number }>;
  };
  // A video's frames are named as ingest names keyframes: `<file>#<frame index>`, for each container of the footage.
  const frames = (gt.videos ?? []).flatMap((v) => (gt.frames ?? []).map((f) => ({ ...f, file: `${v.file}#${f.index}` })));
  const images = [...(gt.images ?? []), ...frames].filter((i) => !i.outlier);
  const centres = new Map(images.map((i) => [i.file, Float64Array.from(i.center)]));
  const cameras = new Map(images.map((i) => [i.file, { K: i.K, R: i.R, t: i.t, width: i.width, height: i.height }]));
  // As bench/published.ts: sets that publish OpenCV's integer pixel centres sit half a pixel before ours.
  const pixelCentreOffset = /centers at integer coordinates \+ 0\.5/.test(gt.convention) ? 0 : 0.5;
  const surfaceFile = path.join(setDir, "gt/surface.ply");
  const meshFile = path.join(setDir, "gt/mesh.ply");
  const evalBall = gt.scene.center && gt.scene.eval_radius ? { center: Float64Array.from(gt.scene.center), radius: gt.scene.eval_radius } : null;
  return { radius: gt.scene.radius, evalBall, centres, cameras, pixelCentreOffset, surface: existsSync(surfaceFile) ? readPlyVertices(await readFile(surfaceFile)) : null, mesh: existsSync(meshFile) ? readTrueMesh(await readFile(meshFile)) : null, minViews: Math.max(1, gt.surface?.min_views ?? 1) };
}

/** x, y, z and nx, ny, nz of a binary little-endian PLY of float32 vertex properties in that order (the datasets' surface.ply). */
function readPlyVertices(bytes: Buffer): { points: Float32Array; normals: Float32Array } {
  const headerEnd = bytes.indexOf("end_header\n") + "end_header\n".length;
  const header = bytes.subarray(0, headerEnd).toString("latin1");
  if (!header.includes("binary_little_endian")) throw new Error("bench dense: surface.ply is not binary little endian");
  const count = Number(/element vertex (\d+)/.exec(header)?.[1] ?? 0);
  const properties = header.split("\n").filter((l) => l.startsWith("property float")).length;
  const data = new DataView(bytes.buffer, bytes.byteOffset + headerEnd);
  const points = new Float32Array(3 * count);
  const normals = new Float32Array(3 * count);
  for (let i = 0; i < count; i++) {
    for (let a = 0; a < 3; a++) {
      points[3 * i + a] = data.getFloat32(4 * (properties * i + a), true);
      if (properties >= 6) normals[3 * i + a] = data.getFloat32(4 * (properties * i + 3 + a), true);
    }
  }
  return { points, normals };
}

/** The similarity mapping the model onto the truth, the cameras it rests on (those with truth; the centres' inliers), and what it was fitted on. */
type TruthAlignment = Similarity & { alignedCameras: number; fit: "scene" | "centres" };

/**
 * The similarity mapping the model onto the truth, fitted on the scene (track-alignment.ts: the
 * model's sparse points against their tracks triangulated through the true cameras); the camera
 * centres' when too few points are seen well. Centres alone carry their own error into the gauge:
 * on smoke the two fits put the scene 0.21 % of its radius apart on average (0.42 τ at 0.5 %).
 */
export function alignToTruth(model: SparseModel, gt: GroundTruth, features: ImageFeatures[], images: ImageRef[]): TruthAlignment | null {
  // The scene's fit maps the true frame into the model's; the cloud goes the other way.
  const byScene = fitOnTracks(trueTracks(model, gt, features, images));
  if (byScene) return { ...inverse(byScene), alignedCameras: model.views.filter((v) => gt.centres.has(v.name)).length, fit: "scene" };
  const src: number[] = [];
  const dst: number[] = [];
  for (const view of model.views) {
    const truth = gt.centres.get(view.name);
    if (!truth) continue;
    src.push(...cameraCenter(view.camFromWorld));
    dst.push(...truth);
  }
  const byCentres = robustSimilarity(src, dst, src.length / 3);
  return byCentres && { R: byCentres.R, t: byCentres.t, s: byCentres.s, scale: byCentres.scale, alignedCameras: byCentres.inlierCount, fit: "centres" };
}

/** x_a = s·R·x_b + t turned into x_b = (1/s)·Rᵀ·x_a − (1/s)·Rᵀ·t. */
function inverse(sim: Similarity): Similarity {
  const R = new Float64Array([sim.R[0], sim.R[3], sim.R[6], sim.R[1], sim.R[4], sim.R[7], sim.R[2], sim.R[5], sim.R[8]]);
  const s = 1 / sim.s;
  const t = new Float64Array([0, 1, 2].map((r) => -s * (R[3 * r] * sim.t[0] + R[3 * r + 1] * sim.t[1] + R[3 * r + 2] * sim.t[2])));
  return { R, t, s, scale: s };
}

/** The model's sparse points with the true cameras of the views that see them and the keypoints they were seen at (in the true cameras' pixels). */
function trueTracks(model: SparseModel, gt: GroundTruth, features: ImageFeatures[], images: ImageRef[]): Track[] {
  const featuresOf = new Map(features.map((f) => [f.imageIndex, f]));
  const widthOf = new Map(images.map((i) => [i.index, i.width]));
  const viewCameras = model.views.map((v) => {
    const cam = gt.cameras.get(v.name);
    if (!cam) return null;
    const reference: ReferenceCamera = { K: cornerOriginK(cam.K, gt.pixelCentreOffset), pose: { R: Float64Array.from(cam.R.flat()), t: Float64Array.from(cam.t) } };
    return { reference, xy: featuresOf.get(v.imageIndex)?.xy, scale: cam.width / (widthOf.get(v.imageIndex) ?? cam.width) };
  });
  const { points } = model;
  const tracks: Track[] = [];
  for (let p = 0; p < points.count; p++) {
    const track: Track = { xyz: points.xyz.subarray(3 * p, 3 * p + 3), cameras: [], pixels: [] };
    for (let k = points.obsOffsets[p]; k < points.obsOffsets[p + 1]; k++) {
      const seen = viewCameras[points.obsViews[k]];
      if (!seen?.xy) continue;
      const keypoint = points.obsKeypoints[k];
      track.cameras.push(seen.reference);
      track.pixels.push(seen.scale * seen.xy[2 * keypoint], seen.scale * seen.xy[2 * keypoint + 1]);
    }
    tracks.push(track);
  }
  return tracks;
}

/**
 * Score a cloud (already in the true frame) at τ = 1 % of the radius. Accuracy is the distance
 * to the tangent plane of the nearest surface sample (the samples are ~1 % of the radius apart,
 * so point-to-sample distances would mostly measure their spacing); completeness is point-to-point.
 * Accuracy and precision count only the points inside the truth's evaluation ball (evalBall);
 * completeness asks every point.
 */
function surfaceAccuracy(aligned: Float64Array, gt: GroundTruth, alignedCameras: number, tauFraction = 0.01): SurfaceAccuracy | null {
  if (!gt.surface || aligned.length === 0) return null;
  const tau = tauFraction * gt.radius;
  const toTruth = distancesToTruth(aligned, gt, tau);
  if (!toTruth) return null;
  return scored(tau, toTruth, nearestDistances(gt.surface.points, aligned), alignedCameras, aligned.length / 3);
}

/**
 * Distance to the true surface of each point inside the evaluation ball: to the tangent plane
 * of its nearest surface sample (the samples are ~1 % of the radius apart, so point-to-sample
 * distances would mostly measure their spacing), and the plain distance beyond 2τ. Null when no
 * point lies inside the ball.
 */
function distancesToTruth(aligned: Float64Array, gt: GroundTruth, tau: number): Float64Array | null {
  if (!gt.surface) return null;
  const { points, normals } = gt.surface;
  const sampleTree = new KdTree(points);
  const inside = insideBall(aligned, gt.evalBall);
  if (inside.length === 0) return null;
  const toTruth = new Float64Array(inside.length / 3);
  for (let i = 0; i < toTruth.length; i++) {
    const j = sampleTree.nearest(inside[3 * i], inside[3 * i + 1], inside[3 * i + 2]);
    const d = [inside[3 * i] - points[3 * j], inside[3 * i + 1] - points[3 * j + 1], inside[3 * i + 2] - points[3 * j + 2]];
    const alongNormal = Math.abs(d[0] * normals[3 * j] + d[1] * normals[3 * j + 1] + d[2] * normals[3 * j + 2]);
    // Beyond the sample spacing the nearest sample's plane is no longer a fair stand-in.
    const euclidean = Math.hypot(d[0], d[1], d[2]);
    toTruth[i] = euclidean > 2 * tau ? euclidean : alongNormal;
  }
  return toTruth;
}

function scored(tau: number, toTruth: Float64Array, toReconstruction: Float64Array, alignedCameras: number, totalPoints: number): SurfaceAccuracy {
  const precision = toTruth.filter((d) => d <= tau).length / toTruth.length;
  const completeness = toReconstruction.filter((d) => d <= tau).length / toReconstruction.length;
  const sorted = Float64Array.from(toTruth).sort();
  return {
    tau,
    accuracyMedian: sorted[Math.floor(sorted.length / 2)],
    precision,
    completeness,
    fScore: precision + completeness > 0 ? (2 * precision * completeness) / (precision + completeness) : 0,
    alignedCameras,
    scoredPoints: toTruth.length,
    totalPoints,
  };
}

/** Points sampled on the mesh for its precision: about as many as the truth has samples. */
const MESH_SAMPLES = 400_000;

/**
 * The delivered mesh against the truth (mesh-truth.ts): precision on points spread over its faces
 * by area, completeness as the share of true samples within τ of its nearest face, at 1 % and
 * 0.5 % of the radius.
 */
export function meshAccuracy(meshed: Mesh, gt: GroundTruth, sim: TruthAlignment): { surface: SurfaceAccuracy; surfaceHalf: SurfaceAccuracy; seenHalf: SeenPrecision | null; truthToMesh: Float64Array; samples: Float64Array } | null {
  if (!gt.surface || meshed.faceCount === 0) return null;
  const positions = transformCloud({ count: meshed.vertexCount, positions: meshed.positions, normals: meshed.normals, colors: meshed.colors }, sim);
  const samples = samplesByArea(positions, meshed.indices, MESH_SAMPLES);
  const tau = 0.01 * gt.radius;
  const toTruth = distancesToTruth(samples, gt, tau);
  const toTruthHalf = distancesToTruth(samples, gt, tau / 2);
  if (!toTruth || !toTruthHalf) return null;
  const grid = new FaceGrid(positions, meshed.indices, tau);
  const truth = gt.surface.points;
  const toMesh = new Float64Array(truth.length / 3);
  for (let i = 0; i < toMesh.length; i++) toMesh[i] = grid.nearest(truth.subarray(3 * i, 3 * i + 3), tau);
  const surfaceHalf = scored(tau / 2, toTruthHalf, toMesh, sim.alignedCameras, meshed.faceCount);
  return {
    surface: scored(tau, toTruth, toMesh, sim.alignedCameras, meshed.faceCount),
    surfaceHalf,
    seenHalf: seenPrecision(insideBall(samples, gt.evalBall), toTruthHalf, gt, tau / 2, surfaceHalf.completeness),
    truthToMesh: toMesh,
    samples,
  };
}

interface SeenPrecision {
  /** The truth's own rule: how many cameras saw each of its samples. */
  minViews: number;
  /** All samples but those 1 … minViews − 1 true cameras see: their share, precision and F. */
  fewLeftOut: { share: number; precision: number; fScore: number };
  /** Only the samples minViews true cameras see. */
  seenOnly: { share: number; precision: number; fScore: number };
}

/**
 * The mesh's precision over the samples the truth could have held (seen-truth.ts: seen is within
 * 4τ of the true mesh's depth in a camera), with the completeness over all true samples.
 * `fewLeftOut` leaves out the samples some true camera sees but fewer than the truth's samples
 * needed (gt.minViews): the truth cannot be near them however exactly they lie (ground only the
 * nearest photo sees, along its bottom edge), while a sample no camera sees stays scored, so a
 * layer hidden behind a true surface still counts. `seenOnly` keeps only what minViews cameras
 * see, so a hidden surface completed where issue 40 asks (the floor under a ball) is not counted
 * either. Null without a true mesh.
 */
function seenPrecision(inside: Float64Array, toTruth: Float64Array, gt: GroundTruth, tau: number, completeness: number): SeenPrecision | null {
  if (!gt.mesh || inside.length === 0) return null;
  const cameras: SeeingCamera[] = [...gt.cameras.values()].map((c) => ({ K: cornerOriginK(c.K, gt.pixelCentreOffset), R: Float64Array.from(c.R.flat()), t: Float64Array.from(c.t), width: c.width, height: c.height }));
  const seen = seenByCameras(inside, gt.mesh, cameras, 4 * tau);
  let unseen = 0, unseenNear = 0, enough = 0, enoughNear = 0;
  for (let i = 0; i < seen.length; i++) {
    const near = toTruth[i] <= tau ? 1 : 0;
    if (seen[i] === 0) { unseen++; unseenNear += near; }
    else if (seen[i] >= gt.minViews) { enough++; enoughNear += near; }
  }
  const scoredOver = (count: number, near: number) => {
    const precision = count > 0 ? near / count : 0;
    return { share: count / seen.length, precision, fScore: precision + completeness > 0 ? (2 * precision * completeness) / (precision + completeness) : 0 };
  };
  return { minViews: gt.minViews, fewLeftOut: scoredOver(enough + unseen, enoughNear + unseenNear), seenOnly: scoredOver(enough, enoughNear) };
}

/** The points (3·n) within the ball, or all of them without one. */
function insideBall(points: Float64Array, ball: GroundTruth["evalBall"]): Float64Array {
  if (!ball) return points;
  const kept: number[] = [];
  const r2 = ball.radius * ball.radius;
  for (let i = 0; i < points.length; i += 3) {
    const dx = points[i] - ball.center[0];
    const dy = points[i + 1] - ball.center[1];
    const dz = points[i + 2] - ball.center[2];
    if (dx * dx + dy * dy + dz * dz <= r2) kept.push(points[i], points[i + 1], points[i + 2]);
  }
  return Float64Array.from(kept);
}

function transformCloud(cloud: PointCloud, sim: Similarity): Float64Array {
  const aligned = new Float64Array(3 * cloud.count);
  for (let i = 0; i < cloud.count; i++) {
    const p = cloud.positions.subarray(3 * i, 3 * i + 3);
    for (let r = 0; r < 3; r++) aligned[3 * i + r] = sim.s * (sim.R[3 * r] * p[0] + sim.R[3 * r + 1] * p[1] + sim.R[3 * r + 2] * p[2]) + sim.t[r];
  }
  return aligned;
}

/**
 * The SfM model moved into the true frame with the true cameras: sparse points mapped by the
 * camera similarity, each registered view given its ground-truth K, R, t (no distortion). Dense
 * on this model measures the stage alone, without the SfM's camera errors.
 */
function withTrueCameras(model: SparseModel, gt: GroundTruth, sim: Similarity): SparseModel | null {
  const views = [];
  for (const v of model.views) {
    const cam = gt.cameras.get(v.name);
    if (!cam) return null;
    const intrinsics = { ...v.intrinsics, focal: cam.K[0][0], cx: cam.K[0][2], cy: cam.K[1][2], k1: 0, k2: 0 };
    views.push({ ...v, intrinsics, camFromWorld: { R: Float64Array.from(cam.R.flat()), t: Float64Array.from(cam.t) } });
  }
  const xyz = new Float64Array(model.points.xyz.length);
  for (let i = 0; i < model.points.count; i++) {
    const p = model.points.xyz.subarray(3 * i, 3 * i + 3);
    for (let r = 0; r < 3; r++) xyz[3 * i + r] = sim.s * (sim.R[3 * r] * p[0] + sim.R[3 * r + 1] * p[1] + sim.R[3 * r + 2] * p[2]) + sim.t[r];
  }
  return { ...model, views, points: { ...model.points, xyz } };
}

/** Distance from each query point to its nearest point of `points` (both 3·n). */
function nearestDistances(queries: Float32Array | Float64Array, points: Float32Array | Float64Array): Float64Array {
  const tree = new KdTree(points);
  const out = new Float64Array(queries.length / 3);
  for (let i = 0; i < out.length; i++) {
    const x = queries[3 * i];
    const y = queries[3 * i + 1];
    const z = queries[3 * i + 2];
    const j = tree.nearest(x, y, z);
    out[i] = Math.hypot(points[3 * j] - x, points[3 * j + 1] - y, points[3 * j + 2] - z);
  }
  return out;
}


async function timed<T>(seconds: Record<string, number>, stage: string, work: () => Promise<T> | T): Promise<T> {
  const started = performance.now();
  const result = await work();
  seconds[stage] = (performance.now() - started) / 1000;
  return result;
}

interface BenchFlags {
  trueCameras: boolean;
  /** Override of the preset's dense working resolution (quick runs). */
  denseSide?: number;
  /** Overrides of any dense option (`--dense={"minFusedViews":2}`), for experiments. */
  denseOverrides?: Record<string, unknown>;
  /** Overrides of any mesh option (`--mesh={"resolution":1.5}`), for experiments. */
  meshOverrides?: Record<string, unknown>;
  colmap: boolean;
  /** Where to write each set's scored points with their distances (`--keep=<dir>`), or null. */
  keepDir: string | null;
  /** Where the state after dense is kept and read again (`--reuse-dense=<dir>`), or null. */
  reuseDir: string | null;
}

/**
 * Points and a distance per point as a binary little-endian PLY (x, y, z, distance: float32),
 * for looking at where a figure is lost. Points whose distance is unknown carry −1.
 */
async function writeScoredPly(file: string, points: ArrayLike<number>, distance: ArrayLike<number>): Promise<void> {
  const count = distance.length;
  const header = `ply\nformat binary_little_endian 1.0\nelement vertex ${count}\nproperty float x\nproperty float y\nproperty float z\nproperty float distance\nend_header\n`;
  const body = new Float32Array(4 * count);
  for (let i = 0; i < count; i++) {
    body.set([points[3 * i], points[3 * i + 1], points[3 * i + 2], Number.isFinite(distance[i]) ? distance[i] : -1], 4 * i);
  }
  await writeFile(file, Buffer.concat([Buffer.from(header, "latin1"), Buffer.from(body.buffer)]));
}

async function benchSet(set: string, quality: Quality, workRoot: string, flags: BenchFlags): Promise<SetResult> {
  const setDir = path.join(datasetsRoot, set);
  const base = QUALITY_PRESETS[quality];
  const preset = { ...base, dense: { ...base.dense, ...(flags.denseSide ? { maxImageSide: flags.denseSide } : {}), ...flags.denseOverrides } };
  const seconds: Record<string, number> = {};
  const result: SetResult = { set, images: 0, registered: 0, points: 0, faces: 0, stageSeconds: seconds, totalSeconds: 0, peakRssMiB: 0, denseKernel: "-", surface: null };
  const started = performance.now();
  try {
    const gt = await loadGroundTruth(setDir);
    const reused = flags.reuseDir ? await readDenseState(flags.reuseDir, set, quality, flags) : null;
    const { images, features, model, densified } = reused ?? (await denseState(setDir, workRoot, set, preset, seconds));
    if (flags.reuseDir && !reused) await writeDenseState(flags.reuseDir, set, quality, flags, { images, features, model, densified });
    const detected = { features };
    result.images = images.length;
    result.registered = model.views.length;
    result.points = densified.cloud.count;
    const counts = densified.report.counts;
    result.denseKernel = counts.kernelNative ? (counts.kernelNativeAvx2 ? "native-avx2" : "native-avx512") : counts.kernelWasm ? "wasm-simd" : "typescript";
    result.hypotheses = densified.report.counts.hypothesesScored;
    result.nearDepthEdgePixels = densified.report.counts.nearDepthEdgePixels;
    const faceBudget = faceBudgetFor(quality, model.views.map((v) => v.intrinsics));
    const meshed = await timed(seconds, "mesh", () => mesh.run({ cloud: densified.cloud, views: model.views, images, viewDepths: densified.viewDepths }, { ...preset.mesh, faceBudget, ...flags.meshOverrides }));
    result.faces = meshed.mesh.faceCount;
    result.ground = groundLine(meshed.report.counts);
    const textured = meshed.mesh.faceCount > 0 ? (await timed(seconds, "texture", () => texture.run({ mesh: meshed.mesh, views: model.views, images }, preset.texture))).textured : null;
    const exportDir = path.join(workRoot, `${set.replace(/\//g, "_")}-export`);
    await timed(seconds, "export", () => exportStage.run({ views: model.views, cloud: densified.cloud, mesh: meshed.mesh, textured }, { formats: [...MODEL_FORMATS], outDir: exportDir, baseName: "model" }));
    result.totalSeconds = (performance.now() - started) / 1000;
    result.picture = await savePicture(set, model.views, densified.cloud, meshed.mesh);
    const sim = gt ? alignToTruth(model, gt, detected.features, images) : null;
    if (gt && sim) {
      const aligned = transformCloud(densified.cloud, sim);
      result.alignedOn = sim.fit;
      result.surface = surfaceAccuracy(aligned, gt, sim.alignedCameras);
      result.surfaceHalf = surfaceAccuracy(aligned, gt, sim.alignedCameras, 0.005);
      const onMesh = meshAccuracy(meshed.mesh, gt, sim);
      result.mesh = onMesh && { surface: onMesh.surface, surfaceHalf: onMesh.surfaceHalf, seenHalf: onMesh.seenHalf };
      if (flags.keepDir && gt.surface) {
        await mkdir(flags.keepDir, { recursive: true });
        const base = path.join(flags.keepDir, set.replace(/\//g, "_"));
        const inside = insideBall(aligned, gt.evalBall);
        await writeScoredPly(`${base}-cloud.ply`, inside, distancesToTruth(inside, gt, 0.005 * gt.radius) ?? []);
        await writeScoredPly(`${base}-truth-to-cloud.ply`, gt.surface.points, nearestDistances(gt.surface.points, aligned));
        if (onMesh) {
          await writeScoredPly(`${base}-truth-to-mesh.ply`, gt.surface.points, onMesh.truthToMesh);
          const meshInside = insideBall(onMesh.samples, gt.evalBall);
          await writeScoredPly(`${base}-mesh.ply`, meshInside, distancesToTruth(meshInside, gt, 0.005 * gt.radius) ?? []);
        }
      }
    }
    const trueModel = flags.trueCameras && gt && sim ? withTrueCameras(model, gt, sim) : null;
    if (trueModel && gt) {
      const t0 = performance.now();
      const onTruth = await dense.run({ images, model: trueModel }, preset.dense);
      const identity: Similarity = { R: new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]), t: new Float64Array(3), s: 1, scale: 1 };
      const onTruthCloud = transformCloud(onTruth.cloud, identity);
      // The mesh too: where the mesh stage's ground lands when the cameras cannot be blamed.
      const onTruthMesh = await mesh.run({ cloud: onTruth.cloud, views: trueModel.views, images, viewDepths: onTruth.viewDepths }, { ...preset.mesh, faceBudget, ...flags.meshOverrides });
      result.trueCameras = {
        meshHalf: meshAccuracy(onTruthMesh.mesh, gt, { ...identity, alignedCameras: trueModel.views.length, fit: "scene" })?.surfaceHalf ?? null,
        ground: groundLine(onTruthMesh.report.counts),
        points: onTruth.cloud.count,
        seconds: (performance.now() - t0) / 1000,
        surface: surfaceAccuracy(onTruthCloud, gt, trueModel.views.length),
        surfaceHalf: surfaceAccuracy(onTruthCloud, gt, trueModel.views.length, 0.005),
      };
    }
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
  }
  // The pipeline's own time: ingest to the six files (the picture and accuracy work are left out).
  result.totalSeconds ||= (performance.now() - started) / 1000;
  result.peakRssMiB = process.resourceUsage().maxRSS / 1024;
  if (flags.colmap && (await ensureColmap())) {
    const colmap = await runColmap(await datasetInputs(setDir), workRoot);
    result.colmap = { seconds: colmap.seconds, registered: colmap.poses.length, error: colmap.error };
  }
  return result;
}

/** What the stages up to dense give the mesh and the scores: the photos, their features, the cameras and the dense cloud. */
interface DenseState {
  images: ImageRef[];
  features: ImageFeatures[];
  model: SparseModel;
  densified: dense.DenseOutput;
}

async function denseState(setDir: string, workRoot: string, set: string, preset: StagePresets, seconds: Record<string, number>): Promise<DenseState> {
  const files = await datasetInputs(setDir);
  const { images, detected, matched } = await runFront(files, path.join(workRoot, set.replace(/\//g, "_")), preset, seconds);
  const { model } = await timed(seconds, "sfm", () => sfm.run({ images, features: detected.features, pairs: matched.pairs, tracks: matched.tracks }, preset.sfm));
  const densified = await timed(seconds, "dense", () => dense.run({ images, model }, preset.dense));
  return { images, features: detected.features, model, densified };
}

/**
 * `--reuse-dense=<dir>`: the state after dense is kept per set, quality and dense options (the
 * photos copied beside it, since the bench's work folder goes), so that runs which change only the
 * mesh, texture or scoring skip the front, SfM and dense. The stage times of a reused run are the
 * later stages' only. The state is not tied to the code that made it (trial worktrees of other
 * commits share it): remove the folder when the stages up to dense change.
 */
function denseStateFile(dir: string, set: string, quality: Quality, flags: BenchFlags): string {
  const key = JSON.stringify({ quality, side: flags.denseSide ?? null, dense: flags.denseOverrides ?? null });
  const digest = createHash("sha256").update(key).digest("hex").slice(0, 12);
  return path.join(dir, `${set.replace(/\//g, "_")}-${digest}`);
}

async function writeDenseState(dir: string, set: string, quality: Quality, flags: BenchFlags, state: DenseState): Promise<void> {
  const base = denseStateFile(dir, set, quality, flags);
  await mkdir(`${base}-photos`, { recursive: true });
  const images = await Promise.all(state.images.map(async (image) => {
    const kept = path.join(`${base}-photos`, path.basename(image.path));
    await copyFile(image.path, kept);
    return { ...image, path: kept };
  }));
  await writeFile(`${base}.v8`, serialize({ ...state, images }));
  console.log(`  kept the state after dense in ${base}.v8`);
}

async function readDenseState(dir: string, set: string, quality: Quality, flags: BenchFlags): Promise<DenseState | null> {
  const file = `${denseStateFile(dir, set, quality, flags)}.v8`;
  if (!existsSync(file)) return null;
  const state = deserialize(await readFile(file)) as DenseState;
  // Deserialised typed arrays can share one pooled buffer, which a worker's message would copy whole.
  for (const view of state.model.views) view.camFromWorld = { R: new Float64Array(view.camFromWorld.R), t: new Float64Array(view.camFromWorld.t) };
  const cloud = state.densified.cloud;
  state.densified.cloud = { count: cloud.count, positions: cloud.positions.slice(), normals: cloud.normals.slice(), colors: cloud.colors.slice() };
  console.log(`  reused the state after dense in ${file}`);
  return state;
}

/** Writes the mesh (with its cameras) as bench/out/<set>.glb and renders it from the first camera, for a person to look at. */
async function savePicture(set: string, views: RegisteredView[], cloud: PointCloud, meshed: Mesh): Promise<string> {
  const outDir = path.join(repoRoot, "bench/out");
  const baseName = set.replace(/\//g, "-");
  const written = await exportStage.run({ views, cloud, mesh: meshed }, { formats: ["glb"], outDir, baseName });
  const picture = path.join(outDir, `${baseName}.png`);
  await renderGlbView(written.files[0].path, 0, picture);
  return path.relative(repoRoot, picture);
}

function fmt(value: number | undefined, digits = 2): string {
  return value === undefined || !Number.isFinite(value) ? "-" : value.toFixed(digits);
}

function printTable(results: SetResult[], quality: Quality): void {
  console.log(`quality ${quality}; τ = 1 % of scene radius (½: 0.5 %); accuracy in % of radius`);
  const stages = ["ingest", "features", "matching", "sfm", "dense", "mesh", "texture", "export"];
  console.log(["set", "reg/img", "points", "faces", "acc %r", "prec", "compl", "F", "prec½", "compl½", "F½", ...stages.map((s) => `${s} s`), "total s", "peak RSS MiB", "kernel"].join(" | "));
  for (const r of results) {
    const s = r.surface;
    const radius = s ? s.tau / 0.01 : NaN;
    console.log(
      [
        r.set,
        `${r.registered}/${r.images}`,
        String(r.points),
        String(r.faces),
        s ? fmt((100 * s.accuracyMedian) / radius, 3) : "-",
        s ? fmt(s.precision, 3) : "-",
        s ? fmt(s.completeness, 3) : "-",
        s ? fmt(s.fScore, 3) : "-",
        r.surfaceHalf ? fmt(r.surfaceHalf.precision, 3) : "-",
        r.surfaceHalf ? fmt(r.surfaceHalf.completeness, 3) : "-",
        r.surfaceHalf ? fmt(r.surfaceHalf.fScore, 3) : "-",
        ...stages.map((st) => fmt(r.stageSeconds[st], 1)),
        fmt(r.totalSeconds, 1),
        fmt(r.peakRssMiB, 0),
        r.denseKernel,
      ].join(" | "),
    );
    if (r.hypotheses !== undefined) console.log(`  ${r.set} dense: ${fmt(r.hypotheses / 1e6, 1)} M plane hypotheses scored${r.nearDepthEdgePixels ? `; ${r.nearDepthEdgePixels} working-level pixels marked for the narrow window's lower grey spread (texturedWindow.edge, .frontal)` : ""}`);
    const tc = r.trueCameras;
    if (tc) console.log(`  ${r.set} dense on TRUE cameras: ${tc.points} points, acc ${tc.surface ? fmt((100 * tc.surface.accuracyMedian) / radius, 3) : "-"} %r, prec ${fmt(tc.surface?.precision, 3)}, compl ${fmt(tc.surface?.completeness, 3)}, F ${fmt(tc.surface?.fScore, 3)}; at 0.5 %: prec ${fmt(tc.surfaceHalf?.precision, 3)}, compl ${fmt(tc.surfaceHalf?.completeness, 3)}, F ${fmt(tc.surfaceHalf?.fScore, 3)}; ${fmt(tc.seconds, 1)} s; its mesh at 0.5 %: prec ${fmt(tc.meshHalf?.precision, 3)}, compl ${fmt(tc.meshHalf?.completeness, 3)}, F ${fmt(tc.meshHalf?.fScore, 3)}${tc.ground ? `; ground: ${tc.ground}` : ""}`);
    const m = r.mesh;
    if (m) console.log(`  ${r.set} mesh (${m.surface.totalPoints} faces): prec ${fmt(m.surface.precision, 3)}, compl ${fmt(m.surface.completeness, 3)}, F ${fmt(m.surface.fScore, 3)}; at 0.5 %: prec ${fmt(m.surfaceHalf.precision, 3)}, compl ${fmt(m.surfaceHalf.completeness, 3)}, F ${fmt(m.surfaceHalf.fScore, 3)}`);
    if (r.ground) console.log(`  ${r.set} mesh ground: ${r.ground}`);
    const seen = m?.seenHalf;
    if (seen) console.log(`  ${r.set} mesh at 0.5 %, by the truth's rule (its samples seen by ${seen.minViews} true cameras): leaving out the ${fmt(100 * (1 - seen.fewLeftOut.share), 1)} % of the mesh's samples fewer cameras see, prec ${fmt(seen.fewLeftOut.precision, 3)}, F ${fmt(seen.fewLeftOut.fScore, 3)}; over the ${fmt(100 * seen.seenOnly.share, 1)} % that ${seen.minViews} see, prec ${fmt(seen.seenOnly.precision, 3)}, F ${fmt(seen.seenOnly.fScore, 3)}`);
    if (s) console.log(`  ${r.set}: accuracy and precision over the ${s.scoredPoints} of ${s.totalPoints} points inside the truth's evaluation ball; aligned on the ${r.alignedOn === "scene" ? "scene's points" : "camera centres"}`);
    if (r.error) console.log(`  ${r.set}: failed: ${r.error}`);
    const c = r.colmap;
    if (c) console.log(`  ${r.set} COLMAP sparse (extract + exhaustive match + map): ${c.registered} registered, ${fmt(c.seconds, 1)} s; our whole pipeline / COLMAP sparse = ${fmt(r.totalSeconds / c.seconds, 2)}${c.error ? ` (${c.error})` : ""}`);
  }
  for (const r of results) if (r.picture) console.log(`${r.set}: picture of the mesh from its first camera: ${r.picture}`);
}

export async function run(args: string[]): Promise<void> {
  const quality = (args.find((a) => a.startsWith("--quality="))?.split("=")[1] ?? "preview") as Quality;
  if (!(quality in QUALITY_PRESETS)) throw new Error(`bench dense: unknown quality ${quality}`);
  const filters = args.filter((a) => !a.startsWith("--"));
  const side = args.find((a) => a.startsWith("--dense-side="))?.split("=")[1];
  const overrides = args.find((a) => a.startsWith("--dense="))?.slice("--dense=".length);
  const meshOverrides = args.find((a) => a.startsWith("--mesh="))?.slice("--mesh=".length);
  const keep = args.find((a) => a.startsWith("--keep="))?.slice("--keep=".length);
  const reuse = args.find((a) => a.startsWith("--reuse-dense="))?.slice("--reuse-dense=".length);
  const flags: BenchFlags = { keepDir: keep ? path.resolve(keep) : null, reuseDir: reuse ? path.resolve(reuse) : null, trueCameras: args.includes("--true-cameras"), denseSide: side ? Number(side) : undefined, denseOverrides: overrides ? JSON.parse(overrides) : undefined, meshOverrides: meshOverrides ? JSON.parse(meshOverrides) : undefined, colmap: args.includes("--colmap") };
  const chosen = await listDatasets(filters);
  const workRoot = await mkdtemp(path.join(tmpdir(), "bench-dense-"));
  const results: SetResult[] = [];
  try {
    for (const set of chosen) {
      console.log(`running ${set}...`);
      results.push(await benchSet(set, quality, workRoot, flags));
    }
  } finally {
    await rm(workRoot, { recursive: true, force: true });
  }
  printTable(results, quality);
  const outDir = path.join(repoRoot, "bench/out");
  await mkdir(outDir, { recursive: true });
  await writeFile(path.join(outDir, "dense.json"), JSON.stringify(results, null, 2));
  console.log(`wrote ${path.join(outDir, "dense.json")}`);
}
