/**
 * @module Per registered view: how many of the model's points it observes and the RMS of their
 * reprojection errors in pixels, so that report.json shows a camera whose fit is unlike its
 * neighbours'.
 */
import { project } from "../../geometry/camera.js";
import type { ImageFeatures, SparseModel } from "../../scene/index.js";

export function viewResiduals(model: SparseModel, features: ImageFeatures[]): Array<{ observations: number; rmsPx: number }> {
  const { points, views } = model;
  const sum = new Float64Array(views.length);
  const count = new Uint32Array(views.length);
  const projected = new Float64Array(2);
  const X = new Float64Array(3);
  for (let p = 0; p < points.count; p++) {
    X[0] = points.xyz[3 * p]; X[1] = points.xyz[3 * p + 1]; X[2] = points.xyz[3 * p + 2];
    for (let o = points.obsOffsets[p]; o < points.obsOffsets[p + 1]; o++) {
      const v = points.obsViews[o];
      const view = views[v];
      const xy = features[view.imageIndex].xy;
      const k = points.obsKeypoints[o];
      count[v]++;
      if (!project(view.intrinsics, view.camFromWorld, X, projected)) continue;
      sum[v] += (projected[0] - xy[2 * k]) ** 2 + (projected[1] - xy[2 * k + 1]) ** 2;
    }
  }
  return views.map((_, v) => ({ observations: count[v], rmsPx: count[v] > 0 ? Math.sqrt(sum[v] / count[v]) : 0 }));
}
