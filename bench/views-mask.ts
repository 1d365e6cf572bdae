/**
 * @module Which pixels of a real photo show no surface the model could hold (bench views, issue
 * "Complete surfaces": coverage counts the pixels that show a surface, "sky and far background
 * masked out"). Real sets have no true mesh to say it, so the bench decides from the photo:
 *
 * a pixel is background when it is smooth (the standard deviation of luma in the 7 × 7 window
 * around it at most SMOOTH_STD grey levels: no texture any stereo could match) and either dark
 * (luma at most DARK_LUMA: a studio's black backdrop) or sky-coloured (luma at least SKY_LUMA and
 * blue not below red), and it is joined to the photo's border through such pixels (a flood
 * fill from the border). A smooth white wall inside the picture is therefore surface: it is
 * what issue 40 asks the model to close. Trees and far houses are textured and stay surface.
 *
 * In a studio photo (at least STUDIO_BORDER_SHARE of the border is background, nearly all of it
 * dark: a black backdrop all around the object), a dark smooth region the object encloses is
 * background too when it holds at least MIN_OPENING_PIXELS: the backdrop seen through an opening
 * (templeSparseRing's cloth between its columns: 8.4 % of 0013's surface pixels with the band grown
 * around it; 0005's slit is narrower than the smoothness window). There a dark plain panel of the
 * object itself cannot be told from the cloth by colour; the rule gives it up with the cloth.
 * Outdoors the border's background is sky, and a shadowed porch vault or an open door stays
 * surface (5 % of Herz-Jesus-P8 0004's surface pixels are as dark).
 *
 * The mask's dark part then grows up to WINDOW_RADIUS pixels through dark pixels: a dark backdrop pixel that
 * close to a bright silhouette has the silhouette in its smoothness window, so the fill stops
 * short of it, and a band of backdrop as wide as the window's radius was counted as surface
 * around every dark-backdrop silhouette (templeSparseRing's held-back photos: 8 and 10 % of
 * their surface pixels; Herz-Jesus-P8's 0.1 %, fountain-P11's none).
 */

const WINDOW_RADIUS = 3;
const SMOOTH_STD = 3;
const DARK_LUMA = 28;
const SKY_LUMA = 110;
/** Share of the border's pixels a studio's backdrop covers (templeSparseRing's photos: 0.90–0.99; Herz-Jesus-P8's, SceauxCastle's and fountain-P11's at most 0.58). */
const STUDIO_BORDER_SHARE = 0.8;
/** Share of that border background that must be dark (templeSparseRing: all of it). */
const STUDIO_DARK_SHARE = 0.9;
/** Smallest enclosed dark region taken as backdrop, in pixels at the bench's 768-px render (a speck of shadow is not an opening). */
const MIN_OPENING_PIXELS = 200;

/** Luma (BT.601) of interleaved RGB. */
function lumaOf(rgb: Uint8Array, n: number): Float32Array {
  const luma = new Float32Array(n);
  for (let i = 0; i < n; i++) luma[i] = 0.299 * rgb[3 * i] + 0.587 * rgb[3 * i + 1] + 0.114 * rgb[3 * i + 2];
  return luma;
}

/** Local standard deviation over a (2r+1)² window, from integral images of luma and luma². */
function localStd(luma: Float32Array, width: number, height: number, r: number): Float32Array {
  const stride = width + 1;
  const sum = new Float64Array(stride * (height + 1));
  const sq = new Float64Array(stride * (height + 1));
  for (let y = 0; y < height; y++) {
    let rowSum = 0;
    let rowSq = 0;
    for (let x = 0; x < width; x++) {
      const v = luma[y * width + x];
      rowSum += v;
      rowSq += v * v;
      sum[(y + 1) * stride + x + 1] = sum[y * stride + x + 1] + rowSum;
      sq[(y + 1) * stride + x + 1] = sq[y * stride + x + 1] + rowSq;
    }
  }
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    const y0 = Math.max(0, y - r);
    const y1 = Math.min(height, y + r + 1);
    for (let x = 0; x < width; x++) {
      const x0 = Math.max(0, x - r);
      const x1 = Math.min(width, x + r + 1);
      const count = (y1 - y0) * (x1 - x0);
      const s = sum[y1 * stride + x1] - sum[y0 * stride + x1] - sum[y1 * stride + x0] + sum[y0 * stride + x0];
      const s2 = sq[y1 * stride + x1] - sq[y0 * stride + x1] - sq[y1 * stride + x0] + sq[y0 * stride + x0];
      const mean = s / count;
      out[y * width + x] = Math.sqrt(Math.max(0, s2 / count - mean * mean));
    }
  }
  return out;
}

