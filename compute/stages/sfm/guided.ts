/**
 * @module Guided matching of two registered images along their epipolar lines (Hartley &
 * Zisserman 2004, §11.7: once the two-view geometry is known, search for matches only near
 * each keypoint's epipolar line). The geometry comes from the model's poses, so the search
 * finds pairs the unguided matcher missed: views far apart, where the global ratio test over
 * all keypoints keeps too few matches for a verified pair, but the few keypoints near the
 * line still tell the right one from the wrong ones.
 */
import type { SfmState } from "./state.js";
import { normalizedKeypoints } from "./triangulate.js";

/** Lowe's ratio between the best and second-best Hamming distance inside the band. */
export const GUIDED_RATIO = 0.8;

/** Set bits of every byte value, for Hamming distances of binary descriptors. */
const POPCOUNT = new Uint8Array(256);
for (let b = 1; b < 256; b++) POPCOUNT[b] = (b & 1) + POPCOUNT[b >> 1];

/**
 * Essential matrix of the pair in normalized coordinates, x_jᵀ·E·x_i = 0, from the poses:
 * camJ_from_camI = (R_j·R_iᵀ, t_j − R_j·R_iᵀ·t_i) and E = [t]×·R.
 */
export function essentialBetween(state: SfmState, i: number, j: number): Float64Array {
  const Ri = state.rotation.subarray(9 * i, 9 * i + 9);
  const Rj = state.rotation.subarray(9 * j, 9 * j + 9);
  const ti = state.translation.subarray(3 * i, 3 * i + 3);
  const tj = state.translation.subarray(3 * j, 3 * j + 3);
  const R = new Float64Array(9);
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) R[3 * r + c] = Rj[3 * r] * Ri[3 * c] + Rj[3 * r + 1] * Ri[3 * c + 1] + Rj[3 * r + 2] * Ri[3 * c + 2];
  }
  const t = [0, 1, 2].map((r) => tj[r] - (R[3 * r] * ti[0] + R[3 * r + 1] * ti[1] + R[3 * r + 2] * ti[2]));
  const E = new Float64Array(9);
  for (let c = 0; c < 3; c++) {
    E[c] = t[1] * R[6 + c] - t[2] * R[3 + c];
    E[3 + c] = t[2] * R[c] - t[0] * R[6 + c];
    E[6 + c] = t[0] * R[3 + c] - t[1] * R[c];
  }
  return E;
}

function hamming(da: Uint8Array, oa: number, db: Uint8Array, ob: number, bytes: number): number {
  let h = 0;
  for (let k = 0; k < bytes; k++) h += POPCOUNT[da[oa + k] ^ db[ob + k]];
  return h;
}

/** Best and second-best candidate per keypoint of one side (scratch, sized per call). */
interface Best {
  index: Int32Array;
  distance: Int32Array;
  second: Int32Array;
}

function emptyBest(count: number): Best {
  return { index: new Int32Array(count).fill(-1), distance: new Int32Array(count).fill(0x7fffffff), second: new Int32Array(count).fill(0x7fffffff) };
}

function offer(best: Best, at: number, candidate: number, h: number): void {
  if (h < best.distance[at]) {
    best.second[at] = best.distance[at];
    best.distance[at] = h;
    best.index[at] = candidate;
  } else if (h < best.second[at]) {
    best.second[at] = h;
  }
}

/**
 * Keypoint pairs (a in image i, b in image j; flat a, b, a, b, …) whose b lies within
 * `thresholdPx` of a's epipolar line in image j, are each other's nearest descriptor among
 * the keypoints inside the band, and pass the ratio test on both sides.
 */
export function guidedMatches(state: SfmState, i: number, j: number, thresholdPx: number): Uint32Array {
  const fi = state.features[i];
  const fj = state.features[j];
  const bytes = fi.descriptorBytes;
  if (fj.descriptorBytes !== bytes || fi.count === 0 || fj.count === 0) return new Uint32Array(0);
  const xi = normalizedKeypoints(state, i);
  const xj = normalizedKeypoints(state, j);
  const E = essentialBetween(state, i, j);
  // The band in image j's normalized plane: pixels over its focal.
  const band = thresholdPx / state.intrinsics[5 * state.groupOfImage[j]];
  const fromI = emptyBest(fi.count);
  const fromJ = emptyBest(fj.count);
  const di = fi.descriptors;
  const dj = fj.descriptors;
  for (let a = 0; a < fi.count; a++) {
    const x = xi[2 * a];
    const y = xi[2 * a + 1];
    const l0 = E[0] * x + E[1] * y + E[2];
    const l1 = E[3] * x + E[4] * y + E[5];
    const l2 = E[6] * x + E[7] * y + E[8];
    const limit = band * Math.hypot(l0, l1);
    for (let b = 0; b < fj.count; b++) {
      if (Math.abs(l0 * xj[2 * b] + l1 * xj[2 * b + 1] + l2) > limit) continue;
      const h = hamming(di, a * bytes, dj, b * bytes, bytes);
      offer(fromI, a, b, h);
      offer(fromJ, b, a, h);
    }
  }
  const out: number[] = [];
  for (let a = 0; a < fi.count; a++) {
    const b = fromI.index[a];
    if (b < 0 || fromJ.index[b] !== a) continue;
    if (fromI.distance[a] >= GUIDED_RATIO * fromI.second[a] || fromJ.distance[b] >= GUIDED_RATIO * fromJ.second[b]) continue;
    out.push(a, b);
  }
  return Uint32Array.from(out);
}
