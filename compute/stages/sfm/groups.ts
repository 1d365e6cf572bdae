/**
 * @module Which images share intrinsics (one physical camera, one focal and distortion).
 *
 * Sharing intrinsics makes focal and distortion refinement far better conditioned
 * (COLMAP's `single_camera_per_folder`): all frames of one video share a group; photos with
 * the same size and the same EXIF-derived focal prior share a group (same body and zoom
 * setting, as far as ImageRef can tell); an image whose focal is only the default guess gets
 * its own group, since nothing says it came from the same camera as another.
 */
import type { ImageRef } from "../../scene/index.js";

export interface IntrinsicsGroups {
  groupOfImage: Uint32Array;
  /** focal, cx, cy, k1, k2 per group, initialised from the priors. */
  intrinsics: Float64Array;
}

function groupKey(image: ImageRef): string {
  if (image.video) return `video:${image.video.file}`;
  if (image.focalPriorSource === "default") return `image:${image.index}`;
  return `exif:${image.width}x${image.height}:${image.focalPrior.toFixed(1)}`;
}

export function assignIntrinsicsGroups(images: ImageRef[]): IntrinsicsGroups {
  const groupOfKey = new Map<string, number>();
  const groupOfImage = new Uint32Array(images.length);
  const values: number[] = [];
  images.forEach((image, i) => {
    const key = groupKey(image);
    let g = groupOfKey.get(key);
    if (g === undefined) {
      g = groupOfKey.size;
      groupOfKey.set(key, g);
      values.push(image.focalPrior, image.width / 2, image.height / 2, 0, 0);
    }
    groupOfImage[i] = g;
  });
  return { groupOfImage, intrinsics: new Float64Array(values) };
}
