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
import { allocKeypoints, detectionGray, packKeypoints, type Loaded } from "./detect.js";
import { loadOpenCV } from "./opencv.js";

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
  /** Which of the views (indices into viewAngles(tilt)) this task detects; all when absent. */
  viewIndices?: number[];
}

export type ViewsResult = SimulatedViews;

/** The view directions φ (radians) for a tilt, ASIFT's sampling: a step of 72°/t over [0°, 180°). */
export function viewAngles(tilt: number): number[] {
  const step = 72 / tilt;
  const angles: number[] = [];
  for (let degrees = 0; degrees < 180 - 1e-9; degrees += step) angles.push((degrees * Math.PI) / 180);
  return angles;
}

/** How one view is made from the detection image, and the affine map between their pixels. */
export interface ViewGeometry {
  /** warpAffine's 2×3 rotation onto a canvas of fullWidth × fullHeight holding the whole image. */
  rotate: Float64Array;
  fullWidth: number;
  fullHeight: number;
  /** The view's size: the canvas resized by 1/t along x (× `shrink` in both). */
  canvasWidth: number;
  canvasHeight: number;
  /**
   * Detection pixels → view pixels, row-major 2×3, both with pixel centres at integers (OpenCV's):
   * the rotation, then the resize, which aligns pixel centres (u' = r·(u + ½) − ½).
   */
  forward: Float64Array;
}

export function viewGeometry(phi: number, tilt: number, width: number, height: number, shrink: number): ViewGeometry {
  const c = Math.cos(phi);
  const s = Math.sin(phi);
  // The image's extent, pixel centres at integers: [−½, width − ½] × [−½, height − ½].
  const cornersX = [-0.5, width - 0.5, -0.5, width - 0.5];
  const cornersY = [-0.5, -0.5, height - 0.5, height - 0.5];
  const xs = cornersX.map((x, k) => c * x - s * cornersY[k]);
  const ys = cornersX.map((x, k) => s * x + c * cornersY[k]);
  const minX = Math.min(...xs);
  const minY = Math.min(...ys);
  const fullWidth = Math.max(1, Math.ceil(Math.max(...xs) - minX));
  const fullHeight = Math.max(1, Math.ceil(Math.max(...ys) - minY));
  const canvasWidth = Math.max(1, Math.round((fullWidth * shrink) / tilt));
  const canvasHeight = Math.max(1, Math.round(fullHeight * shrink));
  const rx = canvasWidth / fullWidth;
  const ry = canvasHeight / fullHeight;
  return {
    // The extent's low edges land on the canvas's: u = c·x − s·y − minX − ½.
    rotate: Float64Array.of(c, -s, -minX - 0.5, s, c, -minY - 0.5),
    fullWidth,
    fullHeight,
    canvasWidth,
    canvasHeight,
    forward: Float64Array.of(rx * c, -rx * s, -rx * minX - 0.5, ry * s, ry * c, -ry * minY - 0.5),
  };
}

const { cv } = await loadOpenCV();

function detectViews(task: ViewsTask): ViewsResult {
  const { detectWidth, detectHeight } = task.pixels;
  const { gray, rgb } = detectionGray(task.pixels);
  const image = new cv.Mat(detectHeight, detectWidth, cv.CV_8UC1);
  image.data.set(gray);
  const views: ImageFeatures[] = [];
  try {
    const angles = viewAngles(task.tilt);
    for (const phi of task.viewIndices ? task.viewIndices.map((i) => angles[i]) : angles) {
      const whole = viewGeometry(phi, task.tilt, detectWidth, detectHeight, 1);
      // Keep the view no larger than the plain detection (OpenCV.js's heap, docs/DESIGN.md).
      const shrink = Math.min(1, Math.sqrt((detectWidth * detectHeight) / (whole.canvasWidth * whole.canvasHeight)));
      views.push(detectView(image, shrink < 1 ? viewGeometry(phi, task.tilt, detectWidth, detectHeight, shrink) : whole, task, rgb));
    }
  } finally {
    image.delete();
  }
  return { imageIndex: task.imageIndex, views };
}

function detectView(image: InstanceType<typeof cv.Mat>, view: ViewGeometry, task: ViewsTask, rgb: Loaded["rgb"]): ImageFeatures {
  const { detectWidth, detectHeight } = task.pixels;
  const rotate = cv.matFromArray(2, 3, cv.CV_64F, Array.from(view.rotate));
  const rotated = new cv.Mat();
  const blurred = new cv.Mat();
  const squeezed = new cv.Mat();
  const mask = new cv.Mat();
  const keypoints = new cv.KeyPointVector();
  const descriptors = new cv.Mat();
  const akaze = new cv.AKAZE();
  try {
    // Rotate at full resolution, blur along each axis by what its resize drops (the paper's
    // 0.8·√(t² − 1) along the squeeze), then resize.
    cv.warpAffine(image, rotated, rotate, new cv.Size(view.fullWidth, view.fullHeight), cv.INTER_LINEAR, cv.BORDER_CONSTANT, new cv.Scalar(0));
    const sigma = (ratio: number) => 0.8 * Math.sqrt(Math.max(0, 1 / (ratio * ratio) - 1)) + 1e-3;
    cv.GaussianBlur(rotated, blurred, new cv.Size(0, 0), sigma(view.canvasWidth / view.fullWidth), sigma(view.canvasHeight / view.fullHeight));
    cv.resize(blurred, squeezed, new cv.Size(view.canvasWidth, view.canvasHeight), 0, 0, cv.INTER_AREA);
    akaze.setThreshold(task.threshold);
    akaze.setNOctaveLayers(task.octaveLayers);
    akaze.detectAndCompute(squeezed, mask, keypoints, descriptors);
    return mapBack(keypoints, descriptors, view.forward, task, rgb, detectWidth, detectHeight);
  } finally {
    for (const obj of [rotate, rotated, blurred, squeezed, mask, keypoints, descriptors, akaze]) obj.delete();
  }
}

/** Keypoints of a view in the image's own pixels, those whose window stays inside the image, spread-selected. */
function mapBack(keypoints: InstanceType<typeof cv.KeyPointVector>, descriptors: InstanceType<typeof cv.Mat>, forward: Float64Array, task: ViewsTask, rgb: Loaded["rgb"], detectWidth: number, detectHeight: number): ImageFeatures {
  const [a, b, tx, d, e, ty] = forward;
  const det = a * e - b * d;
  const n = keypoints.size();
  const found = allocKeypoints(n);
  // The view squeezes by up to 1/min singular value of the forward map: a window of radius r view
  // pixels reaches r / that far in detection pixels.
  const minStretch = Math.min(Math.hypot(a, d), Math.hypot(b, e));
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
    const k = found.count++;
    found.x[k] = px;
    found.y[k] = py;
    found.size[k] = kp.size / Math.sqrt(Math.abs(det));
    found.angle[k] = Math.atan2(-d * ca + a * sa, e * ca - b * sa);
    found.response[k] = kp.response;
    found.row[k] = i;
  }
  return packKeypoints(found, descriptors, task, task.maxPerView, rgb, detectWidth, detectHeight);
}

/** One task: the views, and their buffers to transfer rather than copy. */
export function viewsTask(task: ViewsTask): { value: ViewsResult; transfer: TransferListItem[] } {
  const value = detectViews(task);
  return { value, transfer: value.views.flatMap((v) => [v.xy.buffer, v.scale.buffer, v.angle.buffer, v.descriptors.buffer, v.rgb.buffer] as ArrayBuffer[]) };
}
