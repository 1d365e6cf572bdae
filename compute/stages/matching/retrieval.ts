/**
 * @module Image retrieval for large unordered sets: a vocabulary tree of binary visual words
 * (Nistér & Stewénius, "Scalable recognition with a vocabulary tree", CVPR 2006), each node
 * split by k-majority (Grana et al., "A fast approach for integrating ORB descriptors in the
 * bag of words model", 2013: k-means with Hamming distance, centroids = per-bit majority) on a
 * sample of descriptors; tf-idf weighted word histograms, L2-normalised, scored by cosine
 * similarity through an inverted file, top-k neighbours per image.
 *
 * Why a tree: a flat vocabulary of a few hundred words gave 65 % recall of the truly
 * overlapping pairs on a 50-photo survey of even, everywhere-alike texture; 4,096 words gave
 * 100 % but cost 4,096 distances per descriptor. The tree reaches as many words with
 * branching × depth distances per descriptor, and the inverted file keeps scoring sparse.
 */
import { createRng } from "../../math/random.js";
import { nearestNeighbours } from "./kernel.js";

export interface RetrievalOptions {
  /** Children of every node of the vocabulary tree. */
  branching: number;
  /** Levels below the root: up to branching^depth words. */
  depth: number;
  /** Descriptors sampled in total to learn the vocabulary. */
  trainingSample: number;
  /** k-majority iterations per node. */
  iterations: number;
  /** Descriptors per image quantised into its histogram (evenly strided). */
  perImage: number;
}

/** One image's packed descriptor rows. */
export interface PackedImage {
  rows: Uint32Array;
  count: number;
}

/**
 * The tree: node 0 is the root (no centroid); the children of node n are the nodes
 * firstChild[n] … firstChild[n] + childCount[n] − 1, whose centroids are the rows of
 * `centroids` with the same indices. A node without children is a word (`wordOf`, else −1).
 */
export interface VocabularyTree {
  words: number;
  centroids: Uint32Array;
  firstChild: Int32Array;
  childCount: Int32Array;
  wordOf: Int32Array;
  /** Number of words (leaves). */
  count: number;
}

/** One image's tf-idf vector: the words it contains (ascending) and their weights (L2 norm 1). */
export interface WordVector {
  words: Uint32Array;
  weights: Float64Array;
}

/** k-majority clustering of `n` rows into at most `k` centres; returns the non-empty centres and each row's centre. */
function kMajority(rows: Uint32Array, n: number, k: number, words: number, iterations: number, rng: () => number): { centroids: Uint32Array; count: number; assignment: Int32Array } {
  let centroids = new Uint32Array(k * words);
  // Seeds: k distinct rows chosen at random (k-means++ costs k passes; the tree repeats the split at every node).
  const picked = new Set<number>();
  for (let c = 0; c < k && picked.size < n; c++) {
    let row = Math.floor(rng() * n);
    while (picked.has(row)) row = (row + 1) % n;
    picked.add(row);
    centroids.set(rows.subarray(row * words, (row + 1) * words), c * words);
  }
  let count = picked.size;
  const bitVotes = new Uint32Array(k * words * 32); // per centroid, per bit: ones among members
  const members = new Uint32Array(k);
  let assignment = nearestNeighbours(rows, n, centroids, count, words).argA;
  for (let iteration = 0; iteration < iterations; iteration++) {
    bitVotes.fill(0);
    members.fill(0);
    for (let s = 0; s < n; s++) {
      const c = assignment[s];
      members[c]++;
      for (let w = 0; w < words; w++) {
        let v = rows[s * words + w];
        const base = (c * words + w) * 32;
        // Visit the set bits only (lowest first).
        while (v !== 0) {
          bitVotes[base + 31 - Math.clz32(v & -v)]++;
          v &= v - 1;
        }
      }
    }
    for (let c = 0; c < count; c++) {
      if (members[c] === 0) continue; // an empty centre keeps its place until the end
      for (let w = 0; w < words; w++) {
        let value = 0;
        for (let bit = 0; bit < 32; bit++) if (2 * bitVotes[(c * words + w) * 32 + bit] > members[c]) value |= 1 << bit;
        centroids[c * words + w] = value >>> 0;
      }
    }
    assignment = nearestNeighbours(rows, n, centroids, count, words).argA;
  }
  // Drop empty centres so that every child has members.
  members.fill(0);
  for (let s = 0; s < n; s++) members[assignment[s]]++;
  const remap = new Int32Array(count).fill(-1);
  let kept = 0;
  for (let c = 0; c < count; c++) if (members[c] > 0) remap[c] = kept++;
  if (kept < count) {
    const compact = new Uint32Array(kept * words);
    for (let c = 0; c < count; c++) if (remap[c] >= 0) compact.set(centroids.subarray(c * words, (c + 1) * words), remap[c] * words);
    centroids = compact;
    count = kept;
    for (let s = 0; s < n; s++) assignment[s] = remap[assignment[s]];
  }
  return { centroids, count, assignment };
}

