/**
 * @module Ground control of a survey: surveyed targets and their marks in the photos, the
 * triangulation of a target from its marks, and the similarity from the model onto the control
 * points, with the two rules that keep a wrong mark or a wrong point out of the solution.
 *
 * A target's marks are a person's clicks on its centre in photos "as displayed" (upright, full
 * size). Ingest may have downscaled the photo (ImageRef sourceWidth → width), and features and
 * cameras live in the stored image's pixels (compute/scene/features.ts), so a mark is scaled by
 * width / sourceWidth (and height / sourceHeight); both use the top-left corner of the top-left
 * pixel as origin, so the scaling is exact.
 *
 * The rules (the report states them as RULE):
 * - Marks: a target is triangulated by trying every pair of its marks (a two-view DLT with rays
 *   at least 1° apart), keeping the pair that most marks agree with, then refining on those
 *   (multi-view DLT with Gauss–Newton, twice). A mark whose reprojection error is above
 *   max(controlMarkMaxErrorPx, 4 σ_mark) is dropped (a click on the wrong target, a mark on the
 *   wrong photo). Consensus over pairs rather than "drop the worst" because one wrong mark pulls
 *   a least-squares point towards itself and can push good marks out first (RANSAC's argument,
 *   Fischler & Bolles 1981). A target needs two agreeing marks on registered photos.
 * - Points: after a similarity from the model onto the stated positions (least median of
 *   squares over 3-point samples, then least squares; geometry/similarity.ts), a control point
 *   is left out when its residual exceeds max(controlMaxSigmas × its stated 3-D σ,
 *   controlMedianFactor × the median residual of the other kept control points): the worst one
 *   first, refitting after each, never below three; a point left out comes back when the fit
 *   on the points kept then agrees with it (the start's fit rests on three points and can put
 *   a good one past its limit). The median term keeps a model that is not
 *   yet as accurate as the survey (before the adjustment with control) from losing every point;
 *   the σ term keeps an accurate model from calling centimetres an error.
 */
import { triangulateMultiView, triangulateTwoView, triangulationAngleDeg } from "../../geometry/triangulation.js";
import { project, undistortPoint } from "../../geometry/camera.js";
import { robustSimilarity, umeyama, type Similarity } from "../../geometry/similarity.js";
import { median } from "../../math/median.js";
import { cameraCenter, type ImageRef, type RegisteredView } from "../../scene/index.js";

/** A click on a target's centre: `imageIndex` into the SfM input's images; pixels of the photo as displayed, origin top-left corner. */
export interface ControlMark {
  imageIndex: number;
  x: number;
  y: number;
}

/** A surveyed target. */
export interface ControlTarget {
  name: string;
  /** "control" points hold the adjustment; "check" points are only measured against it. */
  role: "control" | "check";
  /** In the API frame, metres: x east, y up, z south (the pipeline subtracts the offsets). */
  position: [number, number, number];
  /** Stated accuracy (1 σ), metres: horizontal on x and z, vertical on y. */
  sigma: { horizontal: number; vertical: number };
  marks: ControlMark[];
}

/** Throws when a target is malformed (the pipeline checks its input with a schema first: this is a precondition). */
export function checkControlTargets(targets: ControlTarget[]): void {
  const names = new Set<string>();
  for (const t of targets) {
    const fail = (why: string) => {
      throw new Error(`sfm: control target "${t.name}" ${why}`);
    };
    if (typeof t.name !== "string" || t.name.length === 0) fail("has no name");
    if (names.has(t.name)) fail("is named twice");
    names.add(t.name);
    if (t.role !== "control" && t.role !== "check") fail(`has the role "${String(t.role)}" (control or check)`);
    if (t.position?.length !== 3 || !t.position.every(Number.isFinite)) fail("needs a finite position [x, y, z]");
    if (!(t.sigma?.horizontal > 0) || !(t.sigma?.vertical > 0) || !Number.isFinite(t.sigma.horizontal) || !Number.isFinite(t.sigma.vertical)) fail("needs positive horizontal and vertical σ");
    if (!Array.isArray(t.marks)) fail("needs a list of marks");
  }
}

/** The rules of the module comment, for the report. */
export const RULE =
  "a mark is dropped when its reprojection error after triangulation exceeds max(controlMarkMaxErrorPx, 4 σ_mark) (consensus over pairs of marks, then least squares); " +
  "a control point is left out when its residual to its stated position after the similarity (and again after the adjustment) exceeds max(controlMaxSigmas × its stated 3-D σ, controlMedianFactor × the median residual of the other control points), the worst first, keeping at least three; a point left out comes back when the refitted similarity agrees with it";

