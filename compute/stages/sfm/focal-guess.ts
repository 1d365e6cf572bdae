/**
 * @module Other first guesses of a focal length that no EXIF gives.
 *
 * Without EXIF the focal starts from a default prior (1.2 × the long side, a normal lens) and
 * bundle adjustment refines it, but only from a start close enough: incremental SfM freezes
 * the early cameras' geometry, and a start 1.7× off leads to a local minimum. A courtyard shot
 * from its middle with a phone's wide lens (true focal 0.7 × the long side) from the default
 * prior registered 10 of 16 photos, the focal refined to 351 px instead of 280, rotations
 * compressed by 3° per step, at 0.23 px RMS; started at 320 px it registers 16/16 at 0.30°.
 * A self-calibration from the pairs' fundamental matrices (Mendonça & Cipolla 1999) was tried
 * first and rejected: on an orbit around an object (optical axes meeting in one point, the
 * commonest capture) and on planar scenes it is degenerate, and it put fountain-P11's focal
 * 30 % short and templeSparseRing's 4.5× short.
 *
 * So the stage tries other guesses only when the model from the prior leaves out photos that
 * verified matches connect to it (at least 2 and 10 % of them, so that one blurred photo in a
 * large capture does not triple the SfM time), and keeps the model that places the most photos (then the
 * lower reprojection error). Complete models — every set in ../shared/datasets — never pay.
 * Where the prior gives no model at all, no other guess is tried (see index.ts).
 */
import type { ImageRef } from "../../scene/index.js";
import type { IntrinsicsGroups } from "./groups.js";

/** Whether any image's focal is only the default prior (no EXIF focal). */
export function hasGuessedFocal(images: ImageRef[]): boolean {
  return images.some((image) => image.focalPriorSource === "default");
}

/** The same groups with every default-prior group's focal set to factor · its image's long side. */
export function withFocalGuess(groups: IntrinsicsGroups, images: ImageRef[], factor: number): IntrinsicsGroups {
  const intrinsics = groups.intrinsics.slice();
  images.forEach((image, i) => {
    if (image.focalPriorSource !== "default") return;
    intrinsics[5 * groups.groupOfImage[i]] = factor * Math.max(image.width, image.height);
  });
  return { groupOfImage: groups.groupOfImage, intrinsics };
}
