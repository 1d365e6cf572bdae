/**
 * @module Epipolar agreement of each verified pair's matches with two sets of cameras, ours
 * and the published ones: the median Sampson distance (Hartley & Zisserman 2004, §11.4.3) of
 * the pair's matches under the essential matrix the cameras imply, in pixels.
 *
 * Why: it tests the published calibration pair by pair, with no model in between. Keypoint
 * noise makes the distance grow smoothly with a pair's baseline under any exact set of
 * cameras; a pair whose published geometry disagrees with its matches well beyond its
 * neighbours, while ours fits them, points at the published cameras (or at a systematic error
 * of that pair's matches) rather than at the noise.
 */
import { normalizePoints } from "../compute/geometry/camera.js";
import { essentialFromPoses } from "../compute/geometry/essential.js";
import { sampsonError } from "../compute/geometry/fundamental.js";
import type { ImageFeatures, SparseModel, VerifiedPair } from "../compute/scene/index.js";
import { normalizePublished, type PublishedCamera } from "./published.js";

export interface PairAgreement {
  imageA: string;
  imageB: string;
  matches: number;
  /** Median Sampson distance of the matches under our cameras and under the published ones, pixels. */
  oursPx: number;
  publishedPx: number;
}

/** Pairs with fewer matches give too noisy a median to compare. */
export const MIN_PAIR_MATCHES = 50;

/** Median Sampson distance in pixels of the matches (a, b, a, b, …) between normalised keypoints xa and xb. */
function medianDistancePx(E: Float64Array, xa: Float64Array, xb: Float64Array, matches: Uint32Array, focalPx: number): number {
  const count = matches.length / 2;
  const pa = new Float64Array(2 * count);
  const pb = new Float64Array(2 * count);
  for (let m = 0; m < count; m++) {
    pa[2 * m] = xa[2 * matches[2 * m]];
    pa[2 * m + 1] = xa[2 * matches[2 * m] + 1];
    pb[2 * m] = xb[2 * matches[2 * m + 1]];
    pb[2 * m + 1] = xb[2 * matches[2 * m + 1] + 1];
  }
  const distances = Float64Array.from({ length: count }, (_, m) => Math.sqrt(sampsonError(E, pa, pb, m)) * focalPx).sort();
  return distances[count >> 1];
}

/**
 * Per verified pair of registered images that both have a published camera and at least
 * MIN_PAIR_MATCHES matches: the median Sampson distance of its matches under ours and under the
 * published cameras. `published[v]` is the published camera of model view v (null if none).
 */
export function pairAgreement(model: SparseModel, features: ImageFeatures[], pairs: VerifiedPair[], published: Array<PublishedCamera | null>): PairAgreement[] {
  const viewOfImage = new Map(model.views.map((v, index) => [v.imageIndex, index]));
  const ours = new Map<number, Float64Array>();
  const theirs = new Map<number, Float64Array>();
  const normalized = (v: number, byUs: boolean): Float64Array => {
    const cache = byUs ? ours : theirs;
    let xy = cache.get(v);
    if (xy === undefined) {
      const f = features[model.views[v].imageIndex];
      xy = byUs ? normalizePoints(model.views[v].intrinsics, f.xy, f.count) : normalizePublished(() => published[v] as PublishedCamera, f.xy, f.count);
      cache.set(v, xy);
    }
    return xy;
  };
  const result: PairAgreement[] = [];
  for (const pair of pairs) {
    const va = viewOfImage.get(pair.imageA);
    const vb = viewOfImage.get(pair.imageB);
    if (va === undefined || vb === undefined || pair.matches.length / 2 < MIN_PAIR_MATCHES) continue;
    const camA = published[va];
    const camB = published[vb];
    if (camA === null || camB === null) continue;
    const viewA = model.views[va];
    const viewB = model.views[vb];
    const oursPx = medianDistancePx(essentialFromPoses(viewA.camFromWorld, viewB.camFromWorld), normalized(va, true), normalized(vb, true), pair.matches, (viewA.intrinsics.focal + viewB.intrinsics.focal) / 2);
    const publishedPx = medianDistancePx(essentialFromPoses(camA.camFromWorld, camB.camFromWorld), normalized(va, false), normalized(vb, false), pair.matches, (camA.fx + camB.fx) / 2);
    result.push({ imageA: viewA.name, imageB: viewB.name, matches: pair.matches.length / 2, oursPx, publishedPx });
  }
  return result;
}
