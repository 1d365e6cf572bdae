/**
 * @module Matching a list of image pairs on a pool of workers (pair.ts): the whole set's pairs
 * in one process (index.ts), or one batch of them as a task on another container
 * (`runPairBatch`, compute/service/matching-tasks.ts).
 */
import { availableParallelism } from "node:os";
import type { ImageFeatures } from "../../scene/features.js";
import type { ImageRef } from "../../scene/images.js";
import { WorkerPool, type TaskRunner } from "../../util/pool.js";
import { DEFAULTS, type Options } from "./options.js";
import type { MatchingShared, PairResult, PairTask } from "./pair.js";
import { orderFeatures, shareFeatures } from "./shared.js";

/**
 * Matches the pairs elsewhere (batches as tasks on other containers): one result per pair in
 * `pairs`' order, with image indices into `images`, and how many batches ran; null leaves them
 * to this process.
 */
export type PairBatchRunner = (images: ImageRef[], features: ImageFeatures[], pairs: Uint32Array, options: Options, progress: (fraction: number) => void) => Promise<{ results: PairResult[]; batches: number } | null>;

/** Matches `pairs` (flat index pairs into the shared images) on `pool`; `onDone` after each. */
export function matchPairList(pairs: Uint32Array, shared: MatchingShared, pool: TaskRunner<PairTask, PairResult>, onDone: (result: PairResult) => void): Promise<PairResult[]> {
  return Promise.all(
    Array.from({ length: pairs.length / 2 }, async (_, k) => {
      const result = await pool.run({ a: pairs[2 * k], b: pairs[2 * k + 1], shared });
      onDone(result);
      return result;
    }),
  );
}

/**
 * One batch of a larger set's pairs: `images` and `features` are the batch's images, `pairs`
 * index into them, and `positions[i]` is image i's position in the whole set. Pairs are seeded
 * by their positions and the results carry them, so a batch gives exactly what the whole set's
 * run gives for those pairs.
 */
export async function runPairBatch(images: ImageRef[], features: ImageFeatures[], pairs: Uint32Array, positions: Uint32Array, options: Partial<Options>, progress?: (fraction: number) => void): Promise<PairResult[]> {
  const opts: Options = { ...DEFAULTS, ...options, retrieval: { ...DEFAULTS.retrieval, ...options.retrieval } };
  if (positions.length !== images.length) throw new Error(`matching: ${positions.length} positions for ${images.length} images`);
  for (let k = 0; k < pairs.length; k++) if (pairs[k] >= images.length) throw new Error(`matching: pair index ${pairs[k]} outside the batch's ${images.length} images`);
  const shared = shareFeatures(images, orderFeatures(images, features), opts, positions);
  const count = pairs.length / 2;
  const pool = new WorkerPool<PairTask, PairResult>(new URL("./worker.ts", import.meta.url), { size: Math.max(1, Math.min(opts.workers ?? availableParallelism(), count)) });
  let done = 0;
  try {
    const results = await matchPairList(pairs, shared, pool, () => progress?.(++done / count));
    return results.map((r) => atPositions(r, positions));
  } finally {
    await pool.close();
  }
}

/** The result with its image indices replaced by their positions in the whole set. */
function atPositions(result: PairResult, positions: Uint32Array): PairResult {
  const out: PairResult = { ...result, a: positions[result.a], b: positions[result.b] };
  if (result.pair) out.pair = { ...result.pair, imageA: positions[result.pair.imageA], imageB: positions[result.pair.imageB] };
  return out;
}
