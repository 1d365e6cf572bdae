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
import type { SfmState } from "./state.js";

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

/**
 * Relative spread of refined focals within which default-prior images are taken to share a
 * camera. 5%: one image's focal is poorly fixed on a narrow lens (temple ring, f ≈ 2.4 ×
 * width: 16 per-image focals spread −3.5%…+0.8% around their median, so at 3% they never
 * merged and the ring kept a 14-focal ambiguity); two different cameras' focals rarely
 * agree that closely by chance, and the default-prior ones also share the image size.
 */
const MERGE_FOCAL_TOLERANCE = 0.05;
/** Registered members needed before their focals are trusted to agree. */
const MERGE_MIN_REGISTERED = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

/**
 * Photos without EXIF start in groups of their own, but a set of them is usually shot with
 * one camera, and per-image focals leave a focal/depth ambiguity that biases every pose. Once
 * the refined focals of same-size default-prior images all agree within 5%, the evidence says
 * one camera: merge them into one group (median focal and distortion), which BA then refines
 * with all their observations. Images from different cameras disagree and stay apart.
 * Returns the number of groups merged away.
 */
export function mergeConsistentGroups(state: SfmState): number {
  const clusters = new Map<string, number[]>();
  state.images.forEach((image, i) => {
    if (image.focalPriorSource !== "default" || image.video) return;
    const key = `${image.width}x${image.height}`;
    clusters.set(key, [...(clusters.get(key) ?? []), i]);
  });
  const K = state.intrinsics;
  let merged = 0;
  for (const members of clusters.values()) {
    const registered = members.filter((i) => state.registered[i] === 1);
    const groups = new Set(members.map((i) => state.groupOfImage[i]));
    if (groups.size < 2 || registered.length < MERGE_MIN_REGISTERED) continue;
    const registeredGroups = [...new Set(registered.map((i) => state.groupOfImage[i]))];
    const focals = registeredGroups.map((g) => K[5 * g]);
    const focal = median(focals);
    if (focals.some((f) => Math.abs(f / focal - 1) > MERGE_FOCAL_TOLERANCE)) continue;
    const target = state.groupOfImage[registered[0]];
    K[5 * target] = focal;
    K[5 * target + 3] = median(registeredGroups.map((g) => K[5 * g + 3]));
    K[5 * target + 4] = median(registeredGroups.map((g) => K[5 * g + 4]));
    for (const i of members) {
      state.groupOfImage[i] = target;
      state.normalizedXy[i] = null;
    }
    merged += groups.size - 1;
  }
  return merged;
}