/** An even sample of `take` descriptor rows over all images, in proportion to their counts. */
function sampleRows(images: PackedImage[], words: number, take: number, rng: () => number): { rows: Uint32Array; count: number } {
  const total = images.reduce((s, im) => s + im.count, 0);
  const want = Math.min(total, take);
  const rows = new Uint32Array(want * words);
  let n = 0;
  for (const im of images) {
    const share = Math.round((want * im.count) / Math.max(1, total));
    for (let s = 0; s < share && n < want; s++) {
      const row = Math.floor(rng() * im.count);
      rows.set(im.rows.subarray(row * words, (row + 1) * words), n++ * words);
    }
  }
  return { rows, count: n };
}

/** Learn a vocabulary tree (packed rows of `words` Uint32 each) from a sample of every image's descriptors. */
export function learnVocabularyTree(images: PackedImage[], words: number, options: RetrievalOptions, seed = 1): VocabularyTree {
  const rng = createRng(seed);
  const sample = sampleRows(images, words, options.trainingSample, rng);
  const centroidRows: Uint32Array[] = [new Uint32Array(words)]; // the root's row is unused
  const firstChild: number[] = [-1];
  const childCount: number[] = [0];
  // Breadth first: each entry is a node, its level and the sample rows that reached it.
  const queue: Array<{ node: number; level: number; members: Uint32Array }> = [{ node: 0, level: 0, members: Uint32Array.from({ length: sample.count }, (_, i) => i) }];
  for (let head = 0; head < queue.length; head++) {
    const { node, level, members } = queue[head];
    if (level >= options.depth || members.length < 2 * options.branching) continue;
    const rows = new Uint32Array(members.length * words);
    members.forEach((m, i) => rows.set(sample.rows.subarray(m * words, (m + 1) * words), i * words));
    const split = kMajority(rows, members.length, options.branching, words, options.iterations, rng);
    if (split.count < 2) continue;
    firstChild[node] = centroidRows.length;
    childCount[node] = split.count;
    const byChild: number[][] = Array.from({ length: split.count }, () => []);
    members.forEach((m, i) => byChild[split.assignment[i]].push(m));
    for (let c = 0; c < split.count; c++) {
      const child = centroidRows.length;
      centroidRows.push(split.centroids.slice(c * words, (c + 1) * words));
      firstChild.push(-1);
      childCount.push(0);
      queue.push({ node: child, level: level + 1, members: Uint32Array.from(byChild[c]) });
    }
  }
  const nodes = centroidRows.length;
  const centroids = new Uint32Array(nodes * words);
  centroidRows.forEach((row, i) => centroids.set(row, i * words));
  const wordOf = new Int32Array(nodes).fill(-1);
  let count = 0;
  for (let node = 0; node < nodes; node++) if (childCount[node] === 0) wordOf[node] = count++;
  return { words, centroids, firstChild: Int32Array.from(firstChild), childCount: Int32Array.from(childCount), wordOf, count };
}

/** The word of each of `count` packed rows: descend the tree level by level, one kernel call per node and level. */
export function quantize(tree: VocabularyTree, rows: Uint32Array, count: number): Uint32Array {
  const { words } = tree;
  const at = new Int32Array(count); // every row starts at the root
  // A root without children (too few descriptors to split) is the only word.
  let active = tree.childCount[0] > 0 ? Int32Array.from({ length: count }, (_, i) => i) : new Int32Array(0);
  while (active.length > 0) {
    // Group the rows still at an inner node by that node (counting sort over node ids).
    const byNode = new Map<number, number[]>();
    for (const r of active) {
      const list = byNode.get(at[r]);
      if (list) list.push(r);
      else byNode.set(at[r], [r]);
    }
    const next: number[] = [];
    for (const [node, members] of byNode) {
      const first = tree.firstChild[node];
      const children = tree.childCount[node];
      const block = new Uint32Array(members.length * words);
      members.forEach((r, i) => block.set(rows.subarray(r * words, (r + 1) * words), i * words));
      const nearest = nearestNeighbours(block, members.length, tree.centroids.subarray(first * words, (first + children) * words), children, words).argA;
      members.forEach((r, i) => {
        at[r] = first + nearest[i];
        if (tree.childCount[at[r]] > 0) next.push(r);
      });
    }
    active = Int32Array.from(next);
  }
  const out = new Uint32Array(count);
  for (let r = 0; r < count; r++) out[r] = tree.wordOf[at[r]];
  return out;
}

