/**
 * @module A generic robust estimator: RANSAC (Fischler & Bolles 1981) with MSAC scoring (Torr &
 * Zisserman 2000: each datum costs min(r², τ²), so inliers are ranked by how well they fit, not
 * just counted), an adaptive number of iterations from the best inlier ratio, and local
 * optimisation (LO-RANSAC, Chum, Matas & Kittler 2003): every new best model is refit on its
 * inliers and the refit kept if it scores better.
 */
import { type Rng, sampleDistinct } from "./random.js";

export interface RansacOptions<M> {
  /** Data points per minimal sample. */
  sampleSize: number;
  /** Number of data points. */
  dataCount: number;
  /** Minimal solver: zero or more models from a sample of data indices. */
  fit(sample: Uint32Array): M[];
  /** Writes each datum's residual (same unit as `threshold`, not squared) into `out` (length dataCount). */
  residuals(model: M, out: Float64Array): void;
  /** Inlier threshold on the residual. */
  threshold: number;
  /** Probability that at least one sample was outlier-free when iteration stops, e.g. 0.999. */
  confidence: number;
  maxIterations: number;
  minIterations?: number;
  rng: Rng;
  /** Non-minimal refit on the inliers of `model` (LO step; `model` may seed an iterative refit); null if it fails. */
  refine?(inlierIndices: Uint32Array, model: M): M | null;
}

export interface RansacResult<M> {
  model: M | null;
  /** 1 for inliers of the returned model. */
  inliers: Uint8Array;
  inlierCount: number;
  iterations: number;
}

/** Local-optimisation rounds per new best model: refit, re-score, refit on the new inliers... */
const LO_ROUNDS = 4;

interface Scored<M> {
  model: M;
  cost: number;
  inlierCount: number;
}

export function ransac<M>(options: RansacOptions<M>): RansacResult<M> {
  const { sampleSize, dataCount, threshold, confidence, maxIterations, rng } = options;
  const minIterations = options.minIterations ?? 0;
  const empty: RansacResult<M> = { model: null, inliers: new Uint8Array(dataCount), inlierCount: 0, iterations: 0 };
  if (dataCount < sampleSize || sampleSize <= 0) return empty;
  const residuals = new Float64Array(dataCount); // scratch: residuals of the model being scored
  const sample = new Uint32Array(sampleSize); // scratch: indices of the current minimal sample
  const thresholdSq = threshold * threshold;
  let best: Scored<M> | null = null;
  let requiredIterations = maxIterations;
  let iteration = 0;
  for (; iteration < Math.max(requiredIterations, minIterations) && iteration < maxIterations; iteration++) {
    sampleDistinct(rng, dataCount, sample);
    for (const model of options.fit(sample)) {
      const scored = score(options, model, residuals, thresholdSq);
      if (best && scored.cost >= best.cost) continue;
      best = options.refine ? localOptimize(options, scored, residuals, thresholdSq) : scored;
      requiredIterations = adaptiveIterations(best.inlierCount / dataCount, sampleSize, confidence, maxIterations);
    }
  }
  if (!best) return { ...empty, iterations: iteration };
  const inliers = new Uint8Array(dataCount);
  options.residuals(best.model, residuals);
  let inlierCount = 0;
  for (let i = 0; i < dataCount; i++) {
    if (residuals[i] < threshold) {
      inliers[i] = 1;
      inlierCount++;
    }
  }
  return { model: best.model, inliers, inlierCount, iterations: iteration };
}

function score<M>(options: RansacOptions<M>, model: M, residuals: Float64Array, thresholdSq: number): Scored<M> {
  options.residuals(model, residuals);
  let cost = 0;
  let inlierCount = 0;
  for (let i = 0; i < residuals.length; i++) {
    const rSq = residuals[i] * residuals[i];
    if (rSq < thresholdSq) {
      cost += rSq;
      inlierCount++;
    } else {
      // NaN residuals (degenerate model) cost the full truncation too.
      cost += thresholdSq;
    }
  }
  return { model, cost, inlierCount };
}

function inlierIndices(residuals: Float64Array, thresholdSq: number): Uint32Array {
  const indices: number[] = [];
  for (let i = 0; i < residuals.length; i++) if (residuals[i] * residuals[i] < thresholdSq) indices.push(i);
  return Uint32Array.from(indices);
}

/** LO step: refit on the inliers while that lowers the MSAC cost. `residuals` holds `start`'s residuals on entry. */
function localOptimize<M>(options: RansacOptions<M>, start: Scored<M>, residuals: Float64Array, thresholdSq: number): Scored<M> {
  let best = start;
  for (let round = 0; round < LO_ROUNDS; round++) {
    options.residuals(best.model, residuals);
    const indices = inlierIndices(residuals, thresholdSq);
    if (indices.length <= options.sampleSize) break;
    const refined = options.refine!(indices, best.model);
    if (!refined) break;
    const scored = score(options, refined, residuals, thresholdSq);
    if (scored.cost >= best.cost) break;
    best = scored;
  }
  return best;
}

/** Iterations k with 1 − (1 − wˢ)ᵏ ≥ confidence for inlier ratio w and sample size s. */
export function adaptiveIterations(inlierRatio: number, sampleSize: number, confidence: number, maxIterations: number): number {
  if (inlierRatio >= 1) return 1;
  const allInlierProbability = Math.pow(inlierRatio, sampleSize);
  if (allInlierProbability <= 0) return maxIterations;
  const denominator = Math.log(1 - allInlierProbability);
  if (denominator >= 0) return maxIterations;
  return Math.min(maxIterations, Math.ceil(Math.log(1 - confidence) / denominator));
}
