/**
 * @module Source-view selection and depth ranges from the sparse model.
 *
 * For each reference view, every other view is scored by the sparse points both see, each
 * weighted by its triangulation angle: too small an angle gives poor depth, too large a poor
 * photo-consistency (Goesele et al., ICCV 2007 "Multi-View Stereo for Community Photo
 * Collections", view selection; Schönberger et al., ECCV 2016 §4.1 use the same prior).
 * The depth range of a view is taken from the depths of the sparse points it sees.
 */
import type { SparseModel } from "../../scene/index.js";
import { cameraCenter } from "../../scene/index.js";

export interface SelectionOptions {
  /** Sources kept per reference view. */
  sourceViews: number;
  /** Triangulation angles (degrees) with full weight: [minAngle, maxAngle]. */
  minAngleDeg: number;
  maxAngleDeg: number;
  /** Fewest shared sparse points for a source to be considered. */
  minSharedPoints: number;
}

/** Per view (index into model.views): its source views, best first. */
export function selectSourceViews(model: SparseModel, options: SelectionOptions): number[][] {
  const n = model.views.length;
  const centres = model.views.map((v) => cameraCenter(v.camFromWorld));
  const score = new Float64Array(n * n);
  const shared = new Uint32Array(n * n);
  const { xyz, obsOffsets, obsViews } = model.points;
  const toRad = Math.PI / 180;
  for (let p = 0; p < model.points.count; p++) {
    for (let a = obsOffsets[p]; a < obsOffsets[p + 1]; a++) {
      for (let b = a + 1; b < obsOffsets[p + 1]; b++) {
        const va = obsViews[a];
        const vb = obsViews[b];
        if (va === vb) continue;
        const angle = triangulationAngle(centres[va], centres[vb], xyz, 3 * p);
        const w = angleWeight(angle, options.minAngleDeg * toRad, options.maxAngleDeg * toRad);
        score[va * n + vb] += w;
        score[vb * n + va] += w;
        shared[va * n + vb]++;
        shared[vb * n + va]++;
      }
    }
  }
  const result: number[][] = [];
  for (let r = 0; r < n; r++) {
    const candidates: number[] = [];
    for (let s = 0; s < n; s++) if (s !== r && shared[r * n + s] >= options.minSharedPoints && score[r * n + s] > 0) candidates.push(s);
    candidates.sort((a, b) => score[r * n + b] - score[r * n + a]);
    result.push(candidates.slice(0, options.sourceViews));
  }
  return result;
}

function triangulationAngle(ca: Float64Array, cb: Float64Array, xyz: Float64Array, o: number): number {
  const ax = ca[0] - xyz[o];
  const ay = ca[1] - xyz[o + 1];
  const az = ca[2] - xyz[o + 2];
  const bx = cb[0] - xyz[o];
  const by = cb[1] - xyz[o + 1];
  const bz = cb[2] - xyz[o + 2];
  const cos = (ax * bx + ay * by + az * bz) / Math.sqrt((ax * ax + ay * ay + az * az) * (bx * bx + by * by + bz * bz));
  return Math.acos(Math.max(-1, Math.min(1, cos)));
}

/** 1 inside [lo, hi]; quadratic fall-off outside (Goesele et al. 2007 use the same shape below lo). */
function angleWeight(angle: number, lo: number, hi: number): number {
  if (angle < lo) return (angle / lo) ** 2;
  if (angle > hi) return (hi / angle) ** 2;
  return 1;
}

/**
 * Depth range [near, far] of each view from the camera-frame depths of the sparse points it
 * observes (2nd and 98th percentiles, widened by `margin`), or null with fewer than 5 points.
 */
export function depthRanges(model: SparseModel, margin: number): Array<[number, number] | null> {
  const depths: number[][] = model.views.map(() => []);
  const { xyz, obsOffsets, obsViews } = model.points;
  for (let p = 0; p < model.points.count; p++) {
    for (let k = obsOffsets[p]; k < obsOffsets[p + 1]; k++) {
      const { R, t } = model.views[obsViews[k]].camFromWorld;
      const z = R[6] * xyz[3 * p] + R[7] * xyz[3 * p + 1] + R[8] * xyz[3 * p + 2] + t[2];
      if (z > 0) depths[obsViews[k]].push(z);
    }
  }
  return depths.map((d) => {
    if (d.length < 5) return null;
    d.sort((a, b) => a - b);
    const near = d[Math.floor(0.02 * (d.length - 1))];
    const far = d[Math.ceil(0.98 * (d.length - 1))];
    return [near / (1 + margin), far * (1 + margin)];
  });
}
