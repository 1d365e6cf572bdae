/**
 * @module Global seam levelling: an additive colour correction per chart vertex, chosen so that
 * the two sides of every seam meet (photos differ in exposure and white balance) while each
 * chart's correction varies smoothly (Lempitsky and Ivanov, "Seamless mosaicing of image-based
 * texture maps", CVPR 2007; as used by Waechter et al., ECCV 2014, §5.1):
 *
 *   min_g  Σ_seams (f_i + g_i − f_j − g_j)²  +  w_edge · Σ_chart edges (g_i − g_j)²  +  ε · Σ g_i²
 *          +  λ · Σ_targets (f_i + g_i − t_i)²
 *
 * where i, j are copies of one mesh vertex in two charts and f their colours in their photos.
 * The last term pulls each chart toward t, the colour the photos that see the vertex agree on
 * (chartTargets: the views' consensus colour of the faces around it), so a chart keeps its one
 * photo's detail but not that photo's own exposure or reflections: the low frequencies of a
 * blend, the high ones of the best view, as a mosaic texture has them. Solved per channel by
 * conjugate gradients with a Jacobi preconditioner on the normal equations, which are a weighted
 * graph Laplacian plus ε·I and λ on the targeted vertices (symmetric positive definite).
 */

export interface LevellingProblem {
  vertexCount: number;
  /** Colour of each chart vertex in its photo, 3 per vertex (0–255); NaN where it has none. */
  colours: Float32Array;
  /** Pairs (i, j) of copies of one mesh vertex in two textured charts. */
  seamPairs: Uint32Array;
  /** Pairs (i, j) joined by an edge inside one chart. */
  chartEdges: Uint32Array;
  /**
   * What each chart vertex's colour should come near, 3 per vertex (0–255; NaN: nothing): its
   * colour moved by the mean of its chart's faces' shifts toward the colour the photos agree on
   * (chartTargets, select-views.ts consensusShifts). With `targetWeight` > 0 a chart is pulled
   * toward it, smoothly.
   */
  targets?: Float32Array;
}

export interface LevellingOptions {
  edgeWeight: number;
  regularisation: number;
  maxIterations: number;
  /** Stop when the residual norm falls below this fraction of the right-hand side's. */
  tolerance: number;
  /** Weight λ of a vertex's pull toward its target (per vertex, against 1 per seam pair); 0: none. */
  targetWeight?: number;
  /** Targets farther than this from the vertex's colour (grey levels, any channel) do not pull: another surface. */
  maxTargetDifference?: number;
}

/** y = A·x for the normal equations of the levelling problem; `pull`: the diagonal's part per vertex (ε, plus λ where a target pulls). */
function multiply(problem: LevellingProblem, options: LevellingOptions, pull: Float64Array, x: Float64Array, y: Float64Array): void {
  for (let i = 0; i < x.length; i++) y[i] = pull[i] * x[i];
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

/**
 * Per vertex, the weight of its target in this channel (0 where none, or where it is farther
 * than maxTargetDifference in any channel from the vertex's colour).
 */
function targetWeights(problem: LevellingProblem, options: LevellingOptions): Float64Array {
  const weights = new Float64Array(problem.vertexCount);
  const { targets, colours } = problem;
  const lambda = options.targetWeight ?? 0;
  if (!targets || !(lambda > 0)) return weights;
  const limit = options.maxTargetDifference ?? Infinity;
  for (let i = 0; i < problem.vertexCount; i++) {
    let near = true;
    for (let ch = 0; ch < 3 && near; ch++) near = Math.abs(targets[3 * i + ch] - colours[3 * i + ch]) <= limit;
    if (near) weights[i] = lambda;
  }
  return weights;
}

/** The normal equations' diagonal (the Jacobi preconditioner). */
function levellingDiagonal(problem: LevellingProblem, options: LevellingOptions, pull: Float64Array): Float64Array {
  const diagonal = Float64Array.from(pull);
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
  const targetWeight = targetWeights(problem, options);
  const pull = targetWeight.map((w) => w + options.regularisation);
  const diagonal = levellingDiagonal(problem, options, pull);
  const b = new Float64Array(n), x = new Float64Array(n), r = new Float64Array(n), z = new Float64Array(n), p = new Float64Array(n), q = new Float64Array(n);
  // ∂/∂g_i of λ (f_i + g_i − t_i)² / 2: the right-hand side gains λ (t_i − f_i).
  for (let i = 0; i < n; i++) if (targetWeight[i] > 0) b[i] += targetWeight[i] * (problem.targets![3 * i + channel] - problem.colours[3 * i + channel]);
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
    multiply(problem, options, pull, p, q);
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
 * Each chart vertex's target: its own colour plus the mean of `faceShifts` (3 per face, NaN: none)
 * over the faces that hold it (`chartIndices`, 3 split vertices per face); NaN where none has one.
 */
export function chartTargets(colours: Float32Array, chartIndices: Uint32Array, faceShifts: Float32Array): Float32Array {
  const vertexCount = colours.length / 3;
  const sums = new Float64Array(3 * vertexCount);
  const counts = new Uint32Array(vertexCount);
  for (let f = 0; 3 * f < chartIndices.length; f++) {
    if (Number.isNaN(faceShifts[3 * f])) continue;
    for (let k = 0; k < 3; k++) {
      const v = chartIndices[3 * f + k];
      counts[v]++;
      for (let ch = 0; ch < 3; ch++) sums[3 * v + ch] += faceShifts[3 * f + ch];
    }
  }
  const targets = new Float32Array(3 * vertexCount).fill(NaN);
  for (let v = 0; v < vertexCount; v++) {
    if (counts[v] === 0) continue;
    for (let ch = 0; ch < 3; ch++) targets[3 * v + ch] = colours[3 * v + ch] + sums[3 * v + ch] / counts[v];
  }
  return targets;
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
