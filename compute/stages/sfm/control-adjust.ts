/**
 * @module Ground control applied to a finished model (index.ts, after the model is built and in
 * place of frame.ts's alignment): the survey's adjustment in four steps.
 *
 * 1. Every target is triangulated from its marks on the placed photos, in the model's own frame
 *    (control.ts: consensus over pairs of marks; a mark that disagrees is dropped).
 * 2. A similarity from the model onto the control points (three or more; a point that disagrees
 *    with the others is left out, control.ts) moves the model into the control's frame: the API
 *    frame in metres, x east, y up, z south.
 * 3. A bundle adjustment holds the control points at their surveyed positions with their stated
 *    σ, beside the photos' GPS fixes (control-bundle.ts). A control point whose marks then still
 *    disagree with its position beyond the rule is left out and the adjustment run again, at most
 *    twice (a wrong point that the similarity's median term let through bends the block towards
 *    itself, and only the adjusted block shows it).
 * 4. Every target, checkpoints and left-out control points included, is triangulated again from
 *    its marks with the final cameras alone and compared with its stated position; checkpoints
 *    never take part in steps 2 and 3.
 */
import { applyAlignment } from "./frame.js";
import { adjustWithControlPoints, type AdjustedControl, type ControlBundleSummary } from "./control-bundle.js";
import { residualEnu, residualLimits, RULE, selectControl, sigma3d, triangulateMarks, viewMarks, type ControlTarget, type DroppedMark, type MarkTriangulation, type ViewMark } from "./control.js";
import { roleRmse, type ControlPointReport, type ControlReport } from "./control-report.js";
import type { ImageFeatures, ImageRef, SparseModel } from "../../scene/index.js";
import type { Options } from "./options.js";

export interface ControlInput {
  /** The finished model, in its own frame; moved and adjusted in place when control applies. */
  model: SparseModel;
  images: ImageRef[];
  /** The features the model's observations index. */
  features: ImageFeatures[];
  /** Intrinsics group of each image (as the model was built). */
  groupOfImage: Uint32Array;
}

/** Adjustments with control at most: the first, and one after each of two rounds of leaving a point out. */
const MAX_ADJUSTMENTS = 3;

/** One target's marks and triangulation. */
interface Measured {
  target: ControlTarget;
  marks: ViewMark[];
  dropped: DroppedMark[];
  tri: MarkTriangulation;
}

function measure(target: ControlTarget, input: ControlInput, maxErrorPx: number, only?: Set<number>): Measured {
  const viewOfImage = new Map(input.model.views.map((v, k) => [v.imageIndex, k]));
  const { marks: all, dropped } = viewMarks(target, input.images, viewOfImage);
  const marks = only ? all.filter((m) => only.has(m.mark)) : all;
  return { target, marks, dropped, tri: triangulateMarks(input.model.views, marks, maxErrorPx) };
}

/** The point's report from its measurement with the final cameras; `used` and `reason` as decided. */
function pointReport(m: Measured, used: boolean, reason: string | undefined, maxErrorPx: number): ControlPointReport {
  const { target, tri } = m;
  const kept = new Set(tri.kept);
  const rejected = m.marks.flatMap((vm, k) => {
    if (kept.has(vm.mark)) return [];
    const image = target.marks[vm.mark].imageIndex;
    const errorPx = tri.errorsPx[k];
    const why = tri.xyz ? `its reprojection error ${Number.isFinite(errorPx) ? `${errorPx.toFixed(1)} px` : "(behind the camera)"} exceeds ${maxErrorPx.toFixed(1)} px` : "the marks do not meet";
    return [{ mark: vm.mark, imageIndex: image, name: "", reason: why, ...(Number.isFinite(errorPx) ? { errorPx } : {}) }];
  });
  let squares = 0;
  m.marks.forEach((vm, k) => {
    if (kept.has(vm.mark)) squares += tri.errorsPx[k] ** 2;
  });
  return {
    name: target.name,
    role: target.role,
    used,
    ...(reason ? { reason } : {}),
    marks: target.marks.length,
    marksUsed: tri.kept.length,
    droppedMarks: [...m.dropped, ...rejected].sort((a, b) => a.mark - b.mark),
    residualM: tri.xyz ? residualEnu(tri.xyz, target.position) : null,
    reprojectionRmsPx: tri.kept.length > 0 ? Math.sqrt(squares / tri.kept.length) : null,
  };
}

/** The reports with each dropped mark's photo named. */
function named(points: ControlPointReport[], images: ImageRef[]): ControlPointReport[] {
  return points.map((p) => ({ ...p, droppedMarks: p.droppedMarks.map((d) => ({ ...d, name: images[d.imageIndex]?.name ?? "" })) }));
}

/** Control does not apply: every target unused, without a residual (the model is not in the control's frame). */
function notApplied(measured: Measured[], images: ImageRef[], reason: string, maxErrorPx: number): ControlReport {
  const points = named(measured.map((m) => ({ ...pointReport(m, false, m.tri.reason ?? reason, maxErrorPx), residualM: null })), images);
  return { applied: false, reason, rule: RULE, points, rmse: { control: null, check: null }, similarity: null, adjustment: null };
}

function fixed(metres: number): string {
  return `${metres.toFixed(3)} m`;
}

/**
 * Applies `options.controlPoints` to `input.model` (module comment). Returns the report's
 * `control` section; `applied` false (model untouched) when fewer than three control points
 * can be triangulated and agree.
 */
