/**
 * @module Whether the cameras see through a candidate fill: small depth images of the dense
 * cloud, one per registered view, and a vote over points sampled on the fill.
 *
 * A hole in the mesh is either a surface that stereo could not decide (a plain wall, a floor
 * seen at a grazing angle: the photos show a surface there, but no depth) or a real opening (a
 * doorway, a window, the gap under a table: the photos show what lies behind). The dense points
 * tell the two apart in the way the free-space evidence of Jancosek & Pajdla ("Multi-view
 * reconstruction preserving weakly-supported surfaces", CVPR 2011) does: a camera whose ray
 * through the fill meets fused points well behind the fill's plane has seen empty space where
 * the fill would be, so the hole is an opening. A ray that meets nothing (sky, or a surface with
 * no depth) is no evidence either way; a ray that meets points in front of the plane is occluded.
 */
import type { RegisteredView } from "../../scene/index.js";
import type { TaskRunner } from "../../util/pool.js";
import { shared } from "../../util/shared-memory.js";

/** Long side of the depth images: coarse, so the dense points cover each pixel. */
export const DEPTH_IMAGE_SIZE = 256;

export interface DepthImage {
  view: RegisteredView;
  width: number;
  height: number;
  /** Image pixels per depth pixel. */
  scale: number;
  /** Nearest point's depth per pixel; 0 where no point projects, Infinity where the photo shows a backdrop or a clear sky and no point projects (backdrop.ts, sky.ts). */
  depth: Float32Array;
  /**
   * The same of the measured points alone (the dense cloud's, with the backdrop's marks), once
   * completions' points are splatted into `depth`: a filled plane is a guess, and a ray that meets
   * it has not shown that space empty (cameraVerdict's `seeThroughMeasured`). Absent: `depth` holds
   * measured points only. While nothing is added it is `depth` itself; withMorePoints copies before
   * it writes.
   */
  measured?: Float32Array;
}

/** Marks images of measured points as such, so that growing them keeps the measured depths (DepthImage.measured). */
export function markMeasured(images: DepthImage[]): DepthImage[] {
  for (const image of images) image.measured ??= image.depth;
  return images;
}

/** One depth image per view: each point splatted to the pixel it projects to, the nearest kept. */
export function cloudDepthImages(positions: Float32Array, count: number, views: RegisteredView[], size = DEPTH_IMAGE_SIZE): DepthImage[] {
  return withMorePoints(views.map((view) => emptyDepthImage(view, size)), positions, 0, count);
}

/**
 * The depth images of a cloud that grew: `images` hold its points before `from` (and are changed
 * in place), the points from `from` to `count` are splatted in. A pixel keeps the nearest point,
 * so the result is the same as the whole cloud's (completions append points; the ground's images
 * start from the planes' instead of projecting every point again).
 */
export function withMorePoints(images: DepthImage[], positions: Float32Array, from: number, count: number): DepthImage[] {
  for (const image of images) {
    if (image.measured === image.depth && count > from) image.depth = image.depth.slice();
    const { view: { intrinsics: k, camFromWorld: { R, t } }, width, height, scale, depth } = image;
    for (let i = from; i < count; i++) {
      const x = positions[3 * i], y = positions[3 * i + 1], z = positions[3 * i + 2];
      const zc = R[6] * x + R[7] * y + R[8] * z + t[2];
      if (!(zc > 0)) continue;
      const u = Math.floor(((k.focal * (R[0] * x + R[1] * y + R[2] * z + t[0])) / zc + k.cx) / scale);
      const v = Math.floor(((k.focal * (R[3] * x + R[4] * y + R[5] * z + t[1])) / zc + k.cy) / scale);
      if (u < 0 || v < 0 || u >= width || v >= height) continue;
      const at = v * width + u;
      if (depth[at] === 0 || zc < depth[at]) depth[at] = zc;
    }
  }
  return images;
}

/**
 * Depth images made on the mesh stage's worker (worker.ts): a cloud's, while the main thread seeks
 * the planes; or images grown by more points (`depths` the images so far, `positions` the new
 * points only), while it seeks the ground.
 */
export interface DepthImageTask {
  kind: "depthImages";
  positions: Float32Array;
  count: number;
  views: RegisteredView[];
  size: number;
  depths?: Float32Array[];
}

/** The task's depth images, one depth array per view, in the task's order. */
export function depthImageTask(task: DepthImageTask): Float32Array[] {
  const images = task.depths ? depthImagesAround(task.views, task.depths, task.size) : task.views.map((view) => emptyDepthImage(view, task.size));
  return withMorePoints(images, task.positions, 0, task.count).map((image) => image.depth);
}

function depthImagesAround(views: RegisteredView[], depths: Float32Array[], size: number): DepthImage[] {
  return views.map((view, i) => ({ view, ...depthImageShape(view, size), depth: depths[i] }));
}

