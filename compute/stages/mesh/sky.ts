/**
 * @module A clear sky as free space for the completions' camera verdict.
 *
 * The verdict (plane-completion.ts `cameraVerdict`) reads free space from the depth images of the
 * fused cloud (see-through.ts): a ray that meets points well behind a candidate cell has seen
 * through it, a ray that meets no point is no evidence. The sky has no texture to match, so it
 * has no depth, and a plane whose inliers reach a roof's ridge or a building's corner (the
 * fattened band along every silhouette, the closing of its occupancy grid) was carried on past
 * them into the sky: the delivered model showed a fin of wall, textured with sky, beyond the
 * corner and above the roof line (the synthetic facade: a strip 0.25–0.5 units wide past both
 * ends of its front, 0.1–0.3 units off the truth).
 *
 * A ray that ends in the sky has met nothing up to infinity, so a depthless depth-image pixel
 * that the photo shows as sky reads as infinitely far, as a studio's black backdrop does
 * (backdrop.ts). The sky here is what a clear sky looks like: a sky-blue hue (180–220°, where
 * red < green < blue), some saturation, at least `minLuma` bright, smooth, and joined to the
 * photo's top border through such pixels (photos are upright after ingest). The hue is what tells
 * it from a white wall under a blue cast: on the sets of the benches a clear sky reads 201–215°
 * (green well above red), while fountain-P11's white plaster and Herz-Jesus-P8's grey stone, both
 * shot under a blue cast and reaching the top border, read 225–235° (blue raised, green level with
 * red); a blue difference alone marked both walls as sky. A white, overcast sky is left out on
 * purpose: a plain white wall looks the same, and the walls are what completion exists for. A
 * deep blue sky past 220° is missed (no evidence, as before); a plain sky-blue wall reaching the
 * top border with no depth on it would be read as sky, and not completed.
 */
import sharp from "sharp";
import type { ImageRef, RegisteredView } from "../../scene/index.js";
import { depthImageShape } from "./see-through.js";

export interface SkyOptions {
  /** Hue range of a sky pixel, degrees (HSV hue: 180 cyan, 240 blue). */
  minHueDeg: number;
  maxHueDeg: number;
  /** Least HSV saturation ((max − min) / max of R, G, B): a pale sky still holds 0.09, a grey wall less. */
  minSaturation: number;
  /** Least luma (0..1, Rec. 601) of a sky pixel: a deep blue sky reads about 0.35, a dark blue-grey wall in shade below 0.25. */
  minLuma: number;
  /** Greatest standard deviation of grey (0..1) over the pixel's 3 × 3 neighbours in the depth image's resolution. */
  maxStd: number;
}

export const SKY_DEFAULTS: SkyOptions = { minHueDeg: 180, maxHueDeg: 220, minSaturation: 0.08, minLuma: 0.3, maxStd: 0.02 };

/**
 * Per view, 1 where its photo shows sky (skyOf), at the size of the view's depth image (or with
 * `longSide` pixels on its long side); null where no photo is given, it cannot be read or it shows
 * none, and, when `only` is given, for the views it leaves out (their photos are not read).
 */
export async function skyMasks(views: RegisteredView[], refs: ImageRef[], options: SkyOptions, longSide?: number, only?: boolean[]): Promise<Array<Uint8Array | null>> {
  const byIndex = new Map(refs.map((ref) => [ref.index, ref]));
  return Promise.all(
    views.map(async (view, i) => {
      const ref = byIndex.get(view.imageIndex);
      if (!ref || (only && !only[i])) return null;
      const { width, height } = depthImageShape(view, longSide);
      try {
        const rgb = await sharp(ref.path).removeAlpha().toColourspace("srgb").resize(width, height, { fit: "fill" }).raw().toBuffer();
        return skyOf(new Uint8Array(rgb.buffer, rgb.byteOffset, rgb.length), width, height, options);
      } catch {
        return null;
      }
    }),
  );
}

/** 1 on the sky-coloured, smooth pixels joined to the top border through such pixels (RGB bytes, row-major); null when there are none. */
export function skyOf(rgb: Uint8Array, width: number, height: number, options: SkyOptions): Uint8Array | null {
  const n = width * height;
  const grey = new Float32Array(n);
  for (let p = 0; p < n; p++) grey[p] = (0.299 * rgb[3 * p]! + 0.587 * rgb[3 * p + 1]! + 0.114 * rgb[3 * p + 2]!) / 255;
  const maxVariance = options.maxStd ** 2;
  const isSky = (p: number): boolean => {
    const r = rgb[3 * p]!, g = rgb[3 * p + 1]!, b = rgb[3 * p + 2]!;
    return skyHue(r, g, b, options) && grey[p]! >= options.minLuma && localVariance(grey, p, width, height) <= maxVariance;
  };
  const mask = new Uint8Array(n);
  const queue = new Int32Array(n);
  let head = 0, tail = 0;
  const reach = (p: number): void => {
    if (mask[p] || !isSky(p)) return;
    mask[p] = 1;
    queue[tail++] = p;
  };
  for (let x = 0; x < width; x++) reach(x);
  while (head < tail) {
    const q = queue[head++]!;
    const x = q % width;
    if (x > 0) reach(q - 1);
    if (x < width - 1) reach(q + 1);
    if (q >= width) reach(q - width);
    if (q < n - width) reach(q + width);
  }
  return tail > 0 ? mask : null;
}

/** Whether the colour is blue the way a clear sky is: the largest channel blue, hue and saturation in range. */
function skyHue(r: number, g: number, b: number, options: SkyOptions): boolean {
  if (!(b > g && g >= r)) return false;
  const spread = b - r;
  if (spread < options.minSaturation * b) return false;
  // HSV hue with blue the largest channel: 240° − 60° · (g − r) / (b − r).
  const hue = 240 - (60 * (g - r)) / spread;
  return hue >= options.minHueDeg && hue <= options.maxHueDeg;
}

/** Variance of grey over the pixel's 3 × 3 neighbours inside the image. */
function localVariance(grey: Float32Array, p: number, width: number, height: number): number {
  const x0 = p % width, y0 = (p - x0) / width;
  let sum = 0, sumSquares = 0, count = 0;
  for (let y = Math.max(0, y0 - 1); y <= Math.min(height - 1, y0 + 1); y++) {
    for (let x = Math.max(0, x0 - 1); x <= Math.min(width - 1, x0 + 1); x++) {
      const g = grey[y * width + x]!;
      sum += g;
      sumSquares += g * g;
      count++;
    }
  }
  const mean = sum / count;
  return sumSquares / count - mean * mean;
}

/** The union of two per-view masks (either may be null for a view, or null as a whole). */
export function unionMasks(a: Array<Uint8Array | null> | null, b: Array<Uint8Array | null> | null): Array<Uint8Array | null> | null {
  if (!a) return b;
  if (!b) return a;
  return a.map((maskA, i) => {
    const maskB = b[i] ?? null;
    if (!maskA) return maskB;
    if (!maskB) return maskA;
    const union = new Uint8Array(maskA.length);
    for (let p = 0; p < union.length; p++) union[p] = maskA[p]! | maskB[p]!;
    return union;
  });
}
