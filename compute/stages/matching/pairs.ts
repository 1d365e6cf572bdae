/**
 * @module Which image pairs to match, so cost grows about linearly with the image count:
 *  - up to `exhaustiveMaxImages` images: every pair (n(n−1)/2; best recall, still cheap);
 *  - video keyframes: each frame with its next `sequentialWindow` frames of the same video, plus
 *    `loopClosureNeighbours` retrieval candidates outside that window (a return to an earlier
 *    view closes the loop and bounds drift);
 *  - other images: their `retrievalNeighbours` most similar images (retrieval.ts), and, when
 *    most stills carry an EXIF GPS position (drones and phones write one), also their
 *    `gpsNeighbours` nearest photos: on a survey of fields and roofs that look alike everywhere,
 *    position finds the overlapping photos that appearance may rank low.
 * Returns sorted (a, b) pairs with a < b, each once.
 */
import type { ImageRef } from "../../scene/images.js";
import { learnVocabularyTree, topNeighbours, wordVectors, type PackedImage, type RetrievalOptions } from "./retrieval.js";

export interface PairOptions {
  exhaustiveMaxImages: number;
  sequentialWindow: number;
  loopClosureNeighbours: number;
  retrievalNeighbours: number;
  /** Nearest photos by GPS position added per still, when at least `gpsMinShare` of the stills have one. */
  gpsNeighbours: number;
  gpsMinShare: number;
  retrieval: RetrievalOptions;
}

export interface PairSelection {
  pairs: Uint32Array;
  /** How pairs were chosen: "exhaustive", or the sources joined by "+" (sequential, retrieval, gps). */
  strategy: string;
}

export function selectPairs(images: ImageRef[], packed: PackedImage[], words: number, options: PairOptions): PairSelection {
  const n = images.length;
  const keys = new Set<number>();
  const add = (i: number, j: number) => {
    if (i !== j) keys.add(Math.min(i, j) * n + Math.max(i, j));
  };
  if (n <= options.exhaustiveMaxImages) {
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) add(i, j);
    return { pairs: toPairs(keys, n), strategy: "exhaustive" };
  }
  const sequential = sequentialNeighbours(images, options.sequentialWindow);
  for (const [i, j] of sequential) add(i, j);
  const tree = learnVocabularyTree(packed, words, options.retrieval);
  const vectors = wordVectors(packed, tree, options.retrieval.perImage);
  const ranks = videoRanks(images);
  const sameWindow = (i: number, j: number) => {
    const a = images[i].video;
    const b = images[j].video;
    return !!a && !!b && a.file === b.file && Math.abs(ranks[i] - ranks[j]) <= options.sequentialWindow;
  };
  const stillNeighbours = topNeighbours(vectors, options.retrievalNeighbours, (i, j) => !sameWindow(i, j), tree.count);
  for (let i = 0; i < n; i++) {
    const limit = images[i].video ? options.loopClosureNeighbours : options.retrievalNeighbours;
    for (const j of stillNeighbours[i].slice(0, limit)) add(i, j);
  }
  const byPosition = gpsNeighbours(images, options.gpsNeighbours, options.gpsMinShare);
  for (const [i, j] of byPosition) add(i, j);
  const sources = [...(sequential.length > 0 ? ["sequential"] : []), "retrieval", ...(byPosition.length > 0 ? ["gps"] : [])];
  return { pairs: toPairs(keys, n), strategy: sources.join("+") };
}

/** Mean Earth radius (m), for local distances between nearby GPS positions. */
const EARTH_RADIUS_M = 6_371_000;

/**
 * Each still with a GPS position paired with its `k` nearest such stills (local east-north-up
 * metres, altitude included), when at least `minShare` of the stills have a position: a few
 * photos without one still get their pairs from retrieval. Brute force over the positions:
 * 2 × 10⁶ distance evaluations at 1,500 photos, milliseconds.
 */
function gpsNeighbours(images: ImageRef[], k: number, minShare: number): Array<[number, number]> {
  const stills = images.filter((im) => !im.video);
  const located = stills.filter((im) => im.gps);
  if (k <= 0 || located.length < 2 || located.length < minShare * stills.length) return [];
  const origin = located[0].gps!;
  const cosLatitude = Math.cos((origin.latitudeDeg * Math.PI) / 180);
  const enu = located.map((im) => [
    (((im.gps!.longitudeDeg - origin.longitudeDeg) * Math.PI) / 180) * EARTH_RADIUS_M * cosLatitude,
    (((im.gps!.latitudeDeg - origin.latitudeDeg) * Math.PI) / 180) * EARTH_RADIUS_M,
    (im.gps!.altitudeM ?? 0) - (origin.altitudeM ?? 0),
  ]);
  const out: Array<[number, number]> = [];
  enu.forEach((p, a) => {
    const nearest = enu
      .map((q, b) => ({ b, d: Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]) }))
      .filter(({ b }) => b !== a)
      .sort((x, y) => x.d - y.d || x.b - y.b)
      .slice(0, k);
    for (const { b } of nearest) out.push([located[a].index, located[b].index]);
  });
  return out;
}

/** Keyframes of each video, in frame order. */
function framesByVideo(images: ImageRef[]): ImageRef[][] {
  const byVideo = new Map<string, ImageRef[]>();
  for (const im of images) if (im.video) byVideo.set(im.video.file, [...(byVideo.get(im.video.file) ?? []), im]);
  return [...byVideo.values()].map((frames) => frames.sort((p, q) => p.video!.frame - q.video!.frame));
}

/** Rank of each image among its video's keyframes (-1 for stills). */
function videoRanks(images: ImageRef[]): Int32Array {
  const ranks = new Int32Array(images.length).fill(-1);
  for (const frames of framesByVideo(images)) frames.forEach((im, r) => (ranks[im.index] = r));
  return ranks;
}

/** Pairs of keyframes of one video at most `window` keyframes apart. */
function sequentialNeighbours(images: ImageRef[], window: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const frames of framesByVideo(images)) {
    for (let r = 0; r < frames.length; r++) for (let s = r + 1; s <= r + window && s < frames.length; s++) out.push([frames[r].index, frames[s].index]);
  }
  return out;
}

function toPairs(keys: Set<number>, n: number): Uint32Array {
  const sorted = Float64Array.from(keys).sort();
  const out = new Uint32Array(2 * sorted.length);
  sorted.forEach((key, k) => {
    out[2 * k] = Math.floor(key / n);
    out[2 * k + 1] = key % n;
  });
  return out;
}
