/**
 * @module Tracks from verified pairwise matches: union-find (path halving, union by size) over
 * (image, keypoint) observations, as in Moulon & Monasse, "Unordered feature tracking made fast
 * and easy" (CVMP 2012). A track that reaches two different keypoints of one image is
 * inconsistent (some match in it is wrong) and is dropped whole, not split.
 */
import type { Tracks, VerifiedPair } from "../../scene/matches.js";

export interface TrackStats {
  tracks: number;
  observations: number;
  inconsistent: number;
}

/** `counts[i]`: keypoint count of image i. */
export function buildTracks(pairs: VerifiedPair[], counts: ArrayLike<number>): { tracks: Tracks; stats: TrackStats } {
  const imageCount = counts.length;
  const offsets = new Uint32Array(imageCount + 1); // node id of keypoint k of image i = offsets[i] + k
  for (let i = 0; i < imageCount; i++) offsets[i + 1] = offsets[i] + counts[i];
  const nodes = offsets[imageCount];
  const parent = new Int32Array(nodes).map((_, i) => i);
  const size = new Uint32Array(nodes).fill(1);
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  };
  const matched = new Uint8Array(nodes); // 1 when the observation is in at least one match
  for (const pair of pairs) {
    const { matches, imageA, imageB } = pair;
    for (let k = 0; k < matches.length; k += 2) {
      const u = offsets[imageA] + matches[k];
      const v = offsets[imageB] + matches[k + 1];
      matched[u] = matched[v] = 1;
      let ru = find(u);
      let rv = find(v);
      if (ru === rv) continue;
      if (size[ru] < size[rv]) [ru, rv] = [rv, ru];
      parent[rv] = ru;
      size[ru] += size[rv];
    }
  }
  // Group observations by root (counting sort), then check each group for repeated images.
  const rootOf = new Int32Array(nodes).fill(-1);
  const groupSize = new Uint32Array(nodes);
  for (let x = 0; x < nodes; x++) {
    if (!matched[x]) continue;
    rootOf[x] = find(x);
    groupSize[rootOf[x]]++;
  }
  const groupStart = new Uint32Array(nodes + 1);
  for (let r = 0; r < nodes; r++) groupStart[r + 1] = groupStart[r] + groupSize[r];
  const members = new Uint32Array(groupStart[nodes]);
  const fill = groupStart.slice(0, nodes);
  for (let x = 0; x < nodes; x++) if (rootOf[x] >= 0) members[fill[rootOf[x]]++] = x;
  const imageOfNode = new Uint32Array(nodes);
  for (let i = 0; i < imageCount; i++) imageOfNode.fill(i, offsets[i], offsets[i + 1]);
  const seenIn = new Int32Array(imageCount).fill(-1); // seenIn[image] = last root that used it
  const trackOffsets: number[] = [0];
  const trackImages: number[] = [];
  const trackKeypoints: number[] = [];
  let inconsistent = 0;
  for (let r = 0; r < nodes; r++) {
    const from = groupStart[r];
    const to = groupStart[r + 1];
    if (to - from < 2) continue;
    let consistent = true;
    for (let m = from; m < to && consistent; m++) {
      const image = imageOfNode[members[m]];
      if (seenIn[image] === r) consistent = false;
      seenIn[image] = r;
    }
    if (!consistent) {
      inconsistent++;
      continue;
    }
    for (let m = from; m < to; m++) {
      const image = imageOfNode[members[m]];
      trackImages.push(image);
      trackKeypoints.push(members[m] - offsets[image]);
    }
    trackOffsets.push(trackImages.length);
  }
  const tracks: Tracks = { count: trackOffsets.length - 1, trackOffsets: Uint32Array.from(trackOffsets), trackImages: Uint32Array.from(trackImages), trackKeypoints: Uint32Array.from(trackKeypoints) };
  return { tracks, stats: { tracks: tracks.count, observations: trackImages.length, inconsistent } };
}