/** Images quantised together: one descent per batch keeps the kernel calls few and the copied rows bounded. */
const QUANTIZE_BATCH_IMAGES = 64;

/** Every image's L2-normalised tf-idf vector over the tree's words, from `perImage` evenly strided descriptors. */
export function wordVectors(images: PackedImage[], tree: VocabularyTree, perImage: number): WordVector[] {
  const { words } = tree;
  const histograms: Array<Map<number, number>> = [];
  for (let start = 0; start < images.length; start += QUANTIZE_BATCH_IMAGES) {
    const batch = images.slice(start, start + QUANTIZE_BATCH_IMAGES);
    const strides = batch.map((im) => Math.max(1, Math.floor(im.count / perImage)));
    const takes = batch.map((im, b) => Math.ceil(im.count / strides[b]));
    const rows = new Uint32Array(takes.reduce((s, t) => s + t, 0) * words);
    let at = 0;
    batch.forEach((im, b) => {
      for (let s = 0; s < takes[b]; s++) rows.set(im.rows.subarray(s * strides[b] * words, (s * strides[b] + 1) * words), at++ * words);
    });
    const wordOfRow = quantize(tree, rows, at);
    let row = 0;
    for (const take of takes) {
      const histogram = new Map<number, number>();
      for (let s = 0; s < take; s++, row++) histogram.set(wordOfRow[row], (histogram.get(wordOfRow[row]) ?? 0) + 1 / take);
      histograms.push(histogram);
    }
  }
  const documentFrequency = new Float64Array(tree.count);
  for (const histogram of histograms) for (const word of histogram.keys()) documentFrequency[word]++;
  return histograms.map((histogram) => {
    const ids = Uint32Array.from(histogram.keys()).sort();
    const weights = Float64Array.from(ids, (word) => histogram.get(word)! * Math.log(images.length / documentFrequency[word]));
    let norm = 0;
    for (const w of weights) norm += w * w;
    norm = Math.sqrt(norm) || 1;
    for (let k = 0; k < weights.length; k++) weights[k] /= norm;
    return { words: ids, weights };
  });
}

/** For each image, the `neighbours` most similar other images allowed by `allow`, best first (cosine through an inverted file). */
export function topNeighbours(vectors: WordVector[], neighbours: number, allow: (i: number, j: number) => boolean, vocabularySize: number): number[][] {
  const n = vectors.length;
  // Inverted file: for each word, the images containing it and their weights.
  const postingCount = new Uint32Array(vocabularySize + 1);
  for (const v of vectors) for (const word of v.words) postingCount[word + 1]++;
  for (let w = 0; w < vocabularySize; w++) postingCount[w + 1] += postingCount[w];
  const postingImage = new Uint32Array(postingCount[vocabularySize]);
  const postingWeight = new Float64Array(postingCount[vocabularySize]);
  const fill = postingCount.slice(0, vocabularySize);
  vectors.forEach((v, image) => {
    v.words.forEach((word, k) => {
      postingImage[fill[word]] = image;
      postingWeight[fill[word]++] = v.weights[k];
    });
  });
  const scores = new Float64Array(n);
  const out: number[][] = [];
  for (let i = 0; i < n; i++) {
    scores.fill(0);
    const { words, weights } = vectors[i];
    for (let k = 0; k < words.length; k++) {
      const weight = weights[k];
      if (weight === 0) continue; // a word every image has (idf 0)
      for (let p = postingCount[words[k]]; p < postingCount[words[k] + 1]; p++) scores[postingImage[p]] += weight * postingWeight[p];
    }
    const candidates = Array.from({ length: n }, (_, j) => j).filter((j) => j !== i && allow(i, j));
    candidates.sort((p, q) => scores[q] - scores[p] || p - q);
    out.push(candidates.slice(0, neighbours));
  }
  return out;
}
