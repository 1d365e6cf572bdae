/**
 * @module Detection inside a worker thread of the features stage (worker.ts, or the pipeline's
 * shared front workers) on pixels decoded by the calling thread (decode.ts): one opencv-js
 * instance per thread, loaded on import, detecting AKAZE keypoints with binary MLDB
 * descriptors (Alcantarilla et al., BMVC 2013) on the image downscaled to at most
 * `maxImageSide`. AKAZE rather than ORB: its nonlinear scale space keeps
 * edges sharp, so keypoints localise better and survive larger scale changes than ORB's
 * FAST-on-a-pyramid, which matters for triangulation accuracy; MLDB descriptors are still
 * binary (Hamming matching). Every cv object is deleted in `finally`: wasm memory is not
 * garbage collected and the heap is limited to ~1 GiB.
 */
import type { ImageFeatures } from "../../scene/index.js";
import type { TransferListItem } from "node:worker_threads";
import { loadOpenCV, type CV } from "./opencv.js";
import type { DetectionPixels } from "./decode.js";
import { upsample2x } from "./scale.js";
import { selectSpread } from "./select.js";

export interface FeatureTask {
  imageIndex: number;
  /** The image's own size (keypoints are reported in its pixels). */
  width: number;
  height: number;
  /** Decoded on the calling thread (decode.ts); its buffer is transferred. */
  pixels: DetectionPixels;
  maxFeatures: number;
  threshold: number;
  /** AKAZE sublevels per octave. */
  octaveLayers: number;
}

/** The scene's ImageFeatures plus what the report needs to know of the detection. */
export interface FeatureResult extends ImageFeatures {
  detected: number;
  detectWidth: number;
  /** AKAZE threshold finally used (lowered for low-contrast images). */
  threshold: number;
}

/** Bytes of a full-size AKAZE MLDB descriptor (486 bits). */
const MLDB_BYTES = 61;

/** Below this AKAZE responds to sensor noise. */
const MIN_THRESHOLD = 0.00002;

const { cv } = await loadOpenCV();

/** Bytes of this thread's OpenCV.js heap: it grows with the largest image and never shrinks. */
export function openCvHeapBytes(): number {
  return (cv as unknown as { HEAP8: Int8Array }).HEAP8.buffer.byteLength;
}

export interface Loaded {
  /** Grey image at detection size. */
  gray: Uint8Array;
  /** RGB the keypoint colours come from, and its size (the image's own when upsampling). */
  rgb: { data: Uint8Array; width: number; height: number };
}

/** BT.601 luma of the decoded pixels, upsampled 2× when the detection asks for it. */
export function detectionGray(pixels: DetectionPixels): Loaded {
  const { rgb, width, height } = pixels;
  const luma = new Uint8Array(width * height);
  for (let i = 0, j = 0; i < luma.length; i++, j += 3) luma[i] = (77 * rgb[j] + 150 * rgb[j + 1] + 29 * rgb[j + 2]) >> 8;
  return { gray: pixels.factor === 2 ? upsample2x(luma, width, height) : luma, rgb: { data: rgb, width, height } };
}

function detect(task: FeatureTask): FeatureResult {
  const { detectWidth, detectHeight } = task.pixels;
  const { gray, rgb } = detectionGray(task.pixels);
  const image = new cv.Mat(detectHeight, detectWidth, cv.CV_8UC1);
  const mask = new cv.Mat();
  try {
    image.data.set(gray);
    // Low-contrast images (smooth textures, haze) give few responses above the default
    // threshold: when fewer than a quarter of the budget are found, detect again at the lowest
    // threshold and keep what it finds. Straight to the lowest, not through a middle step that
    // ended once a quarter was found: on the rendered 200-photo survey that step left 3 photos
    // at ~2,040 keypoints where their neighbours went one step further to ~3,300, and those 3
    // were among its worst cameras (0.434° against a median of 0.07°). (Tried: retrying until
    // half the budget, keeping that many from the lowered detection: the spread selection then
    // traded strong keypoints for weak ones, and synthetic/smoke went from 0.03° to 1.3°. Half
    // without that cap, on the temple ring at 2×: 3.6k → 4.8k keypoints per image, ~1.8× the
    // matching work, for the same 16/16 and 0.9° median.)
    for (const threshold of [task.threshold, Math.min(task.threshold, MIN_THRESHOLD)]) {
      const keypoints = new cv.KeyPointVector();
      const descriptors = new cv.Mat();
      const akaze = new cv.AKAZE();
      try {
        akaze.setThreshold(threshold);
        akaze.setNOctaveLayers(task.octaveLayers);
        akaze.detectAndCompute(image, mask, keypoints, descriptors);
        if (keypoints.size() >= task.maxFeatures / 4 || threshold <= MIN_THRESHOLD) {
          return { ...pack(task, keypoints, descriptors, rgb, detectWidth, detectHeight), threshold };
        }
      } finally {
        for (const obj of [keypoints, descriptors, akaze]) obj.delete();
      }
    }
    throw new Error("features: unreachable, the lowest threshold always returns");
  } finally {
    image.delete();
    mask.delete();
  }
}

