/**
 * @module Hartley's isotropic normalisation (Hartley 1997, "In defense of the eight-point
 * algorithm"): translate 2-D points to their centroid and scale them to mean distance √2, so
 * the DLT matrices of F and H are well conditioned.
 */

export interface NormalizedPoints {
  /** 3 × 3 similarity mapping original homogeneous points to normalised ones. */
  T: Float64Array;
  /** The selected points, normalised, 2·n. */
  points: Float64Array;
}

/** Normalises the points at `indices` (or the first `count` points when indices is null). */
export function hartleyNormalize(xy: ArrayLike<number>, indices: ArrayLike<number> | null, count: number): NormalizedPoints {
  const n = indices ? indices.length : count;
  const at = (k: number): number => (indices ? indices[k] : k);
  let mx = 0;
  let my = 0;
  for (let k = 0; k < n; k++) {
    mx += xy[2 * at(k)];
    my += xy[2 * at(k) + 1];
  }
  mx /= n;
  my /= n;
  let meanDistance = 0;
  for (let k = 0; k < n; k++) meanDistance += Math.hypot(xy[2 * at(k)] - mx, xy[2 * at(k) + 1] - my);
  meanDistance /= n;
  const s = meanDistance > 0 ? Math.SQRT2 / meanDistance : 1;
  const points = new Float64Array(2 * n);
  for (let k = 0; k < n; k++) {
    points[2 * k] = s * (xy[2 * at(k)] - mx);
    points[2 * k + 1] = s * (xy[2 * at(k) + 1] - my);
  }
  return { T: new Float64Array([s, 0, -s * mx, 0, s, -s * my, 0, 0, 1]), points };
}
