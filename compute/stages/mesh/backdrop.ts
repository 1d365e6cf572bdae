/**
 * @module A studio's dark backdrop as free space for the completions' camera verdict.
 *
 * The verdict (plane-completion.ts `cameraVerdict`) reads free space from the depth images of the
 * fused cloud (see-through.ts): a ray that meets points well behind a candidate cell has seen
 * through it. A ray that meets no point is no evidence, and an object photographed against a
 * black backdrop is seen through its openings (between columns, under an arch, through a handle)
 * onto exactly such rays: the backdrop has no texture to match, so it has no depth. The planes
 * of the object's faces then close over its openings, and the delivered model shows a wall where
 * every photo shows the backdrop.
 *
 * So in a photo taken against a backdrop, a depthless pixel of its depth image that the photo
 * shows dark and smooth reads as infinitely far: a ray into a black, featureless background has
 * met nothing up to it. Dark only, because a bright plain region without depth is what completion
 * exists for (white plaster, a pale floor). And only in a photo whose border is mostly such
 * pixels (`minBorderShare`: the backdrop surrounds the object), because elsewhere a dark, smooth
 * patch is as likely a shadow on a plain floor: on the synthetic smoke scene, whose ball casts a
 * near-black shadow, every photo read that way cost the floor 125 cells and 0.2 dB. The photos of
 * the sets in the benches have 0–16 % of their border so, the temple on its black cloth 89–98 %.
 * A completion's own points, splatted in later (withMorePoints), replace the mark as any nearer
 * point does.
 */
import sharp from "sharp";
import { foldRadius2 } from "../../geometry/camera.js";
import type { ImageRef, RegisteredView } from "../../scene/index.js";
import { depthImageShape, type DepthImage } from "./see-through.js";

export interface BackdropOptions {
  /** Greatest grey (0..1, the photo read in greyscale) of a backdrop pixel: a black cloth under studio light reads below a tenth. */
  maxGrey: number;
  /** Greatest standard deviation of grey (0..1) over the pixel's 3 × 3 neighbours in the depth image's resolution. */
  maxStd: number;
  /** Least share of the photo's border pixels that must read as backdrop for the photo to count as taken against one. */
  minBorderShare: number;
}

export const BACKDROP_DEFAULTS: BackdropOptions = { maxGrey: 0.11, maxStd: 0.012, minBorderShare: 0.5 };

/**
 * Per view, 1 where its photo shows a dark, smooth backdrop, at the size of the view's depth
 * image (see-through.ts); null for a view whose photo is not taken against a backdrop, is not
 * given or cannot be read.
 */
export async function backdropMasks(views: RegisteredView[], refs: ImageRef[], options: BackdropOptions): Promise<Array<Uint8Array | null>> {
  const byIndex = new Map(refs.map((ref) => [ref.index, ref]));
  return Promise.all(
    views.map(async (view) => {
      const ref = byIndex.get(view.imageIndex);
      if (!ref) return null;
      const { width, height } = depthImageShape(view);
      try {
        const grey = await sharp(ref.path).greyscale().resize(width, height, { fit: "fill" }).raw().toBuffer();
        return backdropOf(grey, width, height, options);
      } catch {
        return null;
      }
    }),
  );
}

/** The photo's dark, smooth pixels (darkSmooth) when they hold at least minBorderShare of its border; else null. */
export function backdropOf(grey: Uint8Array, width: number, height: number, options: BackdropOptions): Uint8Array | null {
  const mask = darkSmooth(grey, width, height, options);
  let border = 0, dark = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (y > 0 && y < height - 1 && x > 0 && x < width - 1) continue;
      border++;
      dark += mask[y * width + x]!;
    }
  }
  return dark >= options.minBorderShare * border ? mask : null;
}

/** 1 where the grey image (one byte per pixel) is at most maxGrey and its 3 × 3 neighbourhood varies by at most maxStd. */
export function darkSmooth(grey: Uint8Array, width: number, height: number, options: BackdropOptions): Uint8Array {
  const mask = new Uint8Array(width * height);
  const maxGrey = options.maxGrey * 255;
  const maxVariance = (options.maxStd * 255) ** 2;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (grey[y * width + x]! > maxGrey) continue;
      let sum = 0, sumSquares = 0, count = 0;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= width) continue;
          const g = grey[yy * width + xx]!;
          sum += g;
          sumSquares += g * g;
          count++;
        }
      }
      const mean = sum / count;
      if (sumSquares / count - mean * mean <= maxVariance) mask[y * width + x] = 1;
    }
  }
  return mask;
}

/**
 * Marks, in place, the depthless pixels of each depth image that its mask calls backdrop (or sky) as
 * infinitely far; returns how many. The masks are read on the photo's own pixels, through its lens,
 * and the depth images lie on a pinhole frame of the same size (see-through.ts), so each depth pixel
 * reads the mask where the photo shows its ray (maskPixelOf): SceauxCastle's lens (k1 −0.26) shows
 * a ray 4 % farther out at mid-side, 12 % at the corners, and read at the same index the sky's marks
 * fell on rays nearer the middle than the ones the photo shows as sky, roofs near the top corners
 * among them.
 */
export function markBackdrop(images: DepthImage[], masks: Array<Uint8Array | null>): number {
  let marked = 0;
  images.forEach((image, i) => {
    const mask = masks[i];
    if (!mask) return;
    const { depth } = image;
    const lookup = maskPixelOf(image);
    for (let p = 0; p < depth.length; p++) {
      if (depth[p] !== 0) continue;
      const m = lookup ? lookup[p]! : p;
      if (m >= 0 && mask[m]) {
        depth[p] = Infinity;
        marked++;
      }
    }
  });
  return marked;
}

/**
 * Per depth pixel, the index of the photo's pixel (at the depth image's size) that shows the ray
 * through the depth pixel's centre, through the lens's radial distortion (geometry/camera.ts); −1
 * where the photo does not show it. Null for a lens without distortion, where the two are the
 * same pixel.
 */
export function maskPixelOf(image: DepthImage): Int32Array | null {
  const { focal, cx, cy, k1, k2 } = image.view.intrinsics;
  if (k1 === 0 && k2 === 0) return null;
  const { width, height, scale } = image;
  const fold = foldRadius2(k1, k2);
  const lookup = new Int32Array(width * height).fill(-1);
  for (let y = 0; y < height; y++) {
    const v = ((y + 0.5) * scale - cy) / focal;
    for (let x = 0; x < width; x++) {
      const u = ((x + 0.5) * scale - cx) / focal;
      const r2 = u * u + v * v;
      if (r2 >= fold) continue;
      const d = 1 + k1 * r2 + k2 * r2 * r2;
      const mx = Math.floor((focal * d * u + cx) / scale), my = Math.floor((focal * d * v + cy) / scale);
      if (mx >= 0 && my >= 0 && mx < width && my < height) lookup[y * width + x] = my * width + mx;
    }
  }
  return lookup;
}
