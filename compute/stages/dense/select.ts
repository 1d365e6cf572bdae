/**
 * @module Source-view selection and depth ranges from the sparse model.
 *
 * For each reference view, every other view is scored by the sparse points both see, each
 * weighted by its triangulation angle: too small an angle gives poor depth, too large a poor
 * photo-consistency (Goesele et al., ICCV 2007 "Multi-View Stereo for Community Photo
 * Collections", view selection; Schönberger et al., ECCV 2016 §4.1 use the same prior).
 * A source is also added for a part of the frame's background the best-scored ones miss (withFrameCover()).
 * The depth range of a view is taken from the depths of the sparse points it sees.
 */
import type { RegisteredView, SparseModel } from "../../scene/index.js";
import { cameraCenter } from "../../scene/index.js";

export interface SelectionOptions {
  /** Sources kept per reference view. */
  sourceViews: number;
  /** Triangulation angles (degrees) with full weight: [minAngle, maxAngle]. */
  minAngleDeg: number;
  maxAngleDeg: number;
  /** Fewest shared sparse points for a source to be considered. */
  minSharedPoints: number;
  /**
   * Sources added beyond `sourceViews` where those leave part of the reference's frame thinly
   * seen, judged over `frameCells`² regions of it (0: none). See withFrameCover().
   */
  extraSourceViews: number;
  frameCells: number;
  /**
   * A source is added only for regions whose sparse points lie, at their median, at least this
   * many times as deep as the reference's median (0: any region). See withFrameCover().
   */
  backgroundRatio: number;
}

/**
 * Where a source added for part of a reference's frame counts: boxes [x0, x1, y0, y1) in the
 * reference's normalised image coordinates ((u − cx) / focal), which a downscaled, cropped or
 * undistorted pinhole copy of the view shares.
 */
export interface AddedSource {
  view: number;
  boxes: Array<[number, number, number, number]>;
}

export interface SourceSelection {
  /** Per view (index into model.views): its source views, best first, any added ones last. */
  sources: number[][];
  /** Per view: its added sources (the tail of its list), in order, with where each counts. */
  added: AddedSource[][];
}

/** Per view: its source views, and those added for a part of its frame. */
export function selectSourceViews(model: SparseModel, options: SelectionOptions): SourceSelection {
  const n = model.views.length;
  const centres = model.views.map((v) => cameraCenter(v.camFromWorld));
  const pointsOf = pointsByView(model);
  const { xyz, obsOffsets, obsViews } = model.points;
  const toRad = Math.PI / 180;
  const angles = { min: options.minAngleDeg * toRad, max: options.maxAngleDeg * toRad };
  // Per reference view, reused.
  const score = new Float64Array(n);
  const shared = new Uint32Array(n);
  const result: SourceSelection = { sources: [], added: [] };
  for (let r = 0; r < n; r++) {
    score.fill(0);
    shared.fill(0);
    for (const p of pointsOf[r]) {
      for (let k = obsOffsets[p]; k < obsOffsets[p + 1]; k++) {
        const s = obsViews[k];
        if (s === r) continue;
        score[s] += angleWeight(triangulationAngle(centres[r], centres[s], xyz, 3 * p), angles.min, angles.max);
        shared[s]++;
      }
    }
    const candidates: number[] = [];
    for (let s = 0; s < n; s++) if (s !== r && shared[s] >= options.minSharedPoints && score[s] > 0) candidates.push(s);
    candidates.sort((a, b) => score[b] - score[a] || a - b);
    const widen = options.frameCells > 1 && options.extraSourceViews > 0 && candidates.length > options.sourceViews;
    const chosen = widen ? withFrameCover(model, r, pointsOf[r], candidates.slice(0, EXTRA_CANDIDATES * options.sourceViews), centres, angles, options) : { sources: candidates.slice(0, options.sourceViews), added: [] };
    result.sources.push(chosen.sources);
    result.added.push(chosen.added);
  }
  return result;
}

/** Of the candidates in score order, this many per source kept are weighed as extra sources. */
const EXTRA_CANDIDATES = 4;

/** For each view, the sparse points it observes. */
function pointsByView(model: SparseModel): number[][] {
  const pointsOf: number[][] = model.views.map(() => []);
  const { obsOffsets, obsViews } = model.points;
  for (let p = 0; p < model.points.count; p++) for (let k = obsOffsets[p]; k < obsOffsets[p + 1]; k++) pointsOf[obsViews[k]].push(p);
  return pointsOf;
}

