/**
 * @module Grey image pyramids for patch alignment (align.ts): level 0 is the image, each next
 * level halves it after a [1 3 3 1]/8 blur, which is centred between the two pixels it merges,
 * so a point at x (pixel centres at integer + 0.5, the keypoints' convention) sits at x / 2^L on
 * level L. Samples are bilinear, in level-0 coordinates.
 */

export interface PyramidLevel {
  data: Float32Array;
  width: number;
  height: number;
  /** Central-difference gradients of `data` in x and y, per level pixel (made by withGradients). */
  gx?: Float32Array;
  gy?: Float32Array;
}

export type Pyramid = PyramidLevel[];

/**
 * Float arrays kept from a finished task for the next one on this thread. A photo's pyramid with
 * gradients is ~60 MB of fresh memory at 2400 px, and first touching fresh pages cost more than
 * building the pyramid (~2.9 ms per MB here: 43 ms to copy a 2400 × 1600 grey image into a new
 * Float32Array, 1 ms into a reused one). Keyed by length: a capture's photos share a size.
 */
const spare = new Map<number, Float32Array[]>();
let spareBytes = 0;
/** At most this much is kept per thread (two pyramids with gradients at 2400 px). */
const MAX_SPARE_BYTES = 160 * 2 ** 20;

/** A float array of `length`, reused when one is spare (its old values are overwritten by the caller). */
function floats(length: number): Float32Array {
  const kept = spare.get(length)?.pop();
  if (!kept) return new Float32Array(length);
  spareBytes -= kept.byteLength;
  return kept;
}

function giveBack(array: Float32Array | undefined): void {
  if (!array || spareBytes + array.byteLength > MAX_SPARE_BYTES) return;
  const list = spare.get(array.length) ?? [];
  list.push(array);
  spare.set(array.length, list);
  spareBytes += array.byteLength;
}

/** Lets the spare arrays go (the calling thread's, when the stage ran there: it lives on after the stage). */
export function dropSpareArrays(): void {
  spare.clear();
  spareBytes = 0;
}

/** Hands a pyramid's arrays back for the next pyramid on this thread; the pyramid must not be read after. */
export function releasePyramid(pyramid: Pyramid): void {
  for (const level of pyramid) {
    giveBack(level.data);
    giveBack(level.gx);
    giveBack(level.gy);
  }
  pyramid.length = 0;
}

/**
 * Halve one level: separable [1 3 3 1]/8 over pixels 2j−1 … 2j+2 (edges clamped). The interior
 * runs without the clamps; each sum is the same expression in the same order, so the same bits.
 */
function halve(level: PyramidLevel): PyramidLevel {
  const { data, width, height } = level;
  const outWidth = Math.max(1, width >> 1);
  const outHeight = Math.max(1, height >> 1);
  const rows = floats(outWidth * height);
  const clampX = (x: number) => (x < 0 ? 0 : x >= width ? width - 1 : x);
  // Output columns whose four taps 2j−1 … 2j+2 all lie inside the row.
  const innerX0 = 1;
  const innerX1 = Math.max(innerX0, Math.min(outWidth, (width - 2) >> 1));
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const out = y * outWidth;
    for (let j = 0; j < Math.min(innerX0, outWidth); j++) {
      const x = 2 * j;
      rows[out + j] = (data[row + clampX(x - 1)] + 3 * data[row + x] + 3 * data[row + clampX(x + 1)] + data[row + clampX(x + 2)]) / 8;
    }
    for (let j = innerX0, i = row + 2 * innerX0; j < innerX1; j++, i += 2) {
      rows[out + j] = (data[i - 1] + 3 * data[i] + 3 * data[i + 1] + data[i + 2]) / 8;
    }
    for (let j = innerX1; j < outWidth; j++) {
      const x = 2 * j;
      rows[out + j] = (data[row + clampX(x - 1)] + 3 * data[row + x] + 3 * data[row + clampX(x + 1)] + data[row + clampX(x + 2)]) / 8;
    }
  }
  const out = floats(outWidth * outHeight);
  const clampY = (y: number) => (y < 0 ? 0 : y >= height ? height - 1 : y);
  for (let i = 0; i < outHeight; i++) {
    const y = 2 * i;
    const r0 = clampY(y - 1) * outWidth;
    const r1 = y * outWidth;
    const r2 = clampY(y + 1) * outWidth;
    const r3 = clampY(y + 2) * outWidth;
    const o = i * outWidth;
    for (let j = 0; j < outWidth; j++) out[o + j] = (rows[r0 + j] + 3 * rows[r1 + j] + 3 * rows[r2 + j] + rows[r3 + j]) / 8;
  }
  giveBack(rows);
  return { data: out, width: outWidth, height: outHeight };
}

