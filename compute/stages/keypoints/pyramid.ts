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

/** Halve one level: separable [1 3 3 1]/8 over pixels 2j−1 … 2j+2 (edges clamped). */
function halve(level: PyramidLevel): PyramidLevel {
  const { data, width, height } = level;
  const outWidth = Math.max(1, width >> 1);
  const outHeight = Math.max(1, height >> 1);
  const rows = new Float32Array(outWidth * height);
  const clampX = (x: number) => (x < 0 ? 0 : x >= width ? width - 1 : x);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let j = 0; j < outWidth; j++) {
      const x = 2 * j;
      rows[y * outWidth + j] = (data[row + clampX(x - 1)] + 3 * data[row + x] + 3 * data[row + clampX(x + 1)] + data[row + clampX(x + 2)]) / 8;
    }
  }
  const out = new Float32Array(outWidth * outHeight);
  const clampY = (y: number) => (y < 0 ? 0 : y >= height ? height - 1 : y);
  for (let i = 0; i < outHeight; i++) {
    const y = 2 * i;
    const r0 = clampY(y - 1) * outWidth;
    const r1 = y * outWidth;
    const r2 = clampY(y + 1) * outWidth;
    const r3 = clampY(y + 2) * outWidth;
    for (let j = 0; j < outWidth; j++) out[i * outWidth + j] = (rows[r0 + j] + 3 * rows[r1 + j] + 3 * rows[r2 + j] + rows[r3 + j]) / 8;
  }
  return { data: out, width: outWidth, height: outHeight };
}

/** `levels` levels (fewer when the image gets too small to halve again). */
export function buildPyramid(gray: Uint8Array, width: number, height: number, levels: number): Pyramid {
  const pyramid: Pyramid = [{ data: Float32Array.from(gray), width, height }];
  while (pyramid.length < levels && Math.min(pyramid.at(-1)!.width, pyramid.at(-1)!.height) >= 32) pyramid.push(halve(pyramid.at(-1)!));
  return pyramid;
}

/** Adds each level's central-difference gradients (one-sided at the borders). */
export function withGradients(pyramid: Pyramid): Pyramid {
  for (const level of pyramid) {
    const { data, width, height } = level;
    const gx = new Float32Array(data.length);
    const gy = new Float32Array(data.length);
    for (let y = 0; y < height; y++) {
      const up = (y > 0 ? y - 1 : y) * width;
      const down = (y < height - 1 ? y + 1 : y) * width;
      const ySpan = y > 0 && y < height - 1 ? 0.5 : 1;
      for (let x = 0; x < width; x++) {
        const i = y * width + x;
        const left = x > 0 ? i - 1 : i;
        const right = x < width - 1 ? i + 1 : i;
        gx[i] = (data[right] - data[left]) * (x > 0 && x < width - 1 ? 0.5 : 1);
        gy[i] = (data[down + x] - data[up + x]) * ySpan;
      }
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
