/**
 * @module Outlier filtering after bundle adjustment (Schönberger & Frahm 2016, §4.5): drop
 * observations that reproject beyond the threshold or lie behind their camera, then delete
 * points left with fewer than two views or whose rays have become nearly parallel.
 */
import type { Options } from "./options.js";
import { depthInImage, squaredReprojectionError } from "./projection.js";
import type { SfmState } from "./state.js";
import { allCenters, hasWideRayPair } from "./triangulate.js";

export interface FilterSummary {
  observationsRejected: number;
  pointsDeleted: number;
}

/** Filter the points observed by any image of `images` (all registered images when omitted). */
export function filterOutliers(state: SfmState, options: Options, images?: number[]): FilterSummary {
  const centers = allCenters(state);
  const { trackOffsets, trackImages, trackKeypoints } = state.tracks;
  const maxSq = options.maxReprojectionErrorPx * options.maxReprojectionErrorPx;
  const tracksToCheck = images === undefined ? null : new Set<number>();
  if (tracksToCheck !== null) {
    for (const i of images ?? []) for (const j of state.keypointObs[i]) if (j >= 0) tracksToCheck.add(state.obsTrack[j]);
  }
  const summary: FilterSummary = { observationsRejected: 0, pointsDeleted: 0 };
  const viewImages: number[] = [];
  for (let k = 0; k < state.tracks.count; k++) {
    if (state.hasPoint[k] === 0 || (tracksToCheck !== null && !tracksToCheck.has(k))) continue;
    viewImages.length = 0;
    for (let j = trackOffsets[k]; j < trackOffsets[k + 1]; j++) {
      const i = trackImages[j];
      if (state.registered[i] === 0 || state.obsRejected[j] === 1) continue;
      const xy = state.features[i].xy;
      const bad =
        depthInImage(state, i, state.pointXyz, 3 * k) <= 0 ||
        squaredReprojectionError(state, i, state.pointXyz, 3 * k, xy[2 * trackKeypoints[j]], xy[2 * trackKeypoints[j] + 1]) > maxSq;
      if (bad) {
        state.obsRejected[j] = 1;
        summary.observationsRejected++;
      } else {
        viewImages.push(i);
      }
    }
    if (viewImages.length < 2 || !hasWideRayPair(state, k, viewImages, centers, options.minTriangulationAngleDeg)) {
      state.hasPoint[k] = 0;
      summary.pointsDeleted++;
    }
  }
  return summary;
}
