/**
 * @module Photometric alignment of one keypoint's patch to a reference patch of the same
 * track: Lucas–Kanade with an affine warp (Baker & Matthews, "Lucas-Kanade 20 years on", IJCV
 * 2004, the forward-additive form), on zero-mean unit-variance intensities so that exposure and
 * gain differences between photos cancel. The warp starts from the similarity the two
 * keypoints' scales and orientations give, and the patch is sampled on the pyramid level whose
 * pixels match its scale, so a coarse keypoint is aligned on a correspondingly smoothed image.
 */
import { sampleAt, sampleWithGradient, type Pyramid } from "./pyramid.js";

export interface AlignOptions {
  /** Patch half-width in samples: (2·radius + 1)² samples. */
  patchRadius: number;
  maxIterations: number;
  /** Lowest zero-normalised cross-correlation of the aligned patches to accept the result. */
  minZncc: number;
  /** Largest accepted shift, in pixels of the level the patch was aligned on. */
  maxShiftLevelPx: number;
  /** Lowest standard deviation (grey levels) of a reference patch: flatter ones fix no position. */
  minContrast: number;
}

/** Sample offsets (level-0 pixels of the reference image) of a patch of `spacing`. */
export function patchOffsets(radius: number): Float32Array {
  const side = 2 * radius + 1;
  const out = new Float32Array(2 * side * side);
  let k = 0;
  for (let j = -radius; j <= radius; j++) {
    for (let i = -radius; i <= radius; i++) {
      out[k++] = i;
      out[k++] = j;
    }
  }
  return out;
}

/** The pyramid level whose pixel matches `spacing` level-0 pixels (its pixel ≤ spacing < twice it). */
export function levelFor(spacing: number, levels: number): number {
  return Math.max(0, Math.min(levels - 1, Math.floor(Math.log2(Math.max(1, spacing)))));
}

/**
 * The reference patch around (x, y), `spacing` level-0 pixels between samples, normalised to
 * zero mean and unit variance into `out`; false when it leaves the image or is too flat.
 */
export function referencePatch(pyramid: Pyramid, x: number, y: number, spacing: number, offsets: Float32Array, minContrast: number, out: Float32Array): boolean {
  const level = levelFor(spacing, pyramid.length);
  const n = offsets.length / 2;
  let sum = 0;
  let sumSq = 0;
  for (let k = 0; k < n; k++) {
    const v = sampleAt(pyramid, level, x + spacing * offsets[2 * k], y + spacing * offsets[2 * k + 1]);
    if (Number.isNaN(v)) return false;
    out[k] = v;
    sum += v;
    sumSq += v * v;
  }
  const mean = sum / n;
  const std = Math.sqrt(Math.max(0, sumSq / n - mean * mean));
  if (std < minContrast) return false;
  for (let k = 0; k < n; k++) out[k] = (out[k] - mean) / std;
  return true;
}

/** A step below this (pixels of the level aligned on) ends the iterations: far below the keypoints' noise. */
const CONVERGED_LEVEL_PX = 0.005;

export type AlignOutcome = "aligned" | "outside" | "diverged" | "dissimilar";

/** Scratch arrays, reused between calls of one thread. */
export interface AlignScratch {
  values: Float32Array;
  gx: Float32Array;
  gy: Float32Array;
  /** One sample's value and gradient. */
  sample: Float64Array;
}

export function alignScratch(radius: number): AlignScratch {
  const n = (2 * radius + 1) ** 2;
  return { values: new Float32Array(n), gx: new Float32Array(n), gy: new Float32Array(n), sample: new Float64Array(3) };
}

/** Samples the warped patch and its gradients (level-0 units); its mean and std, or null outside the image. */
function sampleWarped(pyramid: Pyramid, level: number, x: number, y: number, warp: Float64Array, spacing: number, offsets: Float32Array, s: AlignScratch): { mean: number; std: number } | null {
  const n = offsets.length / 2;
  const sample = s.sample;
  let sum = 0;
  let sumSq = 0;
  for (let k = 0; k < n; k++) {
    const u = spacing * offsets[2 * k];
    const v = spacing * offsets[2 * k + 1];
    const px = x + warp[0] + warp[2] * u + warp[3] * v;
    const py = y + warp[1] + warp[4] * u + warp[5] * v;
    if (!sampleWithGradient(pyramid, level, px, py, sample)) return null;
    const c = sample[0];
    s.values[k] = c;
    s.gx[k] = sample[1];
    s.gy[k] = sample[2];
    sum += c;
    sumSq += c * c;
  }
  const mean = sum / n;
  return { mean, std: Math.sqrt(Math.max(1e-12, sumSq / n - mean * mean)) };
}