/** A mark in the stored image's pixels, on the registered view `view`. */
export interface ViewMark {
  mark: number;
  view: number;
  x: number;
  y: number;
}

/** A mark that takes no part, and why. */
export interface DroppedMark {
  mark: number;
  imageIndex: number;
  name: string;
  reason: string;
  errorPx?: number;
}

/** The target's marks on registered views, scaled into the stored images' pixels; the others with the reason. */
export function viewMarks(target: ControlTarget, images: ImageRef[], viewOfImage: Map<number, number>): { marks: ViewMark[]; dropped: DroppedMark[] } {
  const marks: ViewMark[] = [];
  const dropped: DroppedMark[] = [];
  target.marks.forEach((m, mark) => {
    const image = Number.isInteger(m.imageIndex) ? images[m.imageIndex] : undefined;
    if (!image || !Number.isFinite(m.x) || !Number.isFinite(m.y)) {
      dropped.push({ mark, imageIndex: m.imageIndex, name: image?.name ?? "", reason: image ? "its position is not a number" : `there is no image ${m.imageIndex}` });
      return;
    }
    const view = viewOfImage.get(m.imageIndex);
    if (view === undefined) {
      dropped.push({ mark, imageIndex: m.imageIndex, name: image.name, reason: "the photo is not placed in the model" });
      return;
    }
    const sx = image.width / (image.sourceWidth ?? image.width);
    const sy = image.height / (image.sourceHeight ?? image.height);
    marks.push({ mark, view, x: m.x * sx, y: m.y * sy });
  });
  return { marks, dropped };
}

export interface MarkTriangulation {
  /** The point in the model's frame, or null with `reason`. */
  xyz: Float64Array | null;
  reason?: string;
  /** Marks (indices into the input list) the point was triangulated from. */
  kept: number[];
  /** Per input mark, its reprojection error at xyz, pixels (NaN where it does not project). */
  errorsPx: Float64Array;
}

/** Smallest angle between two marks' rays for their pair to seed a triangulation, degrees. */
const MIN_PAIR_ANGLE_DEG = 1;

function reprojectionErrors(views: RegisteredView[], marks: ViewMark[], X: Float64Array, out: Float64Array): Float64Array {
  const pixel = new Float64Array(2);
  marks.forEach((m, k) => {
    const view = views[m.view];
    out[k] = project(view.intrinsics, view.camFromWorld, X, pixel) ? Math.hypot(pixel[0] - m.x, pixel[1] - m.y) : Number.NaN;
  });
  return out;
}

function within(errors: Float64Array, maxErrorPx: number): number[] {
  const kept: number[] = [];
  errors.forEach((e, k) => {
    if (e <= maxErrorPx) kept.push(k);
  });
  return kept;
}

/** Triangulates a target from its marks on registered views (the module comment's first rule). */
export function triangulateMarks(views: RegisteredView[], marks: ViewMark[], maxErrorPx: number): MarkTriangulation {
  const errorsPx = new Float64Array(marks.length).fill(Number.NaN);
  if (marks.length < 2) return { xyz: null, reason: `${marks.length} mark on a placed photo (2 needed)`, kept: [], errorsPx };
  const normalized = marks.map((m) => undistortPoint(views[m.view].intrinsics, m.x, m.y, new Float64Array(2)));
  const centres = views.map((v) => cameraCenter(v.camFromWorld));
  let best: { kept: number[]; sum: number } = { kept: [], sum: Infinity };
  const errors = new Float64Array(marks.length);
  for (let i = 0; i < marks.length; i++) {
    for (let j = i + 1; j < marks.length; j++) {
      if (marks[i].view === marks[j].view) continue;
      const X = triangulateTwoView(views[marks[i].view].camFromWorld, views[marks[j].view].camFromWorld, normalized[i], normalized[j]);
      if (!X || triangulationAngleDeg(centres[marks[i].view], centres[marks[j].view], X) < MIN_PAIR_ANGLE_DEG) continue;
      const kept = within(reprojectionErrors(views, marks, X, errors), maxErrorPx);
      const sum = kept.reduce((s, k) => s + errors[k], 0);
      if (kept.length > best.kept.length || (kept.length === best.kept.length && sum < best.sum)) best = { kept, sum };
    }
  }
  let kept = best.kept;
  let X: Float64Array | null = null;
  for (let round = 0; round < 2 && kept.length >= 2; round++) {
    const obs = new Float64Array(2 * kept.length);
    kept.forEach((k, n) => obs.set(normalized[k], 2 * n));
    X = triangulateMultiView(kept.map((k) => views[marks[k].view].camFromWorld), obs, kept.length);
    if (!X) break;
    reprojectionErrors(views, marks, X, errorsPx);
    kept = within(errorsPx, maxErrorPx);
  }
  if (!X || kept.length < 2) {
    return { xyz: null, reason: `its ${marks.length} marks on placed photos do not meet in one point (no two agree within ${maxErrorPx.toFixed(1)} px)`, kept: [], errorsPx };
  }
  return { xyz: X, kept: kept.map((k) => marks[k].mark), errorsPx };
}

