/** @module Deterministic pseudo-random numbers, so every estimator and test is reproducible from a seed. */

/** A uniform generator on [0, 1). */
export type Rng = () => number;

/**
 * mulberry32 (Tommy Ettinger, public domain): 32-bit state, period 2³², passes
 * gjrand/PractRand at the sizes we use; fast and tiny, which is all RANSAC needs.
 */
export function createRng(seed: number): Rng {
  // The state in a typed array: a closure's variable above 2³⁰ is a heap number, so every draw
  // allocated one (garbage a dense thread collected; the same draws either way).
  const state = Uint32Array.of(seed >>> 0);
  return function mulberry32(): number {
    const next = (state[0] + 0x6d2b79f5) >>> 0;
    state[0] = next;
    let z = next;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal sample by the Box–Muller transform (one of the pair; the other is discarded). */
export function gaussian(rng: Rng): number {
  // 1 - rng() lies in (0, 1], so the log is finite.
  const radius = Math.sqrt(-2 * Math.log(1 - rng()));
  return radius * Math.cos(2 * Math.PI * rng());
}

/** An integer uniform in [0, n). */
export function randomInt(rng: Rng, n: number): number {
  return Math.floor(rng() * n);
}

/**
 * Fills `out` with distinct indices uniform in [0, n) (n ≥ out.length). Rejection of repeats
 * is fastest for the tiny samples (3–8) robust estimators draw.
 */
export function sampleDistinct(rng: Rng, n: number, out: Uint32Array): Uint32Array {
  for (let i = 0; i < out.length; i++) {
    let candidate = randomInt(rng, n);
    for (let j = 0; j < i; j++) {
      if (out[j] === candidate) {
        candidate = randomInt(rng, n);
        j = -1;
      }
    }
    out[i] = candidate;
  }
  return out;
}
