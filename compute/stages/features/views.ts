/**
 * @module Keypoints of simulated oblique views of an image, for pairs whose photos are too far
 * apart for plain AKAZE (the affine view simulation of ASIFT: Morel & Yu, "ASIFT: A New
 * Framework for Fully Affine Invariant Image Comparison", SIAM J. Imaging Sciences 2009).
 *
 * Why: a surface seen 40–60° apart is foreshortened by 1/cos θ ≈ 1.3–2 in one direction
 * between the two photos; AKAZE's descriptors are invariant to scale and rotation but not to
 * that squeeze, so neighbours of a sparse ring of photos share few matches (templeSparseRing
 * without every 2nd photo: 16–39 inliers between neighbours 43° apart). Detecting on copies of
 * the image squeezed by the tilt `t` along directions φ, and matching each copy against the
 * other photo's plain keypoints, undoes the squeeze for surfaces tilted that way: 75–199
 * inliers on the same pairs (scratch `bench-out/asift2.ts`).
 *
 * Each view: rotate by φ onto a canvas that holds the whole image, blur across the squeeze
 * direction (σ = 0.8·√(t² − 1), the paper's anti-aliasing filter), subsample by t along x,
 * detect, and map every keypoint back into the image's own pixels. φ steps by 72°/t over
 * [0°, 180°), as in the paper. Keypoints whose descriptor window would reach the canvas fill
 * are dropped: the image's edge is a strong false edge there.
 */
import type { TransferListItem } from "node:worker_threads";
import type { ImageFeatures, SimulatedViews } from "../../scene/features.js";
import type { DetectionPixels } from "./decode.js";
import { detectionGray, keypointColours, MLDB_BYTES } from "./detect.js";
import { loadOpenCV } from "./opencv.js";
import { selectSpread } from "./select.js";

export interface ViewsTask {
  imageIndex: number;
  /** The image's own size (keypoints are reported in its pixels). */
  width: number;
  height: number;
  pixels: DetectionPixels;
  /** Squeeze of each simulated view (ASIFT's t > 1). */
  tilt: number;
  /** Keypoints kept per view, spread over the image. */
  maxPerView: number;
  threshold: number;
  octaveLayers: number;
}

export type ViewsResult = SimulatedViews;

/** The view directions φ (radians) for a tilt, ASIFT's sampling: a step of 72°/t over [0°, 180°). */
export function viewAngles(tilt: number): number[] {
  const step = 72 / tilt;
  const angles: number[] = [];
  for (let degrees = 0; degrees < 180 - 1e-9; degrees += step) angles.push((degrees * Math.PI) / 180);
  return angles;
}

/**
 * The affine map of one view, detection pixels → view pixels: rotate by φ, shift onto the
 * canvas, squeeze x by t (× `shrink` overall when the canvas would outgrow the plain detection).
 * Row-major 2×3.
 */
export function viewAffine(phi: number, tilt: number, width: number, height: number, shrink: number): { forward: Float64Array; canvasWidth: number; canvasHeight: number } {
  const c = Math.cos(phi);
  const s = Math.sin(phi);
  const xs = [0, width, 0, width].map((x, k) => c * x - s * [0, 0, height, height][k]);
  const ys = [0, width, 0, width].map((x, k) => s * x + c * [0, 0, height, height][k]);
  const minX = Math.min(...xs);
  const minY = Math.min(...ys);
  const sx = shrink / tilt;
  const sy = shrink;
  const forward = Float64Array.of(sx * c, -sx * s, -sx * minX, sy * s, sy * c, -sy * minY);
  return { forward, canvasWidth: Math.max(1, Math.round(sx * (Math.max(...xs) - minX))), canvasHeight: Math.max(1, Math.round(sy * (Math.max(...ys) - minY))) };
}

const { cv } = await loadOpenCV();

function detectViews(task: ViewsTask): ViewsResult {
  const { detectWidth, detectHeight } = task.pixels;
  const { gray, rgb } = detectionGray(task.pixels);
  const image = new cv.Mat(detectHeight, detectWidth, cv.CV_8UC1);
  image.data.set(gray);
  const views: ImageFeatures[] = [];
  try {
    for (const phi of viewAngles(task.tilt)) {
      const canvas = viewAffine(phi, task.tilt, detectWidth, detectHeight, 1);
      // Keep the view no larger than the plain detection (OpenCV.js's heap, DESIGN.md).
      const shrink = Math.min(1, Math.sqrt((detectWidth * detectHeight) / (canvas.canvasWidth * canvas.canvasHeight)));
      views.push(detectView(image, viewAffine(phi, task.tilt, detectWidth, detectHeight, shrink), task, rgb));
    }
  } finally {
    image.delete();
  }
  return { imageIndex: task.imageIndex, views };
}

