/**
 * @module The sky in the photos, so that a completion does not fill it: a plane's closing
 * (plane-completion.ts) fills the margin between its points' outline and its farthest inliers,
 * and a roof's or a wall's farthest inliers are often the dense stage's fringe in the sky beside
 * it (docs/decisions.md, "A plane's closing fills out to its farthest inliers"). The points alone
 * cannot tell that margin from a plain wall above its last islands of points; the photos can.
 *
 * The sky of a photo is the region joined to its top border through bright, blue pixels (luma
 * of at least `minLuma`, blue above red by `minBlueOverRed`) whose grey changes smoothly from
 * pixel to pixel (by at most `maxStep` levels between 4-neighbours at the depth images' size):
 * a roofline or a wall's top edge is a step the region does not cross. A neutral white wall and
 * an overcast sky look alike in colour, so neither is sky here: an overcast sky is filled as before.
 */
import sharp from "sharp";
import type { ImageRef, RegisteredView } from "../../scene/index.js";
import { depthPixelOf, emptyDepthImage, type DepthImage } from "./see-through.js";

export interface SkyOptions {
  /** Least luma (0–255) of a sky pixel. */
  minLuma: number;
  /** Blue above red by at least this (0–255). */
  minBlueOverRed: number;
  /** Largest luma step between 4-neighbours inside the sky. */
  maxStep: number;
  /** A point is sky when more than this share of the views that see it show sky there. */
  minShare: number;
}

export const SKY_DEFAULTS: SkyOptions = { minLuma: 110, minBlueOverRed: 8, maxStep: 6, minShare: 0.5 };

/** Per view, on the grid of its depth image (see-through.ts): 1 where the photo shows sky. */
export interface SkyMask {
  grid: DepthImage;
  sky: Uint8Array;
}

/** A view's photo in RGB on the grid of its depth image. */
export interface SkyPhoto {
  grid: DepthImage;
  rgb: Uint8Array;
}

/** The views' photos on their depth images' grids (null for a view whose photo is missing or unreadable). */
export async function skyPhotos(views: RegisteredView[], images: ImageRef[]): Promise<Array<SkyPhoto | null>> {
  const byIndex = new Map(images.map((image) => [image.index, image]));
  return Promise.all(
    views.map(async (view) => {
      const image = byIndex.get(view.imageIndex);
      if (!image) return null;
      const grid = emptyDepthImage(view);
      try {
        const bytes = await sharp(image.path).removeAlpha().toColourspace("srgb").resize(grid.width, grid.height, { fit: "fill" }).raw().toBuffer();
        return { grid, rgb: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length) };
      } catch {
        return null;
      }
    }),
  );
}

/** The sky of each photo, depthless where `depth` (the cloud's depth images, in the same order) is given. */
export function skyMasks(photos: Array<SkyPhoto | null>, depth: DepthImage[] | null, options: SkyOptions = SKY_DEFAULTS): Array<SkyMask | null> {
  return photos.map((photo, v) => photo && { grid: photo.grid, sky: skyRegion(photo.rgb, photo.grid.width, photo.grid.height, options, depth?.[v]?.depth) });
}

/**
 * 1 for the pixels of `rgb` (width × height × 3) joined to the top row through bright, blue,
 * smoothly changing pixels, where `depth` (when given) holds no point.
 */
export function skyRegion(rgb: Uint8Array, width: number, height: number, options: SkyOptions, depth?: Float32Array): Uint8Array {
  const n = width * height;
  const luma = new Float32Array(n);
  const candidate = new Uint8Array(n);
  for (let p = 0; p < n; p++) {
    const r = rgb[3 * p]!, g = rgb[3 * p + 1]!, b = rgb[3 * p + 2]!;
    luma[p] = 0.299 * r + 0.587 * g + 0.114 * b;
    candidate[p] = luma[p]! >= options.minLuma && b - r >= options.minBlueOverRed && !(depth && depth[p]! > 0) ? 1 : 0;
  }
  const sky = new Uint8Array(n);
  const queue = new Int32Array(n);
  let head = 0, tail = 0;
  for (let x = 0; x < width; x++) {
    if (candidate[x]) {
      sky[x] = 1;
      queue[tail++] = x;
    }
  }
  const reach = (p: number, from: number) => {
    if (sky[p] || !candidate[p] || Math.abs(luma[p]! - luma[from]!) > options.maxStep) return;
    sky[p] = 1;
    queue[tail++] = p;
  };
  while (head < tail) {
    const q = queue[head++]!;
    const x = q % width;
    if (x > 0) reach(q - 1, q);
    if (x < width - 1) reach(q + 1, q);
    if (q >= width) reach(q - width, q);
    if (q < n - width) reach(q + width, q);
  }
  return sky;
}

/** Whether more than `minShare` of the views in `seenBy` (indices into `masks`) with a mask show sky at the world point `x`. */
export function showsSky(masks: Array<SkyMask | null>, seenBy: number[], x: ArrayLike<number>, minShare: number): boolean {
  let asked = 0, sky = 0;
  for (const index of seenBy) {
    const mask = masks[index];
    if (!mask) continue;
    const pixel = depthPixelOf(mask.grid, x[0]!, x[1]!, x[2]!);
    if (!pixel) continue;
    asked++;
    sky += mask.sky[pixel.index]!;
  }
  return asked > 0 && sky > minShare * asked;
}
