/** @module Snapshot of the reconstruction state as a scene SparseModel (in the reconstruction's own frame). */
import type { RegisteredView, SparseModel, SparsePoints, UnregisteredImage } from "../../scene/index.js";
import { intrinsicsOf, squaredReprojectionError } from "./projection.js";
import type { SfmState } from "./state.js";

function buildViews(state: SfmState): { views: RegisteredView[]; viewOfImage: Int32Array } {
  const viewOfImage = new Int32Array(state.images.length).fill(-1);
  const images = [...state.order].sort((a, b) => a - b);
  const views = images.map((i, v) => {
    viewOfImage[i] = v;
    return {
      imageIndex: i,
      name: state.images[i].name,
      intrinsics: intrinsicsOf(state, i),
      camFromWorld: { R: state.rotation.slice(9 * i, 9 * i + 9), t: state.translation.slice(3 * i, 3 * i + 3) },
    };
  });
  return { views, viewOfImage };
}

function buildPoints(state: SfmState, viewOfImage: Int32Array): SparsePoints {
  const { trackOffsets, trackImages, trackKeypoints } = state.tracks;
  const xyz: number[] = [];
  const rgb: number[] = [];
  const error: number[] = [];
  const obsOffsets: number[] = [0];
  const obsViews: number[] = [];
  const obsKeypoints: number[] = [];
  for (let k = 0; k < state.tracks.count; k++) {
    if (state.hasPoint[k] === 0) continue;
    let r = 0;
    let g = 0;
    let b = 0;
    let sumErr = 0;
    let n = 0;
    for (let j = trackOffsets[k]; j < trackOffsets[k + 1]; j++) {
      const i = trackImages[j];
      if (viewOfImage[i] < 0 || state.obsRejected[j] === 1) continue;
      const kp = trackKeypoints[j];
      const f = state.features[i];
      r += f.rgb[3 * kp];
      g += f.rgb[3 * kp + 1];
      b += f.rgb[3 * kp + 2];
      sumErr += Math.sqrt(squaredReprojectionError(state, i, state.pointXyz, 3 * k, f.xy[2 * kp], f.xy[2 * kp + 1]));
      obsViews.push(viewOfImage[i]);
      obsKeypoints.push(kp);
      n++;
    }
    if (n === 0) continue;
    xyz.push(state.pointXyz[3 * k], state.pointXyz[3 * k + 1], state.pointXyz[3 * k + 2]);
    rgb.push(Math.round(r / n), Math.round(g / n), Math.round(b / n));
    error.push(sumErr / n);
    obsOffsets.push(obsViews.length);
  }
  return {
    count: error.length,
    xyz: Float64Array.from(xyz),
    rgb: Uint8Array.from(rgb),
    error: Float32Array.from(error),
    obsOffsets: Uint32Array.from(obsOffsets),
    obsViews: Uint32Array.from(obsViews),
    obsKeypoints: Uint32Array.from(obsKeypoints),
  };
}

/** The registered views and points of the current model; `unregistered` is filled by the caller. */
export function snapshotModel(state: SfmState): SparseModel {
  const { views, viewOfImage } = buildViews(state);
  const unregistered: UnregisteredImage[] = [];
  return { views, unregistered, points: buildPoints(state, viewOfImage), otherModelSizes: [] };
}

/** Mean reprojection error over all observations of the model's points (pixels). */
export function meanReprojectionErrorPx(model: SparseModel): number {
  const { points } = model;
  let sum = 0;
  let n = 0;
  for (let p = 0; p < points.count; p++) {
    const views = points.obsOffsets[p + 1] - points.obsOffsets[p];
    sum += points.error[p] * views;
    n += views;
  }
  return n === 0 ? 0 : sum / n;
}