/** Keypoints in detection pixels (OpenCV's: centres at integers), angles in radians, and the descriptor row each one has. */
export interface DetectedKeypoints {
  count: number;
  x: Float32Array;
  y: Float32Array;
  size: Float32Array;
  angle: Float32Array;
  response: Float32Array;
  row: Int32Array;
}

export function allocKeypoints(capacity: number): DetectedKeypoints {
  return { count: 0, x: new Float32Array(capacity), y: new Float32Array(capacity), size: new Float32Array(capacity), angle: new Float32Array(capacity), response: new Float32Array(capacity), row: new Int32Array(capacity) };
}

function pack(task: FeatureTask, keypoints: InstanceType<CV["KeyPointVector"]>, descriptors: InstanceType<CV["Mat"]>, rgb: Loaded["rgb"], detectWidth: number, detectHeight: number): Omit<FeatureResult, "threshold"> {
  const n = keypoints.size();
  const found = allocKeypoints(n);
  for (let i = 0; i < n; i++) {
    const kp = keypoints.get(i);
    found.x[i] = kp.pt.x;
    found.y[i] = kp.pt.y;
    found.size[i] = kp.size;
    found.angle[i] = (kp.angle * Math.PI) / 180;
    found.response[i] = kp.response;
    found.row[i] = i;
  }
  found.count = n;
  return { ...packKeypoints(found, descriptors, task, task.maxFeatures, rgb, detectWidth, detectHeight), detected: n, detectWidth };
}

/**
 * At most `maxCount` of the keypoints, spread over the image (select.ts), in the image's own
 * pixels (centres at +0.5, camera.ts), with their descriptors and colours.
 */
export function packKeypoints(found: DetectedKeypoints, descriptors: InstanceType<CV["Mat"]>, image: { imageIndex: number; width: number; height: number }, maxCount: number, rgb: Loaded["rgb"], detectWidth: number, detectHeight: number): ImageFeatures {
  const { count: n } = found;
  const kept = selectSpread(found.x.subarray(0, n), found.y.subarray(0, n), found.response.subarray(0, n), detectWidth, detectHeight, maxCount);
  // An image without keypoints gives an empty Mat (0 columns); keep the MLDB row size anyway.
  const bytes = descriptors.cols > 0 ? descriptors.cols : MLDB_BYTES;
  const source = descriptors.data as Uint8Array;
  const scaleX = image.width / detectWidth;
  const scaleY = image.height / detectHeight;
  const count = kept.length;
  const out: ImageFeatures = { imageIndex: image.imageIndex, count, xy: new Float32Array(2 * count), scale: new Float32Array(count), angle: new Float32Array(count), descriptors: new Uint8Array(count * bytes), descriptorBytes: bytes, rgb: new Uint8Array(3 * count) };
  for (let k = 0; k < count; k++) {
    const i = kept[k];
    const row = found.row[i];
    // OpenCV puts pixel centres at integers; the project puts them at +0.5.
    out.xy[2 * k] = (found.x[i] + 0.5) * scaleX;
    out.xy[2 * k + 1] = (found.y[i] + 0.5) * scaleY;
    out.scale[k] = found.size[i] * scaleX;
    out.angle[k] = found.angle[i];
    out.descriptors.set(source.subarray(row * bytes, (row + 1) * bytes), k * bytes);
  }
  keypointColours(out, rgb, image.width, image.height);
  return out;
}

/** Fills `features.rgb` from the decoded pixels at each keypoint (`width` × `height`: the image's own size, the keypoints' unit). */
function keypointColours(features: Pick<ImageFeatures, "count" | "xy" | "rgb">, rgb: Loaded["rgb"], width: number, height: number): void {
  for (let k = 0; k < features.count; k++) {
    const px = Math.min(rgb.width - 1, Math.max(0, Math.floor((features.xy[2 * k] * rgb.width) / width)));
    const py = Math.min(rgb.height - 1, Math.max(0, Math.floor((features.xy[2 * k + 1] * rgb.height) / height)));
    features.rgb.set(rgb.data.subarray(3 * (py * rgb.width + px), 3 * (py * rgb.width + px) + 3), 3 * k);
  }
}

/** One task of the features stage: the result, and the buffers to transfer rather than copy. */
export function detectTask(task: FeatureTask): { value: FeatureResult; transfer: TransferListItem[] } {
  const value = detect(task);
  return { value, transfer: [value.xy.buffer, value.scale.buffer, value.angle.buffer, value.descriptors.buffer, value.rgb.buffer] as ArrayBuffer[] };
}
