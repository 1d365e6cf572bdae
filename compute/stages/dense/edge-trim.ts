/**
 * @module Trimming foreground fattening off a filtered depth map.
 *
 * A matching window that straddles a depth edge scores best at the depth of its textured side:
 * next to a roof against a plain sky (or an object against a studio's black backdrop) the sky
 * pixels within the window's reach take the roof's depth, with a low cost, and every view does
 * the same, so the geometric filter and fusion keep the band. The bilateral weights do not stop
 * it: NCC is scale-free, and the edge's few down-weighted samples still hold all the window's
 * variance. (The foreground fattening of window-based stereo, Scharstein & Szeliski, IJCV 2002;
 * adaptive support weights, Yoon & Kweon, CVPR 2005, narrow it but do not remove it.) Rendered
 * from a new camera the band is a halo of sky-coloured surface around every silhouette.
 *
 * Such a pixel has no texture of its own that carries its depth: it belongs to the flat region
 * beyond the edge, and that region holds no depth. So, starting from the sky's depthless pixels
 * (skyPixels), a depth pixel is trimmed when it is flat (its 4-neighbours within `flatGrey`) and
 * of the same grey as the depthless neighbour the trim comes from (within `sameGrey`); the trim
 * then goes on from it, at most `maxSteps` pixels, about the reach of the windows. It stops at the
 * edge, where the grey changes.
 *
 * The trim starts from the sky only (skyPixels). From every depthless region joined to the border
 * it also took the scattered depths of plain gravel beside the unmatched ground, and from a
 * studio's black backdrop it ate into the object's shadows (docs/decisions.md, "The sky's rim is
 * trimmed from the depth maps"). A hole inside a plain wall is no seed, so the wall keeps its
 * depths around it; a plain wall as blue as a sky and joined to the top border by its unmatched
 * part loses a strip up to `maxSteps` wide beside that part.
 */

export interface EdgeTrimOptions {
  /** Farthest trim from a depthless pixel, in pixels of the map (0: off; at most 254). */
  maxSteps: number;
  /** Largest grey difference (0..1) between a trimmed pixel and the depthless one it joins. */
  sameGrey: number;
  /** Largest grey difference (0..1) between a trimmed pixel and any of its 4-neighbours. */
  flatGrey: number;
}

/** Zeroes, in place, the depth of flat pixels joined to a seed (a depthless pixel) by the same grey; returns how many. */
export function trimFattening(depth: Float32Array, grey: Float32Array, width: number, height: number, seeds: Int32Array, options: EdgeTrimOptions): number {
  // Steps are counted in bytes, 255 meaning unreached.
  const maxSteps = Math.min(254, Math.floor(options.maxSteps));
  if (!(maxSteps > 0)) return 0;
  const n = width * height;
  // Steps from the nearest depthless pixel along the trim (0 for depthless pixels, 255 unreached).
  const step = new Uint8Array(n).fill(255);
  const queue = new Int32Array(n);
  let head = 0;
  let tail = 0;
  for (const p of seeds) {
    step[p] = 0;
    queue[tail++] = p;
  }
  let trimmed = 0;
  /** Trims p when it has depth, is flat and has q's grey; the trim then goes on from it. */
  const trim = (p: number, q: number) => {
    if (step[p] !== 255 || !(depth[p] > 0)) return;
    if (Math.abs(grey[p] - grey[q]) > options.sameGrey || !isFlat(grey, p, width, height, options.flatGrey)) return;
    depth[p] = 0;
    step[p] = step[q] + 1;
    queue[tail++] = p;
    trimmed++;
  };
  while (head < tail) {
    const q = queue[head++];
    if (step[q] >= maxSteps) continue;
    const x = q % width;
    if (x > 0) trim(q - 1, q);
    if (x < width - 1) trim(q + 1, q);
    if (q >= width) trim(q - width, q);
    if (q < n - width) trim(q + width, q);
  }
  return trimmed;
}

/**
 * The sky: depthless pixels of sky colour (luma at least SKY_LUMA, blue not below red: a clear or
 * overcast sky, not grass, gravel or a dark backdrop) joined to the photo's top border through
 * such pixels (photos are upright after ingest).
 */
export function skyPixels(depth: Float32Array, rgb: Uint8Array, width: number, height: number): Int32Array {
  const n = width * height;
  const reached = new Uint8Array(n);
  const queue = new Int32Array(n);
  let head = 0;
  let tail = 0;
  const reach = (p: number) => {
    if (reached[p] || depth[p] > 0) return;
    const r = rgb[3 * p];
    const b = rgb[3 * p + 2];
    if (b < r || 0.299 * r + 0.587 * rgb[3 * p + 1] + 0.114 * b < SKY_LUMA) return;
    reached[p] = 1;
    queue[tail++] = p;
  };
  for (let x = 0; x < width; x++) reach(x);
  while (head < tail) {
    const q = queue[head++];
    const x = q % width;
    if (x > 0) reach(q - 1);
    if (x < width - 1) reach(q + 1);
    if (q >= width) reach(q - width);
    if (q < n - width) reach(q + width);
  }
  return queue.subarray(0, tail);
}

const SKY_LUMA = 110;

function isFlat(grey: Float32Array, p: number, width: number, height: number, flatGrey: number): boolean {
  const x = p % width;
  const g = grey[p];
  if (x > 0 && Math.abs(grey[p - 1] - g) > flatGrey) return false;
  if (x < width - 1 && Math.abs(grey[p + 1] - g) > flatGrey) return false;
  if (p >= width && Math.abs(grey[p - width] - g) > flatGrey) return false;
  if (p < width * (height - 1) && Math.abs(grey[p + width] - g) > flatGrey) return false;
  return true;
}
