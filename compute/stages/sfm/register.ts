/**
 * @module Next-best-view selection and PnP registration (Schönberger & Frahm 2016, §4.2–4.3).
 *
 * The next image is the one that sees the most triangulated points, spread over the frame:
 * the score is the paper's multi-resolution visibility pyramid (cells occupied at each grid
 * level, weighted by the level's resolution), so 200 points spread over the image beat 300
 * in one corner and the PnP pose is well conditioned.
 */
import type { Rng } from "../../math/random.js";
import { estimatePnp } from "../../geometry/pnp.js";
import type { Options } from "./options.js";
import type { SfmState } from "./state.js";
import { normalizedKeypoints } from "./triangulate.js";

const PYRAMID_LEVELS = 4;

export interface Candidate {
  image: number;
  visiblePoints: number;
  score: number;
}

/** Keypoint observations of image i whose track has a point: observation indices j. */
export function visibleObservations(state: SfmState, i: number): number[] {
  const out: number[] = [];
  for (const j of state.keypointObs[i]) if (j >= 0 && state.hasPoint[state.obsTrack[j]] === 1) out.push(j);
  return out;
}

function pyramidScore(state: SfmState, i: number, observations: number[]): number {
  const { width, height } = state.images[i];
  const xy = state.features[i].xy;
  let score = 0;
  for (let level = 1; level <= PYRAMID_LEVELS; level++) {
    const cells = 1 << level;
    const occupied = new Set<number>();
    for (const j of observations) {
      const kp = state.tracks.trackKeypoints[j];
      const cx = Math.min(cells - 1, Math.max(0, Math.floor((xy[2 * kp] / width) * cells)));
      const cy = Math.min(cells - 1, Math.max(0, Math.floor((xy[2 * kp + 1] / height) * cells)));
      occupied.add(cy * cells + cx);
    }
    score += occupied.size * cells;
  }
  return score;
}

/** Unregistered, still-eligible images ranked best first. */
export function rankCandidates(state: SfmState, eligible: Uint8Array, minVisible: number): Candidate[] {
  const out: Candidate[] = [];
  for (let i = 0; i < state.images.length; i++) {
    if (state.registered[i] === 1 || eligible[i] === 0) continue;
    const observations = visibleObservations(state, i);
    if (observations.length < minVisible) continue;
    out.push({ image: i, visiblePoints: observations.length, score: pyramidScore(state, i, observations) });
  }
  return out.sort((a, b) => b.score - a.score);
}

export type RegistrationResult = { ok: true; inliers: number; correspondences: number } | { ok: false; reason: string; correspondences: number };

/**
 * Estimate image i's pose from its 2-D–3-D correspondences with RANSAC PnP. On success the
 * pose is written into the state (the caller registers the image) and the correspondences
 * PnP rejected are marked as outlier observations.
 */
export function registerByPnp(state: SfmState, i: number, options: Options, rng: Rng): RegistrationResult {
  const observations = visibleObservations(state, i);
  const count = observations.length;
  if (count < options.minPnpInliers) {
    return { ok: false, reason: `only ${count} matches to triangulated points (need ${options.minPnpInliers})`, correspondences: count };
  }
  const normalized = normalizedKeypoints(state, i);
  const points2d = new Float64Array(2 * count);
  const points3d = new Float64Array(3 * count);
  observations.forEach((j, m) => {
    const kp = state.tracks.trackKeypoints[j];
    const k = state.obsTrack[j];
    points2d[2 * m] = normalized[2 * kp];
    points2d[2 * m + 1] = normalized[2 * kp + 1];
    points3d.set(state.pointXyz.subarray(3 * k, 3 * k + 3), 3 * m);
  });
  const focal = state.intrinsics[5 * state.groupOfImage[i]];
  const result = estimatePnp(points2d, points3d, count, {
    thresholdPx: options.ransacThresholdPx,
    focal,
    confidence: 0.9999,
    maxIterations: 10_000,
    rng,
  });
  if (result === null) return { ok: false, reason: "PnP found no consistent pose", correspondences: count };
  const ratio = result.inlierCount / count;
  if (result.inlierCount < options.minPnpInliers || ratio < options.minPnpInlierRatio) {
    return {
      ok: false,
      reason: `PnP kept ${result.inlierCount} of ${count} correspondences (need ${options.minPnpInliers} and ${Math.round(options.minPnpInlierRatio * 100)}%)`,
      correspondences: count,
    };
  }
  state.rotation.set(result.camFromWorld.R, 9 * i);
  state.translation.set(result.camFromWorld.t, 3 * i);
  observations.forEach((j, m) => (state.obsRejected[j] = result.inliers[m] ? 0 : 1));
  return { ok: true, inliers: result.inlierCount, correspondences: count };
}