/** `levels` levels (fewer when the image gets too small to halve again); `releasePyramid` lends its arrays to the next. */
export function buildPyramid(gray: Uint8Array, width: number, height: number, levels: number): Pyramid {
  const base = floats(width * height);
  base.set(gray);
  const pyramid: Pyramid = [{ data: base, width, height }];
  while (pyramid.length < levels && Math.min(pyramid.at(-1)!.width, pyramid.at(-1)!.height) >= 32) pyramid.push(halve(pyramid.at(-1)!));
  return pyramid;
}

/**
 * Adds each level's central-difference gradients (one-sided at the borders). The interior
 * pixels run without the border tests, with the same arithmetic.
 */
export function withGradients(pyramid: Pyramid): Pyramid {
  for (const level of pyramid) {
    const { data, width, height } = level;
    const gx = floats(data.length);
    const gy = floats(data.length);
    for (let y = 0; y < height; y++) {
      const row = y * width;
      const up = (y > 0 ? y - 1 : y) * width;
      const down = (y < height - 1 ? y + 1 : y) * width;
      const ySpan = y > 0 && y < height - 1 ? 0.5 : 1;
      const xSpanEdge = 1;
      if (width === 1) {
        gx[row] = 0;
        gy[row] = (data[down] - data[up]) * ySpan;
        continue;
      }
      gx[row] = (data[row + 1] - data[row]) * xSpanEdge;
      gy[row] = (data[down] - data[up]) * ySpan;
      for (let x = 1; x < width - 1; x++) {
        const i = row + x;
        gx[i] = (data[i + 1] - data[i - 1]) * 0.5;
        gy[i] = (data[down + x] - data[up + x]) * ySpan;
      }
      const last = row + width - 1;
      gx[last] = (data[last] - data[last - 1]) * xSpanEdge;
      gy[last] = (data[down + width - 1] - data[up + width - 1]) * ySpan;
    }
    level.gx = gx;
    level.gy = gy;
  }
  return pyramid;
}

/**
 * Bilinear samples of level L's value and gradients (level-0 units) at level-0 point (x, y)
 * into out[0..2]; false outside the level's pixel centres. Needs withGradients.
 */
export function sampleWithGradient(pyramid: Pyramid, level: number, x: number, y: number, out: Float64Array): boolean {
  const { data, width, height, gx, gy } = pyramid[level];
  const inv = 1 / (1 << level);
  const ax = x * inv - 0.5;
  const ay = y * inv - 0.5;
  if (!(ax >= 0 && ay >= 0 && ax < width - 1 && ay < height - 1)) return false;
  const x0 = Math.floor(ax);
  const y0 = Math.floor(ay);
  const fx = ax - x0;
  const fy = ay - y0;
  const i = y0 * width + x0;
  const w00 = (1 - fx) * (1 - fy);
  const w01 = fx * (1 - fy);
  const w10 = (1 - fx) * fy;
  const w11 = fx * fy;
  const j = i + width;
  out[0] = w00 * data[i] + w01 * data[i + 1] + w10 * data[j] + w11 * data[j + 1];
  out[1] = (w00 * gx![i] + w01 * gx![i + 1] + w10 * gx![j] + w11 * gx![j + 1]) * inv;
  out[2] = (w00 * gy![i] + w01 * gy![i + 1] + w10 * gy![j] + w11 * gy![j + 1]) * inv;
  return true;
}

/** Bilinear sample of level L at level-0 point (x, y); NaN outside the level's pixel centres. */
export function sampleAt(pyramid: Pyramid, level: number, x: number, y: number): number {
  const { data, width, height } = pyramid[level];
  const inv = 1 / (1 << level);
  const ax = x * inv - 0.5;
  const ay = y * inv - 0.5;
  if (!(ax >= 0 && ay >= 0 && ax <= width - 1 && ay <= height - 1)) return NaN;
  const x0 = Math.min(Math.floor(ax), width - 2 < 0 ? 0 : width - 2);
  const y0 = Math.min(Math.floor(ay), height - 2 < 0 ? 0 : height - 2);
  const fx = ax - x0;
  const fy = ay - y0;
  const i = y0 * width + x0;
  const top = data[i] + fx * (data[i + 1] - data[i]);
  const bottom = data[i + width] + fx * (data[i + width + 1] - data[i + width]);
  return top + fy * (bottom - top);
}