/**
 * A cloud's depth images made on a worker (the mesh stage's, worker.ts) while the calling thread
 * goes on: on one thread they took 0.8–1.8 s of object-ring's mesh stage (2.3 M points into 36
 * views). The same values as cloudDepthImages(). Null when the worker fails: the caller makes
 * them itself.
 */
export function cloudDepthImagesOn(helper: TaskRunner<DepthImageTask, Float32Array[]>, positions: Float32Array, count: number, views: RegisteredView[], size = DEPTH_IMAGE_SIZE): Promise<DepthImage[] | null> {
  const task: DepthImageTask = { kind: "depthImages", positions: shared(positions.subarray(0, 3 * count)), count, views, size };
  return helper.run(task).then((depths) => depthImagesAround(views, depths, size), () => null);
}

/**
 * `known` grown to a cloud's first `count` points, made on a worker (the same values as
 * withMorePoints() here): the plane completion's points were 0.42 s of object-ring's ground step
 * (680k points into 36 views). The worker gets a copy of the images, so that `known` is still
 * whole to be grown here if it fails; `known` is left as it was.
 */
export function grownDepthImagesOn(helper: TaskRunner<DepthImageTask, Float32Array[]>, known: CloudDepthImages, positions: Float32Array, count: number): Promise<CloudDepthImages> {
  const growHere = (): CloudDepthImages => ({ images: withMorePoints(known.images, positions, known.count, count), count });
  const views = known.images.map((image) => image.view);
  // The worker lays the images out at the default size: others are grown here.
  const atDefaultSize = known.images.every((image) => image.width === depthImageShape(image.view).width && image.height === depthImageShape(image.view).height);
  if (!atDefaultSize) return Promise.resolve(growHere());
  const task: DepthImageTask = { kind: "depthImages", positions: positions.slice(3 * known.count, 3 * count), count: count - known.count, views, size: DEPTH_IMAGE_SIZE, depths: known.images.map((image) => image.depth) };
  return helper.run(task).then((depths) => ({ images: known.images.map((image, i) => ({ ...image, depth: depths[i] })), count }), growHere);
}

/** The size of a view's depth image and its image pixels per depth pixel. */
export function depthImageShape(view: RegisteredView, size = DEPTH_IMAGE_SIZE): { width: number; height: number; scale: number } {
  const k = view.intrinsics;
  const scale = Math.max(k.width, k.height) / size;
  return { width: Math.max(1, Math.ceil(k.width / scale)), height: Math.max(1, Math.ceil(k.height / scale)), scale };
}

function emptyDepthImage(view: RegisteredView, size: number): DepthImage {
  const { width, height, scale } = depthImageShape(view, size);
  return { view, width, height, scale, depth: new Float32Array(width * height) };
}

/** Depth images and how many of a cloud's first points they hold. */
export interface CloudDepthImages {
  images: DepthImage[];
  count: number;
}

/** Where a world point falls in a depth image: its depth along the camera axis and its pixel's index; null when behind the camera or outside the image. */
export function depthPixelOf(image: DepthImage, x: number, y: number, z: number): { depth: number; index: number } | null {
  const { intrinsics: k, camFromWorld: { R, t } } = image.view;
  const zc = R[6] * x + R[7] * y + R[8] * z + t[2];
  if (!(zc > 0)) return null;
  const u = Math.floor(((k.focal * (R[0] * x + R[1] * y + R[2] * z + t[0])) / zc + k.cx) / image.scale);
  const v = Math.floor(((k.focal * (R[3] * x + R[4] * y + R[5] * z + t[1])) / zc + k.cy) / image.scale);
  if (u < 0 || v < 0 || u >= image.width || v >= image.height) return null;
  return { depth: zc, index: v * image.width + u };
}

export interface SeeThroughVote {
  /** Observations that met points well behind the fill: seen empty. */
  behind: number;
  /** Observations that met points at the fill's depth or in front of it. */
  atOrFront: number;
}

/**
 * Counts, over every sample point (3 per sample) and every depth image that sees it, whether the
 * camera's ray through the sample meets points well behind it (beyond `tolerance` of depth, an
 * absolute distance, or 5 % of the depth, whichever is larger).
 */
export function seeThroughVote(samples: Float64Array, images: DepthImage[], tolerance: number): SeeThroughVote {
  let behind = 0, atOrFront = 0;
  for (const image of images) {
    for (let s = 0; s < samples.length; s += 3) {
      const pixel = depthPixelOf(image, samples[s], samples[s + 1], samples[s + 2]);
      if (!pixel) continue;
      const seen = image.depth[pixel.index];
      if (seen === 0) continue;
      if (seen > pixel.depth + Math.max(tolerance, 0.05 * pixel.depth)) behind++;
      else atOrFront++;
    }
  }
  return { behind, atOrFront };
}