/** A target's 3-D standard deviation, metres: √(2σh² + σv²). */
export function sigma3d(target: ControlTarget): number {
  return Math.hypot(target.sigma.horizontal, target.sigma.horizontal, target.sigma.vertical);
}

export interface ControlSelection {
  /** model → target frame, fitted on the kept points; null when fewer than three could be kept. */
  similarity: Similarity | null;
  /** Per candidate (in input order), kept or not, its residual under the similarity (metres) and the limit it was held to. */
  kept: boolean[];
  residualM: number[];
  limitM: number[];
}

function mapped(sim: Similarity, x: ArrayLike<number>, o: number): number[] {
  return [0, 1, 2].map((a) => sim.s * (sim.R[3 * a] * x[o] + sim.R[3 * a + 1] * x[o + 1] + sim.R[3 * a + 2] * x[o + 2]) + sim.t[a]);
}

/** Residuals |s·R·model + t − stated| of every candidate, metres. */
function residuals(sim: Similarity, model: Float64Array, stated: Float64Array, count: number): number[] {
  return Array.from({ length: count }, (_, k) => {
    const m = mapped(sim, model, 3 * k);
    return Math.hypot(m[0] - stated[3 * k], m[1] - stated[3 * k + 1], m[2] - stated[3 * k + 2]);
  });
}

/** Each kept candidate's limit under the points rule: max(maxSigmas × σ, medianFactor × the median of the other kept residuals). */
export function residualLimits(residualM: number[], kept: boolean[], sigmaM: number[], maxSigmas: number, medianFactor: number): number[] {
  return residualM.map((_, k) => {
    const others = residualM.filter((r, j) => j !== k && kept[j]);
    return Math.max(maxSigmas * sigmaM[k], others.length > 0 ? medianFactor * median(others) : 0);
  });
}

/**
 * The similarity from the model onto the control points triangulated in it (`model`, `stated`:
 * 3 per candidate), with the points that fail the module comment's second rule left out.
 */
export function selectControl(model: Float64Array, stated: Float64Array, sigmaM: number[], maxSigmas: number, medianFactor: number): ControlSelection {
  const count = sigmaM.length;
  const kept = new Array<boolean>(count).fill(true);
  const start = robustSimilarity(model, stated, count);
  if (!start) return { similarity: null, kept: kept.fill(false), residualM: new Array(count).fill(Number.NaN), limitM: new Array(count).fill(Number.NaN) };
  let sim: Similarity = start;
  // Each step drops or restores one point; the cap only guards against a cycle.
  for (let step = 0; ; step++) {
    const residualM = residuals(sim, model, stated, count);
    const limitM = residualLimits(residualM, kept, sigmaM, maxSigmas, medianFactor);
    const ratio = (k: number) => residualM[k] / limitM[k];
    let change = -1;
    if (kept.filter(Boolean).length > 3) {
      for (let k = 0; k < count; k++) if (kept[k] && ratio(k) > 1 && (change < 0 || ratio(k) > ratio(change))) change = k;
    }
    // A point left out under an earlier fit (the robust start's, fitted on few points) comes back
    // when the fit on the points kept now agrees with it.
    if (change < 0) {
      for (let k = 0; k < count; k++) if (!kept[k] && ratio(k) <= 1 && (change < 0 || ratio(k) < ratio(change))) change = k;
    }
    if (change < 0 || step >= 4 * count) return { similarity: sim, kept, residualM, limitM };
    kept[change] = !kept[change];
    const indices = kept.flatMap((on, k) => (on ? [k] : []));
    sim = umeyama(model, stated, count, true, indices);
  }
}

/** Estimated − stated in the API frame (x east, y up, z south) as east, north, up metres. */
export function residualEnu(estimated: ArrayLike<number>, stated: ArrayLike<number>): { dx: number; dy: number; dz: number } {
  return { dx: estimated[0] - stated[0], dy: -(estimated[2] - stated[2]), dz: estimated[1] - stated[1] };
}
