/**
 * @module How well the observations of each track agree, seen through known cameras: each
 * track is triangulated through them and its observations' reprojection errors collected.
 * Errors above `maxErrorPx` (wrong matches, not localisation) are left out. Used by the
 * keypoints stage's test and `npm run bench -- keypoints`.
 */
import { triangulateMultiView } from "../../compute/geometry/triangulation.js";
import type { ImageFeatures, RigidTransform, Tracks } from "../../compute/scene/index.js";

export interface KnownCamera {
  camFromWorld: RigidTransform;
  fx: number;
  fy: number;
  skew: number;
  cx: number;
  cy: number;
}

export interface TrackAgreement {
  rmsPx: number;
  medianPx: number;
  observations: number;
}

/** `cameras[i]` and `features[i]` describe the image the tracks call i. */
export function trackAgreement(cameras: KnownCamera[], features: ImageFeatures[], tracks: Tracks, maxErrorPx = 3): TrackAgreement {
  const errors: number[] = [];
  for (let t = 0; t < tracks.count; t++) {
    const from = tracks.trackOffsets[t];
    const n = tracks.trackOffsets[t + 1] - from;
    const normalized = new Float64Array(2 * n);
    const poses: RigidTransform[] = [];
    for (let o = 0; o < n; o++) {
      const image = tracks.trackImages[from + o];
      const k = tracks.trackKeypoints[from + o];
      const c = cameras[image];
      const y = (features[image].xy[2 * k + 1] - c.cy) / c.fy;
      normalized[2 * o] = (features[image].xy[2 * k] - c.cx - c.skew * y) / c.fx;
      normalized[2 * o + 1] = y;
      poses.push(c.camFromWorld);
    }
    const X = triangulateMultiView(poses, normalized, n);
    if (!X) continue;
    for (let o = 0; o < n; o++) {
      const { R, t: tr } = poses[o];
      const p = [0, 1, 2].map((r) => R[3 * r] * X[0] + R[3 * r + 1] * X[1] + R[3 * r + 2] * X[2] + tr[r]);
      if (p[2] <= 0) continue;
      const c = cameras[tracks.trackImages[from + o]];
      const error = Math.hypot(c.fx * (p[0] / p[2] - normalized[2 * o]), c.fy * (p[1] / p[2] - normalized[2 * o + 1]));
      if (error <= maxErrorPx) errors.push(error);
    }
  }
  errors.sort((a, b) => a - b);
  return { rmsPx: Math.sqrt(errors.reduce((s, e) => s + e * e, 0) / errors.length), medianPx: errors[errors.length >> 1], observations: errors.length };
}
