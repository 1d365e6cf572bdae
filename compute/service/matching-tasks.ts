/**
 * @module Matching by pair batches as tasks (task-coordinator.ts): the payload of one batch of
 * the selected pairs, and the PairBatchRunner that sends a large job's batches out. A job with
 * at most `batchPairs` pairs is matched in its own process.
 *
 * A payload is bytes framed by util/framed.ts: a JSON header (the batch's images without
 * their paths, each one's position in the whole set, the pairs as indices into the batch's
 * images, the stage options), then the batch's images' features as a feature batch
 * (stages/features/encode.ts). Matching needs no photo, only keypoints and descriptors.
 */
import type { ImageFeatures, ImageRef } from "../scene/index.js";
import { decodeFeatureBatch, encodeFeatureBatch } from "../stages/features/index.js";
import { decodePairResults, type Options as MatchingOptions, type PairBatchRunner, type PairResult } from "../stages/matching/index.js";
import { decodeFramed, encodeFramed } from "../util/framed.js";
import type { TaskCoordinator } from "./task-coordinator.js";

const MAGIC = 0x4d545031; // "MTP1"

interface PayloadHeader {
  images: Array<Omit<ImageRef, "path">>;
  positions: number[];
  pairs: number[];
  options: Omit<MatchingOptions, "workers">;
}

export interface MatchingTaskPayload {
  images: ImageRef[];
  features: ImageFeatures[];
  positions: Uint32Array;
  pairs: Uint32Array;
  options: Omit<MatchingOptions, "workers">;
}

export function encodeMatchingPayload(images: ImageRef[], features: ImageFeatures[], positions: Uint32Array, pairs: Uint32Array, options: Omit<MatchingOptions, "workers">): Uint8Array {
  const header: PayloadHeader = { images: images.map(({ path: _path, ...rest }) => rest), positions: [...positions], pairs: [...pairs], options };
  return encodeFramed(MAGIC, header, [encodeFeatureBatch({ features, perImage: [], warnings: [] })], 4);
}

/** The payload, checked: every pair inside the batch, features for every image. Images get no path (the task reads no photo). */
export function decodeMatchingPayload(bytes: Uint8Array): MatchingTaskPayload {
  const { header, rest } = decodeFramed<PayloadHeader>(bytes, MAGIC, 4, "matching task", "matching payload");
  if (!Array.isArray(header.images) || !Array.isArray(header.positions) || !Array.isArray(header.pairs) || typeof header.options !== "object") throw new Error("matching task: malformed payload");
  if (header.positions.length !== header.images.length || header.pairs.length % 2 !== 0) throw new Error("matching task: malformed payload");
  if (header.pairs.some((i) => !Number.isInteger(i) || i < 0 || i >= header.images.length)) throw new Error("matching task: a pair names an image outside the batch");
  const { features } = decodeFeatureBatch(rest());
  const described = new Set(features.map((f) => f.imageIndex));
  const missing = header.images.find((im) => !described.has(im.index));
  if (missing) throw new Error(`matching task: no features for ${missing.name}`);
  return { images: header.images.map((im) => ({ ...im, path: "" })), features, positions: Uint32Array.from(header.positions), pairs: Uint32Array.from(header.pairs), options: header.options };
}

/** The pairs cut into batches of at most `batchPairs`, in selection order (which keeps an image's pairs together). */
function batchesOf(pairs: Uint32Array, batchPairs: number): Uint32Array[] {
  const batches: Uint32Array[] = [];
  for (let start = 0; start < pairs.length; start += 2 * batchPairs) batches.push(pairs.subarray(start, start + 2 * batchPairs));
  return batches;
}

export function matchingTaskRunner(coordinator: TaskCoordinator, batchPairs: number): PairBatchRunner {
  return async (images, features, pairs, options, progress) => {
    if (pairs.length / 2 <= batchPairs) return null;
    const { workers: _workers, ...shared } = options;
    const batches = batchesOf(pairs, batchPairs);
    const payloads = batches.map((batch, b) => {
      // The batch's images in set order; the pairs re-indexed into them.
      const positions = Uint32Array.from(new Set(batch)).sort();
      const local = new Map([...positions].map((position, i) => [position, i]));
      const payload = encodeMatchingPayload([...positions].map((p) => images[p]), [...positions].map((p) => features[p]), positions, Uint32Array.from(batch, (p) => local.get(p)!), shared);
      return { key: `matching-${String(b).padStart(4, "0")}`, payload };
    });
    const results = await coordinator.run("matching-batch", payloads, progress);
    const decoded: PairResult[] = results.flatMap((bytes) => decodePairResults(bytes));
    if (decoded.length !== pairs.length / 2) throw new Error(`matching tasks: ${decoded.length} results for ${pairs.length / 2} pairs`);
    decoded.forEach((r, k) => {
      if (r.a !== pairs[2 * k] || r.b !== pairs[2 * k + 1]) throw new Error(`matching tasks: result ${k} is for pair ${r.a}-${r.b}, expected ${pairs[2 * k]}-${pairs[2 * k + 1]}`);
    });
    return { results: decoded, batches: batches.length };
  };
}
