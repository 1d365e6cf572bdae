/**
 * @module Which photo textures each face: a labelling of the faces by views that trades each
 * face's best view against keeping neighbours on the same photo, after removing the views
 * whose colour of a face disagrees with the others (a passer-by, a car that moved).
 *
 * Energy (Waechter, Moehrle and Goesele, "Let There Be Color!", ECCV 2014, §4):
 *   E(l) = Σ_f D_f(l_f) + λ · Σ_{adjacent f,g} [l_f ≠ l_g]
 * with D_f(v) = 1 − q_f(v) / max_w q_f(w) (q: the gradient magnitude integral of view-scan.ts),
 * so 0 for the face's best view and up to 1 for a poor one. Waechter et al. minimise it with
 * α-expansion; we use iterated conditional modes (Besag 1986) started from the best view of
 * each face, which removes the isolated labels that make seams and converges in a few sweeps.
 * A face may also take the label of a neighbour that does not see it well only if that view
 * is a candidate of the face: every label is a view that truly sees the face.
 *
 * Photo-consistency (Waechter et al. §4.2): the face's mean colours across its candidate views
 * are clustered by mean shift from their per-channel median; views farther than
 * `consistencyRadius` from the mode are dropped when at least three views see the face.
 */
import type { ViewObservations } from "./view-scan.js";

/** Candidate views per face in CSR form. */
export interface FaceCandidates {
  offsets: Uint32Array;
  views: Uint32Array;
  cost: Float32Array;
  /** Mean colour per candidate (3 per entry), for the photo-consistency check. */
  colours: Float32Array;
}

export function gatherCandidates(faceCount: number, observations: ViewObservations[]): FaceCandidates {
  const counts = new Uint32Array(faceCount + 1);
  for (const obs of observations) for (const f of obs.faces) counts[f + 1]++;
  for (let f = 0; f < faceCount; f++) counts[f + 1] += counts[f];
  const offsets = counts.slice();
  const fill = counts.slice(0, faceCount);
  const total = offsets[faceCount];
  const views = new Uint32Array(total), quality = new Float32Array(total), colours = new Float32Array(3 * total);
  for (const obs of observations) {
    for (let i = 0; i < obs.faces.length; i++) {
      const at = fill[obs.faces[i]]++;
      views[at] = obs.view;
      quality[at] = obs.quality[i];
      colours.set(obs.colours.subarray(3 * i, 3 * i + 3), 3 * at);
    }
  }
  const cost = new Float32Array(total);
  for (let f = 0; f < faceCount; f++) {
    let best = 0;
    for (let i = offsets[f]; i < offsets[f + 1]; i++) best = Math.max(best, quality[i]);
    for (let i = offsets[f]; i < offsets[f + 1]; i++) cost[i] = best > 0 ? 1 - quality[i] / best : 1;
  }
  return { offsets, views, cost, colours };
}

/**
 * Marks the candidates whose colour is an outlier for their face; returns how many were dropped
 * and, per face, the colour its views agree on (the mode; the mean of a face's two views).
 * Per face: the channels' medians, then a mean shift from there (typed scratch and scalars: the
 * same arithmetic in the same order as with arrays, so the same marks; 0.42 s of Herz-Jesus-P8's
 * main thread before, in a CPU profile).
 */
export function rejectInconsistent(candidates: FaceCandidates, consistencyRadius: number): Consistency {
  return consistencyOf(candidates, consistencyRadius, 0, candidates.offsets.length - 1);
}

/** rejectInconsistent's answer: `keep` per candidate, `consensus` 3 per face. */
export interface Consistency {
  keep: Uint8Array;
  dropped: number;
  consensus: Float32Array;
}

/**
 * rejectInconsistent over faces from … to − 1 alone (each face's answer is its own): `keep` for
 * their candidates (offsets[from] on), `consensus` for those faces. Two threads each take a range,
 * and `joinConsistency` puts the ranges back together: the same marks as over every face at once.
 */