/** Where the point at xyz[o] lands in `view`'s frame (pinhole; distortion does not move it across regions): [u, v], or null behind the camera. */
function project(view: RegisteredView, xyz: Float64Array, o: number): [number, number] | null {
  const { R, t } = view.camFromWorld;
  const { focal, cx, cy } = view.intrinsics;
  const z = R[6] * xyz[o] + R[7] * xyz[o + 1] + R[8] * xyz[o + 2] + t[2];
  if (!(z > 0)) return null;
  const x = R[0] * xyz[o] + R[1] * xyz[o + 1] + R[2] * xyz[o + 2] + t[0];
  const y = R[3] * xyz[o] + R[4] * xyz[o + 1] + R[5] * xyz[o + 2] + t[1];
  return [(focal * x) / z + cx, (focal * y) / z + cy];
}

/**
 * The sources of reference view `r`: the `sourceViews` best-scored candidates, then up to
 * `extraSourceViews` more where they leave a part of the reference's frame seen by fewer than two
 * of them. The frame is cut into `frameCells`² regions; a candidate covers a region by the share of
 * the reference's sparse points there that fall inside its own frame, each weighted by its
 * triangulation angle (angleWeight: the same preference as the score). An extra source is the
 * candidate that adds most cover to the thin regions (up to two sources' worth each), taken when it
 * adds at least half a region's. It counts in the cost only in the regions it adds cover to (at
 * least MIN_REGION_GAIN): elsewhere the best-scored sources already decide (counted everywhere it
 * cost courtyard-wide 0.5 dB over two dense seeds; counted there, 0.2). And it is added only for
 * regions of the background (`backgroundRatio`: their points' median depth at least that multiple
 * of the view's): where a region of the foreground is thin, the best-scored sources see the scene
 * the capture is about from where matching placed them, and a source at a wider angle that adds
 * cover there cost courtyard-wide's held-back photos 0.17 dB on every dense seed; at the frame's edge
 * of an orbit it is the room or the scenery behind the object that the sources' fields miss.
 *
 * Why: ranked by their score (points matched in both photos), an orbit's sources fall on one side
 * of the reference. The background at the frame's other edge leaves their fields of view, its cost
 * is decided by one source or none, and its depths fail the filters. rendered/plain-objects' view
 * 13 took 14–17 (all one way round) and left the far table and wall at its right without depth:
 * 11 sees them, but the 30° step to it (12 held back) had matched 10 points with 13 against 14's
 * 500. Goesele et al. (ICCV 2007, §4.1) choose the neighbours of a patch for its own part of the
 * scene for the same reason; here the part is a region of the frame, and what a source sees is
 * told by the cameras rather than by what matching found. The best-scored sources all stay:
 * choosing the four for spread alone lost the courtyard's near wall (coverage 0.983 → 0.930 from
 * its held-back photos, `npm run bench -- views courtyard`). For every region the held-back photos
 * gained coverage and lost PSNR (docs/decisions.md, "A source for the part of the frame the others
 * miss: an option, off by default"); for the background only they gain on every figure ("A source is
 * added for the background the others miss").
 */