export function applyControl(input: ControlInput, options: Options): ControlReport {
  const { model } = input;
  const targets = options.controlPoints;
  const maxErrorPx = Math.max(options.controlMarkMaxErrorPx, 4 * options.controlMarkSigmaPx);
  const first = targets.map((t) => measure(t, input, maxErrorPx));
  const candidates = first.filter((m) => m.target.role === "control" && m.tri.xyz !== null);
  if (candidates.length < 3) return notApplied(first, input.images, `${candidates.length} control points could be triangulated from their marks (3 needed)`, maxErrorPx);
  const modelXyz = Float64Array.from(candidates.flatMap((m) => [...m.tri.xyz!]));
  const stated = Float64Array.from(candidates.flatMap((m) => m.target.position));
  const sigmas = candidates.map((m) => sigma3d(m.target));
  const selection = selectControl(modelXyz, stated, sigmas, options.controlMaxSigmas, options.controlMedianFactor);
  const sim = selection.similarity;
  if (!sim) return notApplied(first, input.images, "no similarity maps the model onto its control points", maxErrorPx);
  const reasons = new Map<ControlTarget, string>();
  candidates.forEach((m, k) => {
    if (!selection.kept[k]) reasons.set(m.target, `its residual after the similarity, ${fixed(selection.residualM[k])}, exceeds the limit of ${fixed(selection.limitM[k])}`);
  });
  const keptResiduals = selection.residualM.filter((_, k) => selection.kept[k]);
  const similarity = { scale: sim.s, residualRmsM: Math.sqrt(keptResiduals.reduce((s, r) => s + r * r, 0) / keptResiduals.length) };
  // model' = s·R·model + t is applyAlignment's s·R·(model − origin) with origin = −Rᵀt/s.
  const origin = Float64Array.from([0, 1, 2], (a) => -(sim.R[a] * sim.t[0] + sim.R[3 + a] * sim.t[1] + sim.R[6 + a] * sim.t[2]) / sim.s);
  applyAlignment(model, { R: sim.R, origin, scale: sim.s, upFrom: "control", eastFromGps: false });
  // The control points that hold the adjustment, with the marks their triangulation kept, starting where the similarity put them.
  let adjusted: AdjustedControl[] = candidates.flatMap((m, k) => {
    if (!selection.kept[k]) return [];
    const kept = new Set(m.tri.kept);
    const x = m.tri.xyz!;
    const start = [0, 1, 2].map((a) => sim.s * (sim.R[3 * a] * x[0] + sim.R[3 * a + 1] * x[1] + sim.R[3 * a + 2] * x[2]) + sim.t[a]);
    return [{ target: m.target, marks: m.marks.filter((vm) => kept.has(vm.mark)), start }];
  });
  let adjustment: ControlBundleSummary | null = null;
  for (let round = 0; round < MAX_ADJUSTMENTS; round++) {
    adjustment = adjustWithControlPoints(model, input.images, input.features, input.groupOfImage, adjusted, options);
    if (round === MAX_ADJUSTMENTS - 1 || adjusted.length <= 3) break;
    const after = adjusted.map((a) => measure(a.target, input, maxErrorPx, new Set(a.marks.map((vm) => vm.mark))));
    const residualM = after.map((m) => (m.tri.xyz ? Math.hypot(...Object.values(residualEnu(m.tri.xyz, m.target.position))) : Number.POSITIVE_INFINITY));
    const limitM = residualLimits(residualM, adjusted.map(() => true), adjusted.map((a) => sigma3d(a.target)), options.controlMaxSigmas, options.controlMedianFactor);
    let worst = -1;
    residualM.forEach((r, k) => {
      if (r > limitM[k] && (worst < 0 || r / limitM[k] > residualM[worst] / limitM[worst])) worst = k;
    });
    if (worst < 0) break;
    reasons.set(adjusted[worst].target, `its residual after the adjustment with control, ${fixed(residualM[worst])}, exceeds the limit of ${fixed(limitM[worst])}`);
    adjusted = adjusted.filter((_, k) => k !== worst);
  }
  const usedMarks = new Map(adjusted.map((a) => [a.target, new Set(a.marks.map((vm) => vm.mark))]));
  const points = first.map(({ target, tri }) => {
    const only = usedMarks.get(target);
    const final = measure(target, input, maxErrorPx, only);
    if (only) return pointReport(final, true, undefined, maxErrorPx);
    if (target.role === "check") return pointReport(final, final.tri.xyz !== null, final.tri.reason, maxErrorPx);
    return pointReport(final, false, reasons.get(target) ?? tri.reason ?? "not triangulated", maxErrorPx);
  });
  // The marks dropped before the adjustment stay dropped in a used control point's report.
  for (const [k, m] of first.entries()) {
    const report = points[k];
    const only = usedMarks.get(m.target);
    if (!only) continue;
    const listed = new Set(report.droppedMarks.map((d) => d.mark));
    m.marks.forEach((vm, j) => {
      if (only.has(vm.mark) || listed.has(vm.mark)) return;
      const errorPx = m.tri.errorsPx[j];
      report.droppedMarks.push({ mark: vm.mark, imageIndex: m.target.marks[vm.mark].imageIndex, name: "", reason: `its reprojection error at triangulation, ${Number.isFinite(errorPx) ? `${errorPx.toFixed(1)} px` : "(behind the camera)"}, exceeds ${maxErrorPx.toFixed(1)} px`, ...(Number.isFinite(errorPx) ? { errorPx } : {}) });
    });
    report.droppedMarks.sort((a, b) => a.mark - b.mark);
  }
  const reports = named(points, input.images);
  return { applied: true, rule: RULE, points: reports, rmse: { control: roleRmse(reports, "control"), check: roleRmse(reports, "check") }, similarity, adjustment };
}