export function consistencyOf(candidates: Pick<FaceCandidates, "offsets" | "colours">, consistencyRadius: number, from: number, to: number): Consistency {
  const { offsets, colours } = candidates;
  const first = offsets[from];
  const keep = new Uint8Array(offsets[to] - first).fill(1);
  let dropped = 0;
  // The colour the views agree on, per face (3 each; NaN for a face of fewer than two views).
  const consensus = new Float32Array(3 * (to - from)).fill(NaN);
  let widest = 0;
  for (let f = from; f < to; f++) widest = Math.max(widest, offsets[f + 1] - offsets[f]);
  const scratch = new Float64Array(widest);
  const sigma2 = (consistencyRadius / 2) ** 2;
  for (let f = from; f < to; f++) {
    const start = offsets[f], end = offsets[f + 1];
    const c = 3 * (f - from);
    if (end - start === 2) for (let ch = 0; ch < 3; ch++) consensus[c + ch] = (colours[3 * start + ch] + colours[3 * start + 3 + ch]) / 2;
    if (end - start < 3) continue;
    let m0 = channelMedian(colours, start, end, 0, scratch);
    let m1 = channelMedian(colours, start, end, 1, scratch);
    let m2 = channelMedian(colours, start, end, 2, scratch);
    // Mean shift with a Gaussian kernel: converges to the densest cluster of colours.
    for (let iteration = 0; iteration < 8; iteration++) {
      let s0 = 0, s1 = 0, s2 = 0;
      let weight = 0;
      for (let i = start; i < end; i++) {
        const d2 = (colours[3 * i] - m0) ** 2 + (colours[3 * i + 1] - m1) ** 2 + (colours[3 * i + 2] - m2) ** 2;
        const w = Math.exp(-d2 / (2 * sigma2));
        weight += w;
        s0 += w * colours[3 * i]; s1 += w * colours[3 * i + 1]; s2 += w * colours[3 * i + 2];
      }
      if (weight < 1e-12) break;
      m0 = s0 / weight; m1 = s1 / weight; m2 = s2 / weight;
    }
    let kept = 0;
    for (let i = start; i < end; i++) {
      const d = Math.hypot(colours[3 * i] - m0, colours[3 * i + 1] - m1, colours[3 * i + 2] - m2);
      if (d > consistencyRadius) keep[i - first] = 0;
      else kept++;
    }
    // Never drop every view of a face: without a mode that two views share, keep them all.
    if (kept < 2) { for (let i = start; i < end; i++) keep[i - first] = 1; continue; }
    dropped += end - start - kept;
    consensus[c] = m0; consensus[c + 1] = m1; consensus[c + 2] = m2;
  }
  return { keep, dropped, consensus };
}

/** Two consecutive ranges' answers (consistencyOf) as one. */
export function joinConsistency(a: Consistency, b: Consistency): Consistency {
  const keep = new Uint8Array(a.keep.length + b.keep.length);
  keep.set(a.keep);
  keep.set(b.keep, a.keep.length);
  const consensus = new Float32Array(a.consensus.length + b.consensus.length);
  consensus.set(a.consensus);
  consensus.set(b.consensus, a.consensus.length);
  return { keep, dropped: a.dropped + b.dropped, consensus };
}

/**
 * Per face, how far its chosen view's mean colour lies from the colour the views agree on there
 * (`consensus`, rejectInconsistent's mode: one photo's exposure or a passer-by does not move it);
 * 3 per face, consensus − chosen; NaN where the face has no view or no consensus. The levelling
 * pulls each chart toward it (levelling.ts, chartTargets).
 */
export function consensusShifts(candidates: FaceCandidates, consensus: Float32Array, labels: Uint32Array): Float32Array {
  const { offsets, views, colours } = candidates;
  const faceCount = offsets.length - 1;
  const shifts = new Float32Array(3 * faceCount).fill(NaN);
  for (let f = 0; f < faceCount; f++) {
    const label = labels[f];
    if (label === UNSEEN || Number.isNaN(consensus[3 * f])) continue;
    for (let i = offsets[f]; i < offsets[f + 1]; i++) {
      if (views[i] !== label) continue;
      for (let ch = 0; ch < 3; ch++) shifts[3 * f + ch] = consensus[3 * f + ch] - colours[3 * i + ch];
      break;
    }
  }
  return shifts;
}