function detectView(image: InstanceType<typeof cv.Mat>, view: ReturnType<typeof viewAffine>, task: ViewsTask, rgb: { data: Uint8Array; width: number; height: number }): ImageFeatures {
  const { forward, canvasWidth, canvasHeight } = view;
  const { detectWidth, detectHeight } = task.pixels;
  // Rotate at full resolution, blur across the squeeze, then subsample (the paper's order).
  const [a, b, tx, d, e, ty] = forward;
  const scaleX = Math.hypot(a, b);
  const scaleY = Math.hypot(d, e);
  const rotate = cv.matFromArray(2, 3, cv.CV_64F, [a / scaleX, b / scaleX, tx / scaleX, d / scaleY, e / scaleY, ty / scaleY]);
  const rotated = new cv.Mat();
  const blurred = new cv.Mat();
  const squeezed = new cv.Mat();
  const mask = new cv.Mat();
  const keypoints = new cv.KeyPointVector();
  const descriptors = new cv.Mat();
  const akaze = new cv.AKAZE();
  try {
    const fullWidth = Math.round(canvasWidth / scaleX);
    const fullHeight = Math.round(canvasHeight / scaleY);
    cv.warpAffine(image, rotated, rotate, new cv.Size(fullWidth, fullHeight), cv.INTER_LINEAR, cv.BORDER_CONSTANT, new cv.Scalar(0));
    const tilt = scaleY / scaleX;
    cv.GaussianBlur(rotated, blurred, new cv.Size(0, 0), 0.8 * Math.sqrt(Math.max(0, tilt * tilt - 1)) + 1e-3, 1e-3);
    cv.resize(blurred, squeezed, new cv.Size(canvasWidth, canvasHeight), 0, 0, cv.INTER_AREA);
    akaze.setThreshold(task.threshold);
    akaze.setNOctaveLayers(task.octaveLayers);
    akaze.detectAndCompute(squeezed, mask, keypoints, descriptors);
    return mapBack(keypoints, descriptors, forward, task, rgb, detectWidth, detectHeight);
  } finally {
    for (const obj of [rotate, rotated, blurred, squeezed, mask, keypoints, descriptors, akaze]) obj.delete();
  }
}

/** Keypoints of a view in the image's own pixels, those whose window stays inside the image, spread-selected. */
function mapBack(keypoints: InstanceType<typeof cv.KeyPointVector>, descriptors: InstanceType<typeof cv.Mat>, forward: Float64Array, task: ViewsTask, rgb: { data: Uint8Array; width: number; height: number }, detectWidth: number, detectHeight: number): ImageFeatures {
  const [a, b, tx, d, e, ty] = forward;
  const det = a * e - b * d;
  const n = keypoints.size();
  const x = new Float32Array(n);
  const y = new Float32Array(n);
  const size = new Float32Array(n);
  const angle = new Float32Array(n);
  const response = new Float32Array(n);
  const source = new Int32Array(n);
  // The view squeezes by up to 1/min singular value of the forward map: a window of radius r view
  // pixels reaches r / that far in detection pixels.
  const minStretch = Math.min(Math.hypot(a, d), Math.hypot(b, e));
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const kp = keypoints.get(i);
    const u = kp.pt.x - tx;
    const v = kp.pt.y - ty;
    const px = (e * u - b * v) / det;
    const py = (-d * u + a * v) / det;
    const reach = kp.size / minStretch;
    if (px < reach || py < reach || px > detectWidth - 1 - reach || py > detectHeight - 1 - reach) continue;
    // The orientation's direction, mapped back through the inverse of the linear part.
    const ca = Math.cos((kp.angle * Math.PI) / 180);
    const sa = Math.sin((kp.angle * Math.PI) / 180);
    x[kept] = px;
    y[kept] = py;
    size[kept] = kp.size / Math.sqrt(Math.abs(det));
    angle[kept] = Math.atan2(-d * ca + a * sa, e * ca - b * sa);
    response[kept] = kp.response;
    source[kept] = i;
    kept++;
  }
  const chosen = selectSpread(x.subarray(0, kept), y.subarray(0, kept), response.subarray(0, kept), detectWidth, detectHeight, task.maxPerView);
  const bytes = descriptors.cols > 0 ? descriptors.cols : MLDB_BYTES;
  const rows = descriptors.data as Uint8Array;
  const count = chosen.length;
  const toImageX = task.width / detectWidth;
  const toImageY = task.height / detectHeight;
  const out: ImageFeatures = { imageIndex: task.imageIndex, count, xy: new Float32Array(2 * count), scale: new Float32Array(count), angle: new Float32Array(count), descriptors: new Uint8Array(count * bytes), descriptorBytes: bytes, rgb: new Uint8Array(3 * count) };
  for (let k = 0; k < count; k++) {
    const i = chosen[k];
    out.xy[2 * k] = (x[i] + 0.5) * toImageX;
    out.xy[2 * k + 1] = (y[i] + 0.5) * toImageY;
    out.scale[k] = size[i] * toImageX;
    out.angle[k] = angle[i];
    out.descriptors.set(rows.subarray(source[i] * bytes, (source[i] + 1) * bytes), k * bytes);
  }
  keypointColours(out, rgb, task.width, task.height);
  return out;
}

/** One task: the views, and their buffers to transfer rather than copy. */
export function viewsTask(task: ViewsTask): { value: ViewsResult; transfer: TransferListItem[] } {
  const value = detectViews(task);
  return { value, transfer: value.views.flatMap((v) => [v.xy.buffer, v.scale.buffer, v.angle.buffer, v.descriptors.buffer, v.rgb.buffer] as ArrayBuffer[]) };
}
