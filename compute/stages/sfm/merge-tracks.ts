/**
 * @module Tracks extended with new pairwise matches, by union–find over keypoints (the
 * track building of Moulon & Monasse 2012, "Unordered feature tracking made fast and easy",
 * applied on top of the existing tracks). A match is applied only when the two tracks it
 * joins have no image in common, so a track keeps at most one keypoint per image (the
 * invariant of scene/Tracks); a conflicting match is dropped rather than merging two
 * different points.
 */
import type { Tracks } from "../../scene/index.js";

export interface PairMatches {
  imageA: number;
  imageB: number;
  /** Keypoint index pairs (a0, b0, a1, b1, …). */
  matches: Uint32Array;
}

export interface MergedTracks {
  tracks: Tracks;
  /** Matches applied (joined two tracks or extended one). */
  applied: number;
  /** Matches dropped because the two tracks already share an image. */
  conflicts: number;
}

class KeypointUnion {
  /** Parent of each global keypoint id (image offset + keypoint), itself for a root. */
  readonly parent: Int32Array;
  /** Images of each root's component; singletons are created on demand. */
  readonly images = new Map<number, number[]>();

  constructor(size: number) {
    this.parent = new Int32Array(size);
    for (let n = 0; n < size; n++) this.parent[n] = n;
  }

  find(n: number): number {
    let root = n;
    while (this.parent[root] !== root) root = this.parent[root];
    while (this.parent[n] !== root) {
      const next = this.parent[n];
      this.parent[n] = root;
      n = next;
    }
    return root;
  }

  imagesOf(root: number, image: number): number[] {
    return this.images.get(root) ?? [image];
  }

  /** Joins the components of a (in imageA) and b (in imageB) unless they share an image. */
  union(a: number, imageA: number, b: number, imageB: number): "joined" | "same" | "conflict" {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra === rb) return "same";
    const ia = this.imagesOf(ra, imageA);
    const ib = this.imagesOf(rb, imageB);
    const [small, large, rootSmall, rootLarge] = ia.length <= ib.length ? [ia, ib, ra, rb] : [ib, ia, rb, ra];
    if (small.some((image) => large.includes(image))) return "conflict";
    this.parent[rootSmall] = rootLarge;
    this.images.set(rootLarge, large.concat(small));
    this.images.delete(rootSmall);
    return "joined";
  }
}

/** Tracks of `tracks` joined and extended by `extra` matches; `keypointCounts[i]` is image i's keypoint count. */
export function mergeTracks(tracks: Tracks, keypointCounts: ArrayLike<number>, extra: PairMatches[]): MergedTracks {
  const base = new Uint32Array(keypointCounts.length + 1);
  for (let i = 0; i < keypointCounts.length; i++) base[i + 1] = base[i] + keypointCounts[i];
  const union = new KeypointUnion(base[keypointCounts.length]);
  const { trackOffsets, trackImages, trackKeypoints } = tracks;
  for (let k = 0; k < tracks.count; k++) {
    const first = base[trackImages[trackOffsets[k]]] + trackKeypoints[trackOffsets[k]];
    for (let j = trackOffsets[k] + 1; j < trackOffsets[k + 1]; j++) union.parent[base[trackImages[j]] + trackKeypoints[j]] = first;
    union.images.set(first, Array.from(trackImages.subarray(trackOffsets[k], trackOffsets[k + 1])));
  }
  let applied = 0;
  let conflicts = 0;
  for (const { imageA, imageB, matches } of extra) {
    for (let m = 0; m < matches.length; m += 2) {
      const result = union.union(base[imageA] + matches[m], imageA, base[imageB] + matches[m + 1], imageB);
      if (result === "joined") applied++;
      else if (result === "conflict") conflicts++;
    }
  }
  return { tracks: collectTracks(union, base), applied, conflicts };
}

/** CSR tracks of every component with two or more keypoints, observations in image order. */
function collectTracks(union: KeypointUnion, base: Uint32Array): Tracks {
  const members = new Map<number, number[]>();
  for (const root of union.images.keys()) members.set(root, []);
  const total = union.parent.length;
  for (let n = 0; n < total; n++) {
    const list = members.get(union.find(n));
    if (list !== undefined) list.push(n);
  }
  const offsets: number[] = [0];
  const images: number[] = [];
  const keypoints: number[] = [];
  for (const list of members.values()) {
    if (list.length < 2) continue;
    for (const n of list) {
      const image = imageOfNode(base, n);
      images.push(image);
      keypoints.push(n - base[image]);
    }
    offsets.push(images.length);
  }
  return { count: offsets.length - 1, trackOffsets: Uint32Array.from(offsets), trackImages: Uint32Array.from(images), trackKeypoints: Uint32Array.from(keypoints) };
}

/** The image whose id range [base[i], base[i+1]) holds node n (binary search). */
function imageOfNode(base: Uint32Array, n: number): number {
  let lo = 0;
  let hi = base.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (base[mid] <= n) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