/**
 * The median (upper of the middle two) of one channel of candidates start..end: an insertion sort
 * of a face's few values, the order Array.prototype.sort with (x, y) => x − y gives numbers that
 * are not NaN (those sort as that comparator leaves them, so a face with one goes through it).
 */
function channelMedian(colours: Float32Array, start: number, end: number, channel: number, scratch: Float64Array): number {
  const n = end - start;
  for (let k = 0; k < n; k++) {
    const value = colours[3 * (start + k) + channel];
    if (Number.isNaN(value)) {
      const values: number[] = [];
      for (let i = start; i < end; i++) values.push(colours[3 * i + channel]);
      values.sort((x, y) => x - y);
      return values[n >> 1];
    }
    let at = k;
    while (at > 0 && scratch[at - 1] > value) { scratch[at] = scratch[at - 1]; at--; }
    scratch[at] = value;
  }
  return scratch[n >> 1];
}

/** Faces sharing an edge, in CSR form. */
/** Per face f, the faces sharing an edge with it: neighbours[offsets[f] .. offsets[f + 1]). */
export interface FaceAdjacency {
  offsets: Uint32Array;
  neighbours: Uint32Array;
}

export function faceAdjacency(indices: Uint32Array, faceCount: number): FaceAdjacency {
  const edges = 3 * faceCount;
  const other = (e: number): number => indices[e - (e % 3) + ((e % 3) + 1) % 3];
  let vertexCount = 0;
  for (let e = 0; e < edges; e++) vertexCount = Math.max(vertexCount, indices[e] + 1);
  // Every face edge filed under its lower vertex, in face order (typed arrays: a map keyed by
  // vertex pairs took 0.26 s on a 200k-face mesh); an edge's first face is its owner.
  const start = new Uint32Array(vertexCount + 1);
  for (let e = 0; e < edges; e++) start[Math.min(indices[e], other(e)) + 1]++;
  for (let v = 0; v < vertexCount; v++) start[v + 1] += start[v];
  const filed = new Uint32Array(edges);
  const cursor = start.slice(0, vertexCount);
  for (let e = 0; e < edges; e++) filed[cursor[Math.min(indices[e], other(e))]++] = e;
  const pairs: number[] = [];
  for (let e = 0; e < edges; e++) {
    const a = indices[e], b = other(e);
    const low = Math.min(a, b), high = Math.max(a, b);
    let owner = e;
    for (let i = start[low]; i < start[low + 1]; i++) {
      const o = filed[i];
      if (Math.max(indices[o], other(o)) === high) { owner = o; break; }
    }
    if (owner !== e) pairs.push((owner - (owner % 3)) / 3, (e - (e % 3)) / 3);
  }
  const offsets = new Uint32Array(faceCount + 1);
  for (let i = 0; i < pairs.length; i++) offsets[pairs[i] + 1]++;
  for (let f = 0; f < faceCount; f++) offsets[f + 1] += offsets[f];
  const fill = offsets.slice(0, faceCount);
  const neighbours = new Uint32Array(pairs.length);
  for (let i = 0; i < pairs.length; i += 2) {
    neighbours[fill[pairs[i]]++] = pairs[i + 1];
    neighbours[fill[pairs[i + 1]]++] = pairs[i];
  }
  return { offsets, neighbours };
}

/** No view: the face keeps its vertex colours. */
export const UNSEEN = 0xffffffff;