function withFrameCover(model: SparseModel, r: number, refPoints: number[], candidates: number[], centres: Float64Array[], angles: { min: number; max: number }, options: SelectionOptions): { sources: number[]; added: AddedSource[] } {
  const side = options.frameCells, cells = side * side;
  const { xyz } = model.points;
  const ref = model.views[r];
  const cellOf = new Int32Array(refPoints.length).fill(-1);
  const inCell = new Float64Array(cells);
  const depth = new Float64Array(refPoints.length);
  const { R, t } = ref.camFromWorld;
  refPoints.forEach((p, i) => {
    const uv = project(ref, xyz, 3 * p);
    if (!uv) return;
    const col = Math.min(side - 1, Math.max(0, Math.floor((uv[0] / ref.intrinsics.width) * side)));
    const row = Math.min(side - 1, Math.max(0, Math.floor((uv[1] / ref.intrinsics.height) * side)));
    cellOf[i] = row * side + col;
    inCell[cellOf[i]]++;
    depth[i] = R[6] * xyz[3 * p] + R[7] * xyz[3 * p + 1] + R[8] * xyz[3 * p + 2] + t[2];
  });
  const cover = new Float64Array(candidates.length * cells);
  candidates.forEach((s, k) => {
    const view = model.views[s];
    refPoints.forEach((p, i) => {
      if (cellOf[i] < 0 || inCell[cellOf[i]] < MIN_REGION_POINTS) return;
      const uv = project(view, xyz, 3 * p);
      if (!uv || uv[0] < 0 || uv[1] < 0 || uv[0] >= view.intrinsics.width || uv[1] >= view.intrinsics.height) return;
      cover[k * cells + cellOf[i]] += angleWeight(triangulationAngle(centres[r], centres[s], xyz, 3 * p), angles.min, angles.max) / inCell[cellOf[i]];
    });
  });
  const covered = new Float64Array(cells);
  const chosen: number[] = [];
  const added: AddedSource[] = [];
  const take = (k: number) => {
    chosen.push(k);
    for (let c = 0; c < cells; c++) covered[c] += cover[k * cells + c];
  };
  for (let k = 0; k < Math.min(options.sourceViews, candidates.length); k++) take(k);
  // Regions of the foreground count as seen: no source is added for them.
  for (const c of foregroundRegions(cellOf, depth, cells, options.backgroundRatio)) covered[c] = FULL_REGION_COVER;
  for (let extra = 0; extra < options.extraSourceViews; extra++) {
    let best = -1, bestGain = MIN_EXTRA_GAIN;
    for (let k = options.sourceViews; k < candidates.length; k++) {
      if (chosen.includes(k)) continue;
      let gain = 0;
      for (let c = 0; c < cells; c++) gain += Math.min(cover[k * cells + c], Math.max(0, FULL_REGION_COVER - covered[c]));
      if (gain >= bestGain + 1e-9) { best = k; bestGain = gain; }
    }
    if (best < 0) break;
    const boxes: AddedSource["boxes"] = [];
    for (let c = 0; c < cells; c++) if (Math.min(cover[best * cells + c], FULL_REGION_COVER - covered[c]) >= MIN_REGION_GAIN) boxes.push(regionBox(ref, side, c));
    added.push({ view: candidates[best], boxes });
    take(best);
  }
  return { sources: chosen.map((k) => candidates[k]), added };
}

/**
 * The regions (of `cells`) whose points' median depth is under `ratio` × the median of all the
 * reference's points placed in the frame, or that hold none; none with `ratio` 0.
 */
function foregroundRegions(cellOf: Int32Array, depth: Float64Array, cells: number, ratio: number): number[] {
  if (!(ratio > 0)) return [];
  const byCell: number[][] = Array.from({ length: cells }, () => []);
  const all: number[] = [];
  cellOf.forEach((c, i) => {
    if (c < 0) return;
    byCell[c]!.push(depth[i]!);
    all.push(depth[i]!);
  });
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const overall = all.length > 0 ? median(all) : 0;
  const foreground: number[] = [];
  byCell.forEach((values, c) => {
    if (values.length === 0 || median(values) < ratio * overall) foreground.push(c);
  });
  return foreground;
}

/** Region `cell` of a `side`² cut of the view's frame, in normalised image coordinates. */
function regionBox(view: RegisteredView, side: number, cell: number): [number, number, number, number] {
  const { width, height, focal, cx, cy } = view.intrinsics;
  const col = cell % side, row = Math.floor(cell / side);
  const x = (k: number) => ((k * width) / side - cx) / focal;
  const y = (k: number) => ((k * height) / side - cy) / focal;
  // The frame's outer regions reach far beyond it, so no pixel at its edge falls outside by rounding
  // (finite: the box travels in a cluster job's JSON).
  return [col === 0 ? -OUTSIDE_FRAME : x(col), col === side - 1 ? OUTSIDE_FRAME : x(col + 1), row === 0 ? -OUTSIDE_FRAME : y(row), row === side - 1 ? OUTSIDE_FRAME : y(row + 1)];
}

/** A region is seen well enough when its cover adds up to two sources' (the cost averages the best two of four). */
const FULL_REGION_COVER = 2;
/** An extra source must add this much cover to the thin regions (half a region seen by one more source). */
const MIN_EXTRA_GAIN = 0.5;

/** Beyond any frame, in normalised image coordinates. */
const OUTSIDE_FRAME = 1e6;

/** An added source counts in a region where it adds this much cover (a tenth of a source's). */
const MIN_REGION_GAIN = 0.1;

/** A region of the frame with fewer of the reference's sparse points than this is not weighed (its cover is noise). */
const MIN_REGION_POINTS = 5;

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