/** Solves the 6×6 normal equations H·δ = b in place (Gaussian elimination with partial pivoting); false when singular. */
function solve6(H: Float64Array, b: Float64Array): boolean {
  for (let c = 0; c < 6; c++) {
    let pivot = c;
    for (let r = c + 1; r < 6; r++) if (Math.abs(H[6 * r + c]) > Math.abs(H[6 * pivot + c])) pivot = r;
    if (Math.abs(H[6 * pivot + c]) < 1e-12) return false;
    if (pivot !== c) {
      for (let k = 0; k < 6; k++) [H[6 * c + k], H[6 * pivot + k]] = [H[6 * pivot + k], H[6 * c + k]];
      [b[c], b[pivot]] = [b[pivot], b[c]];
    }
    for (let r = c + 1; r < 6; r++) {
      const f = H[6 * r + c] / H[6 * c + c];
      for (let k = c; k < 6; k++) H[6 * r + k] -= f * H[6 * c + k];
      b[r] -= f * b[c];
    }
  }
  for (let r = 5; r >= 0; r--) {
    let v = b[r];
    for (let k = r + 1; k < 6; k++) v -= H[6 * r + k] * b[k];
    b[r] = v / H[6 * r + r];
  }
  return true;
}

/** The pyramid level a patch of `spacing` is aligned on, at the starting warp's scale. */
export function alignLevel(pyramid: Pyramid, spacing: number, warp: Float64Array): number {
  const scale = Math.sqrt(Math.abs(warp[2] * warp[5] - warp[3] * warp[4]));
  return levelFor(spacing * scale, pyramid.length);
}

/**
 * Aligns the patch around (x, y) in `pyramid` to `reference` (sampled with `spacing` in its
 * own image). `warp` holds (tx, ty, m11, m12, m21, m22), the map from reference offsets to this
 * image's offsets, and is refined in place; the refined keypoint is (x + tx, y + ty).
 */
export function alignPatch(pyramid: Pyramid, x: number, y: number, reference: Float32Array, spacing: number, offsets: Float32Array, warp: Float64Array, options: AlignOptions, s: AlignScratch): AlignOutcome {
  const level = alignLevel(pyramid, spacing, warp);
  const levelPx = 1 << level;
  const n = offsets.length / 2;
  const H = new Float64Array(36);
  const b = new Float64Array(6);
  const J = new Float64Array(6);
  let cost = Infinity;
  for (let iteration = 0; iteration < options.maxIterations; iteration++) {
    const stats = sampleWarped(pyramid, level, x, y, warp, spacing, offsets, s);
    if (stats === null) return "outside";
    H.fill(0);
    b.fill(0);
    cost = 0;
    const inv = 1 / stats.std;
    for (let k = 0; k < n; k++) {
      const r = (s.values[k] - stats.mean) * inv - reference[k];
      cost += r * r;
      const gx = s.gx[k] * inv;
      const gy = s.gy[k] * inv;
      const u = spacing * offsets[2 * k];
      const v = spacing * offsets[2 * k + 1];
      J[0] = gx; J[1] = gy; J[2] = gx * u; J[3] = gx * v; J[4] = gy * u; J[5] = gy * v;
      for (let p = 0; p < 6; p++) {
        b[p] -= J[p] * r;
        for (let q = p; q < 6; q++) H[6 * p + q] += J[p] * J[q];
      }
    }
    for (let p = 0; p < 6; p++) {
      for (let q = 0; q < p; q++) H[6 * p + q] = H[6 * q + p];
      H[6 * p + p] *= 1 + 1e-4;
    }
    if (!solve6(H, b)) return "diverged";
    for (let p = 0; p < 6; p++) warp[p] += b[p];
    if (Math.hypot(warp[0], warp[1]) > options.maxShiftLevelPx * levelPx) return "diverged";
    if (Math.hypot(b[0], b[1]) < CONVERGED_LEVEL_PX * levelPx) break;
  }
  // ZNCC of unit-variance patches: mean squared difference = 2 (1 − ZNCC).
  const zncc = 1 - cost / (2 * n);
  return zncc >= options.minZncc ? "aligned" : "dissimilar";
}