/** Labels every face with a view (or UNSEEN); returns the labels and the sweeps run. */
export function selectViews(candidates: FaceCandidates, keep: Uint8Array, adjacency: { offsets: Uint32Array; neighbours: Uint32Array }, smoothness: number, maxSweeps: number): { labels: Uint32Array; sweeps: number; changed: number } {
  const faceCount = candidates.offsets.length - 1;
  const labels = new Uint32Array(faceCount).fill(UNSEEN);
  for (let f = 0; f < faceCount; f++) {
    let best = Infinity;
    for (let i = candidates.offsets[f]; i < candidates.offsets[f + 1]; i++) {
      if (keep[i] && candidates.cost[i] < best) { best = candidates.cost[i]; labels[f] = candidates.views[i]; }
    }
  }
  let sweeps = 0, changedTotal = 0;
  for (; sweeps < maxSweeps; sweeps++) {
    let changed = 0;
    for (let f = 0; f < faceCount; f++) {
      let bestLabel = labels[f], bestEnergy = Infinity, currentEnergy = Infinity;
      for (let i = candidates.offsets[f]; i < candidates.offsets[f + 1]; i++) {
        if (!keep[i]) continue;
        const label = candidates.views[i];
        let disagree = 0;
        for (let j = adjacency.offsets[f]; j < adjacency.offsets[f + 1]; j++) if (labels[adjacency.neighbours[j]] !== label) disagree++;
        const energy = candidates.cost[i] + smoothness * disagree;
        if (label === labels[f]) currentEnergy = energy;
        if (energy < bestEnergy) { bestEnergy = energy; bestLabel = label; }
      }
      // Move only for a strict decrease: ties would flip back and forth between sweeps.
      if (bestEnergy > currentEnergy - 1e-6) bestLabel = labels[f];
      if (bestLabel !== labels[f]) { labels[f] = bestLabel; changed++; }
    }
    changedTotal += changed;
    if (changed === 0) { sweeps++; break; }
  }
  return { labels, sweeps, changed: changedTotal };
}

/**
 * Region moves after ICM: a connected region of equally labelled faces takes the label of its
 * neighbours when that lowers the energy as a whole. ICM changes one face at a time and stops
 * at clusters of a few faces whose members each agree with most of their neighbours; the
 * change of the whole cluster, ΔE = Σ_f [D_f(L) − D_f(cur)] − λ·(boundary edges to L), is the
 * move α-expansion would make there. Smallest regions first; returns the regions relabelled.
 */
export function mergeRegions(labels: Uint32Array, candidates: FaceCandidates, keep: Uint8Array, adjacency: { offsets: Uint32Array; neighbours: Uint32Array }, smoothness: number, maxRegionFaces: number): number {
  const faceCount = labels.length;
  const region = new Int32Array(faceCount).fill(-1);
  const regions: number[][] = [];
  for (let seed = 0; seed < faceCount; seed++) {
    if (region[seed] >= 0 || labels[seed] === UNSEEN) continue;
    const members = [seed];
    region[seed] = regions.length;
    for (let k = 0; k < members.length; k++) {
      const f = members[k];
      for (let j = adjacency.offsets[f]; j < adjacency.offsets[f + 1]; j++) {
        const g = adjacency.neighbours[j];
        if (region[g] < 0 && labels[g] === labels[seed]) { region[g] = regions.length; members.push(g); }
      }
    }
    regions.push(members);
  }
  const costOf = (f: number, label: number): number => {
    for (let i = candidates.offsets[f]; i < candidates.offsets[f + 1]; i++) if (candidates.views[i] === label) return keep[i] ? candidates.cost[i] : Infinity;
    return Infinity;
  };
  const order = regions.map((_, r) => r).filter((r) => regions[r].length <= maxRegionFaces).sort((a, b) => regions[a].length - regions[b].length);
  let moved = 0;
  const edgesTo = new Map<number, number>();
  for (const r of order) {
    const members = regions[r];
    const current = labels[members[0]];
    edgesTo.clear();
    for (const f of members) {
      for (let j = adjacency.offsets[f]; j < adjacency.offsets[f + 1]; j++) {
        const other = labels[adjacency.neighbours[j]];
        if (other !== current && other !== UNSEEN) edgesTo.set(other, (edgesTo.get(other) ?? 0) + 1);
      }
    }
    let bestLabel = current, bestDelta = -1e-6;
    for (const [label, edges] of edgesTo) {
      let delta = -smoothness * edges;
      for (const f of members) {
        delta += costOf(f, label) - costOf(f, current);
        if (!(delta < bestDelta)) break;
      }
      if (delta < bestDelta) { bestDelta = delta; bestLabel = label; }
    }
    if (bestLabel === current) continue;
    for (const f of members) labels[f] = bestLabel;
    moved++;
  }
  return moved;
}
