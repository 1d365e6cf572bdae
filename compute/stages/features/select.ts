/**
 * @module Keep the strongest keypoints while spreading them over the image: grid bucketing
 * with a per-cell quota, then the strongest leftovers (the cheap cousin of adaptive non-maximal
 * suppression, Brown et al. CVPR 2005). Without it, AKAZE's strongest responses cluster on a
 * few high-contrast regions and the pose is poorly constrained elsewhere.
 */

/** Indices (ascending) of at most `maxCount` keypoints from x, y, response, over a w×h image. */
export function selectSpread(x: Float32Array, y: Float32Array, response: Float32Array, width: number, height: number, maxCount: number, cellsPerSide = 16): Uint32Array {
  const n = response.length;
  if (n <= maxCount) return Uint32Array.from({ length: n }, (_, i) => i);
  const order = Uint32Array.from({ length: n }, (_, i) => i).sort((a, b) => response[b] - response[a]);
  const cellW = width / cellsPerSide;
  const cellH = height / cellsPerSide;
  const quota = Math.ceil(maxCount / (cellsPerSide * cellsPerSide));
  const perCell = new Uint32Array(cellsPerSide * cellsPerSide); // keypoints taken per cell
  const taken = new Uint8Array(n); // 1 when keypoint i is kept
  let count = 0;
  for (let k = 0; k < n && count < maxCount; k++) {
    const i = order[k];
    const cx = Math.min(cellsPerSide - 1, Math.max(0, Math.floor(x[i] / cellW)));
    const cy = Math.min(cellsPerSide - 1, Math.max(0, Math.floor(y[i] / cellH)));
    if (perCell[cy * cellsPerSide + cx] < quota) {
      perCell[cy * cellsPerSide + cx]++;
      taken[i] = 1;
      count++;
    }
  }
  // Cells with little texture leave quota unused: fill with the strongest remaining anywhere.
  for (let k = 0; k < n && count < maxCount; k++) {
    if (!taken[order[k]]) {
      taken[order[k]] = 1;
      count++;
    }
  }
  const kept = new Uint32Array(count);
  for (let i = 0, j = 0; i < n; i++) if (taken[i]) kept[j++] = i;
  return kept;
}
