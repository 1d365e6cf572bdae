/**
 * @module Photos in grey (for the ground sweep and the standing walls), and how much texture a
 * photo shows on a patch of a plane: the spread of its grey levels over a grid of samples on the
 * patch, relative to their mean.
 *
 * Dense stereo leaves a hole on a surface for one of two reasons: the surface is plain (nothing
 * to match: white plaster, a wall in shade), or it is not where the hole is (an opening, a
 * depth edge, a surface at another depth). A photo that shows texture where a completion would
 * put a plane says the second: matching would have found that texture had it lain on the plane.
 */
import sharp from "sharp";
import { project } from "../../geometry/camera.js";
import type { ImageRef, RegisteredView } from "../../scene/index.js";

/** A photo in grey at a chosen size, with its view; null when it could not be read. */
export interface GreyPhoto {
  view: RegisteredView;
  grey: Uint8Array | Float32Array;
  width: number;
  height: number;
  /** Pixels of this image per pixel of the view's intrinsics. */
  scale: number;
}

/** The photos of `views` in grey, those whose index is in `wanted` only (null for the others, and for any that cannot be read). */
export async function loadGreyPhotos(views: RegisteredView[], images: ImageRef[], imageSize: number, wanted: Set<number>): Promise<Array<GreyPhoto | null>> {
  const byIndex = new Map(images.map((image) => [image.index, image]));
  return Promise.all(
    views.map(async (view, index) => {
      const image = byIndex.get(view.imageIndex);
      if (!image || !wanted.has(index)) return null;
      const scale = Math.min(1, imageSize / Math.max(view.intrinsics.width, view.intrinsics.height));
      const width = Math.max(1, Math.round(view.intrinsics.width * scale));
      const height = Math.max(1, Math.round(view.intrinsics.height * scale));
      try {
        const bytes = await sharp(image.path).greyscale().resize(width, height, { fit: "fill" }).raw().toBuffer();
        return { view, grey: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), width, height, scale: width / view.intrinsics.width };
      } catch {
        return null;
      }
    }),
  );
}


/**
 * Standard deviation over mean of the photo's grey levels at side × side samples spaced `step`
 * on the plane around `centre` along the unit axes `a` and `b`; NaN when a sample leaves the
 * photo or lies behind it.
 */
export function patchVariation(photo: GreyPhoto, centre: ArrayLike<number>, a: ArrayLike<number>, b: ArrayLike<number>, step: number, side: number): number {
  const half = (side - 1) / 2;
  const point = new Float64Array(3), pixel = new Float64Array(2);
  let sum = 0, sumSquares = 0;
  for (let i = 0; i < side; i++) for (let j = 0; j < side; j++) {
    const da = (i - half) * step, db = (j - half) * step;
    for (let k = 0; k < 3; k++) point[k] = centre[k]! + da * a[k]! + db * b[k]!;
    if (!project(photo.view.intrinsics, photo.view.camFromWorld, point, pixel)) return NaN;
    const px = pixel[0]! * photo.scale - 0.5, py = pixel[1]! * photo.scale - 0.5;
    if (px < 0 || py < 0 || px >= photo.width - 1 || py >= photo.height - 1) return NaN;
    const value = bilinear(photo, px, py);
    sum += value;
    sumSquares += value * value;
  }
  const n = side * side, mean = sum / n;
  return Math.sqrt(Math.max(0, sumSquares / n - mean * mean)) / Math.max(1, mean);
}

/** How squarely the ray from `x` to the camera centre `camera` meets a surface of unit `normal` at `x`: the cosine between them. */
export function rayCosine(x: ArrayLike<number>, normal: ArrayLike<number>, camera: ArrayLike<number>): number {
  const ray = [camera[0]! - x[0]!, camera[1]! - x[1]!, camera[2]! - x[2]!];
  return (ray[0]! * normal[0]! + ray[1]! * normal[1]! + ray[2]! * normal[2]!) / Math.hypot(ray[0]!, ray[1]!, ray[2]!);
}

/** patchVariation() in the first photo of `views` (indices into `grey`, in order) that shows the whole patch; NaN when none does. */
export function firstVariation(grey: Array<GreyPhoto | null>, views: number[], centre: ArrayLike<number>, a: ArrayLike<number>, b: ArrayLike<number>, step: number, side: number): number {
  for (const view of views) {
    const photo = grey[view];
    const variation = photo ? patchVariation(photo, centre, a, b, step, side) : NaN;
    if (!Number.isNaN(variation)) return variation;
  }
  return NaN;
}

/** The photo's grey level at (x, y), bilinear; (x, y) must lie at least a pixel inside the right and bottom edges. */
export function bilinear(photo: GreyPhoto, x: number, y: number): number {
  const x0 = Math.floor(x), y0 = Math.floor(y), tx = x - x0, ty = y - y0;
  const g = photo.grey, w = photo.width, o = y0 * w + x0;
  return (g[o]! * (1 - tx) + g[o + 1]! * tx) * (1 - ty) + (g[o + w]! * (1 - tx) + g[o + w + 1]! * tx) * ty;
}
