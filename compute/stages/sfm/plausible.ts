/**
 * @module A last check of the finished model: a registered camera that sits far outside the
 * scene, or whose refined focal length is wildly unlike the others', is wrong however well its
 * few observations fit (a camera placed by a degenerate PnP or a drifting bundle adjustment
 * can push its focal towards infinity and its centre away, where every point projects near
 * the principal point). Such views are taken out of the model with a specific reason, and the
 * points they leave with fewer than two observations go with them.
 *
 * Why these two tests: a wrong camera smears the dense cloud, the mesh and the texture, and a
 * missing one costs only its own photo. They are loose on purpose (tens of times the median)
 * so that a real capture, which is never that irregular, is never touched.
 */
import type { SparseModel, UnregisteredImage } from "../../scene/index.js";
import { cameraCenter } from "../../scene/index.js";
import { median } from "../../math/median.js";

/** A camera farther than this many times the median camera distance from the scene is rejected. */
const MAX_DISTANCE_RATIO = 20;
/** A focal length outside [median / r, median · r] is rejected. */
const MAX_FOCAL_RATIO = 5;

/** Views of the model that fail the checks, with the reason for each. */
export function implausibleViews(model: SparseModel): Map<number, string> {
  const rejected = new Map<number, string>();
  const { views, points } = model;
  if (views.length < 3 || points.count === 0) return rejected;
  // The scene's middle: the per-axis median of the points (robust to stray points).
  const middle = [0, 1, 2].map((a) => median(Array.from({ length: points.count }, (_, p) => points.xyz[3 * p + a])));
  const distances = views.map((v) => {
    const c = cameraCenter(v.camFromWorld);
    return Math.hypot(c[0] - middle[0], c[1] - middle[1], c[2] - middle[2]);
  });
  const typicalDistance = median(distances);
  const typicalFocal = median(views.map((v) => v.intrinsics.focal));
  views.forEach((view, v) => {
    if (distances[v] > MAX_DISTANCE_RATIO * typicalDistance) {
      rejected.set(v, `placed ${(distances[v] / typicalDistance).toFixed(0)}× farther from the scene than the other cameras: its position could not be determined reliably`);
    } else if (!(view.intrinsics.focal < MAX_FOCAL_RATIO * typicalFocal && view.intrinsics.focal > typicalFocal / MAX_FOCAL_RATIO)) {
      rejected.set(v, `its refined focal length (${view.intrinsics.focal.toPrecision(3)} px) is far from the other cameras' (${typicalFocal.toPrecision(3)} px): its calibration could not be determined reliably`);
    }
  });
  return rejected;
}

/** The model without the given views: their observations removed, points left with < 2 observations dropped. */
export function withoutViews(model: SparseModel, drop: Map<number, string>): SparseModel {
  if (drop.size === 0) return model;
  const newIndex = new Int32Array(model.views.length).fill(-1);
  const views = model.views.filter((_, v) => !drop.has(v));
  let next = 0;
  model.views.forEach((_, v) => { if (!drop.has(v)) newIndex[v] = next++; });
  const { points } = model;
  const xyz: number[] = [], rgb: number[] = [], error: number[] = [], offsets: number[] = [0], obsViews: number[] = [], obsKeypoints: number[] = [];
  for (let p = 0; p < points.count; p++) {
    const kept: number[] = [];
    for (let o = points.obsOffsets[p]; o < points.obsOffsets[p + 1]; o++) if (newIndex[points.obsViews[o]] >= 0) kept.push(o);
    if (kept.length < 2) continue;
    for (const o of kept) { obsViews.push(newIndex[points.obsViews[o]]); obsKeypoints.push(points.obsKeypoints[o]); }
    offsets.push(obsViews.length);
    for (let a = 0; a < 3; a++) { xyz.push(points.xyz[3 * p + a]); rgb.push(points.rgb[3 * p + a]); }
    error.push(points.error[p]);
  }
  const unregistered: UnregisteredImage[] = [
    ...model.unregistered,
    ...[...drop].map(([v, reason]) => ({ imageIndex: model.views[v].imageIndex, name: model.views[v].name, reason })),
  ];
  return {
    ...model,
    views,
    unregistered,
    points: { count: error.length, xyz: Float64Array.from(xyz), rgb: Uint8Array.from(rgb), error: Float32Array.from(error), obsOffsets: Uint32Array.from(offsets), obsViews: Uint32Array.from(obsViews), obsKeypoints: Uint32Array.from(obsKeypoints) },
  };
}
