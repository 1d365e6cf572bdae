/**
 * @module Global seam levelling: an additive colour correction per chart vertex, chosen so that
 * the two sides of every seam meet (photos differ in exposure and white balance) while each
 * chart's correction varies smoothly (Lempitsky and Ivanov, "Seamless mosaicing of image-based
 * texture maps", CVPR 2007; as used by Waechter et al., ECCV 2014, §5.1):
 *
 *   min_g  Σ_seams (f_i + g_i − f_j − g_j)²  +  w_edge · Σ_chart edges (g_i − g_j)²  +  ε · Σ g_i²
 *
 * where i, j are copies of one mesh vertex in two charts and f their colours in their photos.
 * Solved per channel by conjugate gradients with a Jacobi preconditioner on the normal
 * equations, which are a weighted graph Laplacian plus ε·I (symmetric positive definite).
 */

export interface LevellingProblem {
  vertexCount: number;
  /** Colour of each chart vertex in its photo, 3 per vertex (0–255); NaN where it has none. */
  colours: Float32Array;
  /** Pairs (i, j) of copies of one mesh vertex in two textured charts. */
  seamPairs: Uint32Array;
  /** Pairs (i, j) joined by an edge inside one chart. */
  chartEdges: Uint32Array;
}

export interface LevellingOptions {
  edgeWeight: number;
  regularisation: number;
  maxIterations: number;
  /** Stop when the residual norm falls below this fraction of the right-hand side's. */
  tolerance: number;
}

/** y = A·x for the normal equations of the levelling problem. */
function multiply(problem: LevellingProblem, options: LevellingOptions, x: Float64Array, y: Float64Array): void {
  for (let i = 0; i < x.length; i++) y[i] = options.regularisation * x[i];
  const { seamPairs, chartEdges } = problem;
  for (let k = 0; k < seamPairs.length; k += 2) {
    const i = seamPairs[k], j = seamPairs[k + 1];
    const d = x[i] - x[j];
    y[i] += d; y[j] -= d;
  }
  const w = options.edgeWeight;
  for (let k = 0; k < chartEdges.length; k += 2) {
    const i = chartEdges[k], j = chartEdges[k + 1];
    const d = w * (x[i] - x[j]);
    y[i] += d; y[j] -= d;
  }
}

/** The normal equations' diagonal (the Jacobi preconditioner). */
function levellingDiagonal(problem: LevellingProblem, options: LevellingOptions): Float64Array {
  const diagonal = new Float64Array(problem.vertexCount).fill(options.regularisation);
  for (let k = 0; k < problem.seamPairs.length; k += 2) { diagonal[problem.seamPairs[k]] += 1; diagonal[problem.seamPairs[k + 1]] += 1; }
  for (let k = 0; k < problem.chartEdges.length; k += 2) { diagonal[problem.chartEdges[k]] += options.edgeWeight; diagonal[problem.chartEdges[k + 1]] += options.edgeWeight; }
  return diagonal;
}

/**
 * One channel's corrections (one per vertex) and the iterations used. The channels are
 * independent problems, so they may be solved on different threads (texture/index.ts).
 */
export function solveLevellingChannel(problem: LevellingProblem, options: LevellingOptions, channel: number): { corrections: Float32Array; iterations: number } {
  const n = problem.vertexCount;
  const diagonal = levellingDiagonal(problem, options);
  const b = new Float64Array(n), x = new Float64Array(n), r = new Float64Array(n), z = new Float64Array(n), p = new Float64Array(n), q = new Float64Array(n);
  for (let k = 0; k < problem.seamPairs.length; k += 2) {
    const i = problem.seamPairs[k], j = problem.seamPairs[k + 1];
    const d = problem.colours[3 * i + channel] - problem.colours[3 * j + channel];
    if (!Number.isFinite(d)) continue;
    // ∂/∂g_i of (d + g_i − g_j)² / 2 = d + …: the right-hand side is −d for i, +d for j.
    b[i] -= d; b[j] += d;
  }
  let bNorm = 0;
  for (let i = 0; i < n; i++) bNorm += b[i] * b[i];
  bNorm = Math.sqrt(bNorm);
  if (bNorm === 0) return { corrections: new Float32Array(n), iterations: 0 };
  r.set(b);
  for (let i = 0; i < n; i++) { z[i] = r[i] / diagonal[i]; p[i] = z[i]; }
  let rz = 0;
  for (let i = 0; i < n; i++) rz += r[i] * z[i];
  let it = 0;
  for (; it < options.maxIterations; it++) {
    multiply(problem, options, p, q);
    let pq = 0;
    for (let i = 0; i < n; i++) pq += p[i] * q[i];
    const alpha = rz / pq;
    let rNorm = 0;
    for (let i = 0; i < n; i++) { x[i] += alpha * p[i]; r[i] -= alpha * q[i]; rNorm += r[i] * r[i]; }
    if (Math.sqrt(rNorm) < options.tolerance * bNorm) { it++; break; }
    let rzNext = 0;
    for (let i = 0; i < n; i++) { z[i] = r[i] / diagonal[i]; rzNext += r[i] * z[i]; }
    const beta = rzNext / rz;
    rz = rzNext;
    for (let i = 0; i < n; i++) p[i] = z[i] + beta * p[i];
  }
  return { corrections: Float32Array.from(x), iterations: it };
}

/** Corrections g (3 per vertex, added to the photo colours) and the iterations used per channel, given each channel's solution. */
export function interleaveChannels(channels: Array<{ corrections: Float32Array; iterations: number }>): { corrections: Float32Array; iterations: number[] } {
  const n = channels[0].corrections.length;
  const corrections = new Float32Array(3 * n);
  channels.forEach((channel, ch) => { for (let i = 0; i < n; i++) corrections[3 * i + ch] = channel.corrections[i]; });
  return { corrections, iterations: channels.map((c) => c.iterations) };
}

/** Corrections g (3 per vertex, added to the photo colours) and the iterations used per channel. */
export function solveLevelling(problem: LevellingProblem, options: LevellingOptions): { corrections: Float32Array; iterations: number[] } {
  return interleaveChannels([0, 1, 2].map((channel) => solveLevellingChannel(problem, options, channel)));
}

/**
 * The seam pairs whose two colours agree within `maxDifference` grey levels in every channel (and
 * are both known). A seam joins two photos' views of one surface point, so its colours differ by
 * the photos' exposure and white balance, which levelling is for; a pair whose colours differ by
 * far more sees two different surfaces (a vertex on a depth edge, or a mesh a little off the true
 * surface, lands on the wall in one photo and on the stone before it in the other), and its
 * difference, spread by the chart's smoothness term, shifts the colour of whole faces.
 */
export function consistentSeams(seamPairs: Uint32Array, colours: Float32Array, maxDifference: number): Uint32Array {
  if (!(maxDifference < Infinity)) return seamPairs;
  const kept: number[] = [];
  for (let k = 0; k < seamPairs.length; k += 2) {
    const i = seamPairs[k], j = seamPairs[k + 1];
    let agree = true;
    for (let ch = 0; ch < 3 && agree; ch++) agree = Math.abs(colours[3 * i + ch] - colours[3 * j + ch]) <= maxDifference;
    if (agree) kept.push(i, j);
  }
  return Uint32Array.from(kept);
}