/** 1 where the photo (interleaved RGB, `width` × `height`) shows background under the module's rule. */
export function backgroundMask(rgb: Uint8Array, width: number, height: number): Uint8Array {
  const n = width * height;
  const luma = lumaOf(rgb, n);
  const std = localStd(luma, width, height, WINDOW_RADIUS);
  const candidate = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (std[i] > SMOOTH_STD) continue;
    const dark = luma[i] <= DARK_LUMA;
    const sky = luma[i] >= SKY_LUMA && rgb[3 * i + 2] >= rgb[3 * i];
    candidate[i] = dark || sky ? 1 : 0;
  }
  const mask = new Uint8Array(n);
  fill4(borderPixels(width, height), (j) => candidate[j] === 1 && !mask[j], (j) => (mask[j] = 1), width, height);
  if (isStudio(mask, luma, width, height)) maskOpenings(mask, candidate, luma, width, height);
  growThroughDark(mask, luma, width, height);
  return mask;
}

/** Each pixel of the image's border once: top and bottom rows, then the side columns between them. */
function borderPixels(width: number, height: number): number[] {
  const pixels: number[] = [];
  for (let x = 0; x < width; x++) pixels.push(x, (height - 1) * width + x);
  for (let y = 1; y < height - 1; y++) pixels.push(y * width, y * width + width - 1);
  return pixels;
}

/**
 * 4-neighbour flood fill from `starts`: each pixel `accept` takes is visited once (`visit`, which
 * must make `accept` refuse it from then on) and spreads to its neighbours; returns the visited,
 * a view into `queue` (one pixel's room per image pixel, reusable between fills).
 */
function fill4(starts: Iterable<number>, accept: (j: number) => boolean, visit: (j: number) => void, width: number, height: number, queue = new Int32Array(width * height)): Int32Array {
  const n = width * height;
  let tail = 0;
  const take = (j: number) => {
    if (!accept(j)) return;
    visit(j);
    queue[tail++] = j;
  };
  for (const j of starts) take(j);
  for (let head = 0; head < tail; head++) {
    const i = queue[head];
    const x = i % width;
    if (x > 0) take(i - 1);
    if (x < width - 1) take(i + 1);
    if (i >= width) take(i - width);
    if (i < n - width) take(i + width);
  }
  return queue.subarray(0, tail);
}

/** Whether the border-joined background is a dark backdrop around the whole photo. */
function isStudio(mask: Uint8Array, luma: Float32Array, width: number, height: number): boolean {
  const border = borderPixels(width, height);
  const masked = border.filter((i) => mask[i]);
  const dark = masked.filter((i) => luma[i] <= DARK_LUMA).length;
  return masked.length >= STUDIO_BORDER_SHARE * border.length && dark >= STUDIO_DARK_SHARE * masked.length;
}

/** Adds to the mask every dark smooth candidate region of at least MIN_OPENING_PIXELS that the border fill did not reach. */
function maskOpenings(mask: Uint8Array, candidate: Uint8Array, luma: Float32Array, width: number, height: number): void {
  const seen = new Uint8Array(width * height);
  const queue = new Int32Array(width * height);
  const opening = (j: number) => !seen[j] && !mask[j] && candidate[j] === 1 && luma[j] <= DARK_LUMA;
  for (let start = 0; start < seen.length; start++) {
    if (!opening(start)) continue;
    const region = fill4([start], opening, (j) => (seen[j] = 1), width, height, queue);
    if (region.length >= MIN_OPENING_PIXELS) for (const j of region) mask[j] = 1;
  }
}

/** WINDOW_RADIUS steps of 8-neighbour growth of the mask's dark part into dark pixels (a dark edge against the sky stays surface). */
function growThroughDark(mask: Uint8Array, luma: Float32Array, width: number, height: number): void {
  let front: number[] = [];
  for (let i = 0; i < mask.length; i++) if (mask[i] && luma[i] <= DARK_LUMA) front.push(i);
  for (let step = 0; step < WINDOW_RADIUS && front.length > 0; step++) {
    const next: number[] = [];
    for (const i of front) {
      const x = i % width;
      const y = (i - x) / width;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          const ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
          const j = ny * width + nx;
          if (mask[j] || luma[j] > DARK_LUMA) continue;
          mask[j] = 1;
          next.push(j);
        }
      }
    }
    front = next;
  }
}
