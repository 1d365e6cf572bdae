/**
 * @module Image retrieval for large unordered sets: a flat vocabulary of binary visual words
 * learned by k-majority (Grana et al., "A fast approach for integrating ORB descriptors in the
 * bag of words model", 2013: k-means with Hamming distance, centroids = per-bit majority) on a
 * sample of descriptors, tf-idf weighted word histograms compared by cosine similarity
 * (Nistér & Stewénius, CVPR 2006, without the tree: a few hundred words over a few thousand
 * descriptors per image is cheap enough flat with the WebAssembly kernel), top-k neighbours per image.
 */
import { createRng } from "../../math/random.js";
import { nearestNeighbours } from "./kernel.js";

export interface RetrievalOptions {
  vocabularySize: number;
  /** Descriptors sampled in total to learn the vocabulary. */
  trainingSample: number;
  iterations: number;
  /** Descriptors per image quantised into its histogram (evenly strided). */
  perImage: number;
}

/** One image's packed descriptor rows. */
export interface PackedImage {
  rows: Uint32Array;
  count: number;
}

/** Learn `vocabularySize` binary words (packed rows, `words` Uint32 each). */
export function learnVocabulary(images: PackedImage[], words: number, options: RetrievalOptions, seed = 1): { centroids: Uint32Array; count: number } {
  const rng = createRng(seed);
  const total = images.reduce((s, im) => s + im.count, 0);
  const take = Math.min(total, options.trainingSample);
  const sample = new Uint32Array(take * words);
  let n = 0;
  for (const im of images) {
    const share = Math.round((take * im.count) / Math.max(1, total));
    for (let s = 0; s < share && n < take; s++) {
      const row = Math.floor(rng() * im.count);
      sample.set(im.rows.subarray(row * words, (row + 1) * words), n++ * words);
    }
  }
  const k = Math.min(options.vocabularySize, n);
  const centroids = new Uint32Array(k * words);
  for (let c = 0; c < k; c++) {
    const row = Math.floor(rng() * n);
    centroids.set(sample.subarray(row * words, (row + 1) * words), c * words);
  }
  const bitVotes = new Uint32Array(k * words * 32); // per centroid, per bit: ones among members
  const members = new Uint32Array(k);
  for (let iteration = 0; iteration < options.iterations; iteration++) {
    const assignment = nearestNeighbours(sample, n, centroids, k, words).argA;
    bitVotes.fill(0);
    members.fill(0);
    for (let s = 0; s < n; s++) {
      const c = assignment[s];
      members[c]++;
      for (let w = 0; w < words; w++) {
        const v = sample[s * words + w];
        if (v === 0) continue;
        const base = (c * words + w) * 32;
        for (let bit = 0; bit < 32; bit++) if ((v >>> bit) & 1) bitVotes[base + bit]++;
      }
    }
    for (let c = 0; c < k; c++) {
      if (members[c] === 0) continue; // an empty word keeps its old centre
      for (let w = 0; w < words; w++) {
        let value = 0;
        for (let bit = 0; bit < 32; bit++) if (2 * bitVotes[(c * words + w) * 32 + bit] > members[c]) value |= 1 << bit;
        centroids[c * words + w] = value >>> 0;
      }
    }
  }
  return { centroids, count: k };
}

/** L2-normalised tf-idf histograms, one row of `vocabulary.count` per image. */
export function histograms(images: PackedImage[], words: number, vocabulary: { centroids: Uint32Array; count: number }, perImage: number): Float64Array {
  const k = vocabulary.count;
  const out = new Float64Array(images.length * k);
  const documentFrequency = new Float64Array(k);
  images.forEach((im, i) => {
    const stride = Math.max(1, Math.floor(im.count / perImage));
    const take = Math.ceil(im.count / stride);
    const rows = new Uint32Array(take * words);
    for (let s = 0; s < take; s++) rows.set(im.rows.subarray(s * stride * words, (s * stride + 1) * words), s * words);
    const assignment = nearestNeighbours(rows, take, vocabulary.centroids, k, words).argA;
    for (let s = 0; s < take; s++) out[i * k + assignment[s]] += 1 / take;
    for (let c = 0; c < k; c++) if (out[i * k + c] > 0) documentFrequency[c]++;
  });
  for (let i = 0; i < images.length; i++) {
    let norm = 0;
    for (let c = 0; c < k; c++) {
      const v = out[i * k + c] * Math.log(images.length / Math.max(1, documentFrequency[c]));
      out[i * k + c] = v;
      norm += v * v;
    }
    norm = Math.sqrt(norm) || 1;
    for (let c = 0; c < k; c++) out[i * k + c] /= norm;
  }
  return out;
}

/** For each image, the `neighbours` most similar other images allowed by `allow`, best first. */
export function topNeighbours(vectors: Float64Array, imageCount: number, neighbours: number, allow: (i: number, j: number) => boolean): number[][] {
  const k = vectors.length / Math.max(1, imageCount);
  const out: number[][] = [];
  const scores = new Float64Array(imageCount);
  for (let i = 0; i < imageCount; i++) {
    for (let j = 0; j < imageCount; j++) {
      let dot = 0;
      for (let c = 0; c < k; c++) dot += vectors[i * k + c] * vectors[j * k + c];
      scores[j] = dot;
    }
    const candidates = Array.from({ length: imageCount }, (_, j) => j).filter((j) => j !== i && allow(i, j));
    candidates.sort((p, q) => scores[q] - scores[p]);
    out.push(candidates.slice(0, neighbours));
  }
  return out;
}
