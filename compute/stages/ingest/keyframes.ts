/**
 * @module Keyframe selection for video ingest, on small grey frames (flat Uint8Arrays):
 * sharpness by the variance of the Laplacian (Pech-Pacheco et al., ICPR 2000), image motion
 * from motion.ts, and a greedy choice of the sharpest frame per "overlap window" — a window
 * closes once the image has moved `maxMotion` of the frame width since the last keyframe, so
 * consecutive keyframes overlap.
 */

/** Variance of the 4-neighbour Laplacian over the interior of a w×h grey image. */
export function laplacianVariance(gray: Uint8Array, width: number, height: number): number {
  let sum = 0;
  let sumSq = 0;
  let n = 0;
  for (let y = 1; y < height - 1; y++) {
    const row = y * width;
    for (let x = 1; x < width - 1; x++) {
      const i = row + x;
      const lap = gray[i - 1] + gray[i + 1] + gray[i - width] + gray[i + width] - 4 * gray[i];
      sum += lap;
      sumSq += lap * lap;
      n++;
    }
  }
  if (n === 0) return 0;
  const mean = sum / n;
  return sumSq / n - mean * mean;
}

/**
 * Choose keyframes from per-frame sharpness and cumulative motion (fraction of the width,
 * non-decreasing). Greedy over overlap windows: the window after keyframe k holds the frames
 * whose motion since k is at most `maxMotion`; when the window closes, its sharpest frame among
 * those that moved at least half of `maxMotion` becomes the next keyframe (the half keeps
 * spacing even when the sharpest frame sits next to the last one). Returns ascending positions.
 */
export function selectByMotion(sharpness: Float64Array, motion: Float64Array, maxMotion: number): number[] {
  const n = sharpness.length;
  if (n === 0) return [];
  const chosen = [argmaxWhere(sharpness, 0, n, (i) => motion[i] - motion[0] <= maxMotion / 2)];
  for (;;) {
    const last = chosen[chosen.length - 1];
    let end = last + 1;
    while (end < n && motion[end] - motion[last] <= maxMotion) end++;
    if (end >= n) {
      // The tail: keep a final frame only if it adds view (moved at least half a window).
      const tail = argmaxWhere(sharpness, last + 1, n, (i) => motion[i] - motion[last] >= maxMotion / 2);
      if (tail >= 0) chosen.push(tail);
      return chosen;
    }
    let next = argmaxWhere(sharpness, last + 1, end, (i) => motion[i] - motion[last] >= maxMotion / 2);
    if (next < 0) next = end; // A single jump larger than a window: take the frame after it.
    chosen.push(next);
  }
}

/** The sharpest frame in each of `count` equal time windows (for static or slow shots). */
export function selectByTime(sharpness: Float64Array, count: number): number[] {
  const n = sharpness.length;
  const k = Math.min(count, n);
  const chosen: number[] = [];
  for (let w = 0; w < k; w++) chosen.push(argmaxWhere(sharpness, Math.floor((w * n) / k), Math.floor(((w + 1) * n) / k), () => true));
  return chosen;
}

/**
 * Keyframes within [minCount, maxCount]: motion windows, widened until at most maxCount;
 * equal time windows when the camera moved too little to give minCount.
 */
export function selectKeyframes(sharpness: Float64Array, motion: Float64Array, maxMotion: number, minCount: number, maxCount: number): number[] {
  let windowSize = maxMotion;
  let chosen = selectByMotion(sharpness, motion, windowSize);
  while (chosen.length > maxCount) {
    windowSize *= chosen.length / maxCount + 0.05;
    chosen = selectByMotion(sharpness, motion, windowSize);
  }
  if (chosen.length < minCount) chosen = selectByTime(sharpness, Math.min(minCount, maxCount));
  return chosen;
}

function argmaxWhere(values: Float64Array, from: number, to: number, keep: (i: number) => boolean): number {
  let best = -1;
  for (let i = from; i < to; i++) if (keep(i) && (best < 0 || values[i] > values[best])) best = i;
  return best;
}
