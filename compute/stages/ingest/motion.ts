/**
 * @module Image motion between two small grey frames (flat Uint8Arrays), for video keyframe
 * windows: the global translation by coarse-to-fine exhaustive block matching, and the mean
 * displacement of textured blocks (a coarse block-matching optical flow). The global shift alone
 * misses orbits, where the camera keeps the object centred while its surface and the
 * background sweep past; the block mean measures both.
 */

/** 2× box downsample (floor of odd sizes). */
export function halve(gray: Uint8Array, width: number, height: number): { gray: Uint8Array; width: number; height: number } {
  const w = width >> 1;
  const h = height >> 1;
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = 2 * y * width + 2 * x;
      out[y * w + x] = (gray[i] + gray[i + 1] + gray[i + width] + gray[i + width + 1] + 2) >> 2;
    }
  return { gray: out, width: w, height: h };
}

/** Mean absolute difference of `b` shifted by (dx, dy) against `a`, over their overlap (sampled every `step` px). */
function meanAbsDiff(a: Uint8Array, b: Uint8Array, width: number, height: number, dx: number, dy: number, step: number): number {
  const x0 = Math.max(0, -dx);
  const x1 = Math.min(width, width - dx);
  const y0 = Math.max(0, -dy);
  const y1 = Math.min(height, height - dy);
  let sad = 0;
  let n = 0;
  for (let y = y0; y < y1; y += step) {
    const rowA = y * width;
    const rowB = (y + dy) * width + dx;
    for (let x = x0; x < x1; x += step) {
      sad += Math.abs(a[rowA + x] - b[rowB + x]);
      n++;
    }
  }
  return n > 0 ? sad / n : Infinity;
}

/**
 * Translation (dx, dy) in pixels of `b` relative to `a` (content at a(x) appears at b(x + d)),
 * by exhaustive search at the coarsest pyramid level (±`maxShift` of the width) and ±1 px
 * refinement at each finer level.
 */
export function estimateTranslation(a: Uint8Array, b: Uint8Array, width: number, height: number, maxShift = 0.3): [number, number] {
  const pyramid: Array<{ a: Uint8Array; b: Uint8Array; width: number; height: number }> = [{ a, b, width, height }];
  while (pyramid[pyramid.length - 1].width > 48) {
    const top = pyramid[pyramid.length - 1];
    const ha = halve(top.a, top.width, top.height);
    const hb = halve(top.b, top.width, top.height);
    pyramid.push({ a: ha.gray, b: hb.gray, width: ha.width, height: ha.height });
  }
  let best: [number, number] = [0, 0];
  for (let level = pyramid.length - 1; level >= 0; level--) {
    const { a: la, b: lb, width: w, height: h } = pyramid[level];
    const coarsest = level === pyramid.length - 1;
    const radius = coarsest ? Math.ceil(maxShift * w) : 1;
    const [cx, cy] = coarsest ? [0, 0] : [best[0] * 2, best[1] * 2];
    let bestCost = Infinity;
    for (let dy = cy - radius; dy <= cy + radius; dy++)
      for (let dx = cx - radius; dx <= cx + radius; dx++) {
        if (Math.abs(dx) > w / 2 || Math.abs(dy) > h / 2) continue;
        const cost = meanAbsDiff(la, lb, w, h, dx, dy, 1);
        if (cost < bestCost) {
          bestCost = cost;
          best = [dx, dy];
        }
      }
  }
  return best;
}

/**
 * Mean displacement (pixels) of the textured `block`×`block` blocks of `a` found in `b`, each
 * searched ±`radius` around the global shift (estimateTranslation) and around zero, so parts
 * moving against the dominant motion (an orbited object against its background) are found.
 * Flat blocks (grey-level variance below 20) are skipped: their best match is arbitrary.
 */
export function meanBlockMotion(a: Uint8Array, b: Uint8Array, width: number, height: number, block = 16, radius = 4): number {
  const [gx, gy] = estimateTranslation(a, b, width, height);
  // A small global shift lies inside one widened window around zero; a large one gets its own.
  const globalShift = Math.max(Math.abs(gx), Math.abs(gy));
  const centres: Array<[number, number]> = globalShift > radius ? [[gx, gy], [0, 0]] : [[0, 0]];
  const span = globalShift > radius ? radius : radius + globalShift;
  let sum = 0;
  let blocks = 0;
  for (let y0 = 0; y0 + block <= height; y0 += block) {
    for (let x0 = 0; x0 + block <= width; x0 += block) {
      // Blocks that the global shift moves out of the frame have no counterpart in `b`.
      if (x0 + gx < 0 || y0 + gy < 0 || x0 + gx + block > width || y0 + gy + block > height) continue;
      if (blockVariance(a, width, x0, y0, block) < 20) continue;
      let bestCost = Infinity;
      let best = 0;
      for (const [cx, cy] of centres) {
        for (let dy = cy - span; dy <= cy + span; dy++) {
          if (y0 + dy < 0 || y0 + dy + block > height) continue;
          for (let dx = cx - span; dx <= cx + span; dx++) {
            if (x0 + dx < 0 || x0 + dx + block > width) continue;
            const cost = blockCost(a, b, width, x0, y0, dx, dy, block);
            const length = Math.hypot(dx, dy);
            // Ties (repetitive texture) go to the smaller motion.
            if (cost < bestCost || (cost === bestCost && length < best)) {
              bestCost = cost;
              best = length;
            }
          }
        }
      }
      if (bestCost < Infinity) {
        sum += best;
        blocks++;
      }
    }
  }
  return blocks > 0 ? sum / blocks : Math.hypot(gx, gy);
}

/** Sum of absolute differences of a block of `a` at (x0, y0) and `b` shifted by (dx, dy), every other pixel. */
function blockCost(a: Uint8Array, b: Uint8Array, width: number, x0: number, y0: number, dx: number, dy: number, block: number): number {
  let cost = 0;
  for (let y = 0; y < block; y += 2) {
    const rowA = (y0 + y) * width + x0;
    const rowB = (y0 + y + dy) * width + x0 + dx;
    for (let x = 0; x < block; x += 2) cost += Math.abs(a[rowA + x] - b[rowB + x]);
  }
  return cost;
}

function blockVariance(gray: Uint8Array, width: number, x0: number, y0: number, block: number): number {
  let sum = 0;
  let sumSq = 0;
  for (let y = y0; y < y0 + block; y++)
    for (let x = x0; x < x0 + block; x++) {
      const v = gray[y * width + x];
      sum += v;
      sumSq += v * v;
    }
  const n = block * block;
  return sumSq / n - (sum / n) ** 2;
}
