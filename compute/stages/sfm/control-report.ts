/**
 * @module What the SfM stage reports about ground control (the report's `control` section):
 * per control point and checkpoint whether it was used and why not, its marks, its residual
 * east, north and up (estimated − stated, metres) and its marks' reprojection error; and the
 * RMSE per role, horizontal, vertical and 3-D.
 */
import type { ControlBundleSummary } from "./control-bundle.js";
import type { DroppedMark } from "./control.js";

export interface ControlPointReport {
  name: string;
  role: "control" | "check";
  /**
   * A control point: it held the adjustment. A checkpoint: it was triangulated from the final
   * cameras and measured (it never holds anything).
   */
  used: boolean;
  /** Why not used. */
  reason?: string;
  /** Marks given, and those the point was triangulated from (for a used control point, the adjustment's). */
  marks: number;
  marksUsed: number;
  droppedMarks: Array<Omit<DroppedMark, "mark"> & { mark: number }>;
  /**
   * Estimated − stated, metres east (dx), north (dy) and up (dz). Estimated: triangulated from
   * its marks with the final cameras alone (not the adjusted point its prior holds), so a control
   * point's residual says how well the photos agree with it. Null when it could not be triangulated.
   */
  residualM: { dx: number; dy: number; dz: number } | null;
  /** RMS reprojection error of its used marks at that position, pixels of the stored photos. */
  reprojectionRmsPx: number | null;
}

/** Root mean square of the residuals of one role's measured points, metres. */
export interface RoleRmse {
  points: number;
  horizontalM: number;
  verticalM: number;
  totalM: number;
}

export interface ControlReport {
  /** Whether the model is in the control's frame, adjusted with it; otherwise `reason` and the usual frame (frame.ts). */
  applied: boolean;
  reason?: string;
  /** The rules that drop marks and leave control points out (control.ts RULE). */
  rule: string;
  points: ControlPointReport[];
  rmse: { control: RoleRmse | null; check: RoleRmse | null };
  /** Scale of the similarity from the model's own units to metres, and the kept control points' RMS residual under it before the adjustment (metres). */
  similarity: { scale: number; residualRmsM: number } | null;
  adjustment: ControlBundleSummary | null;
}

/** RMSE of the points of `role` that have a residual and are used. */
export function roleRmse(points: ControlPointReport[], role: "control" | "check"): RoleRmse | null {
  const measured = points.filter((p) => p.role === role && p.used && p.residualM !== null).map((p) => p.residualM!);
  if (measured.length === 0) return null;
  const mean = (f: (r: { dx: number; dy: number; dz: number }) => number) => measured.reduce((s, r) => s + f(r), 0) / measured.length;
  const horizontal = mean((r) => r.dx * r.dx + r.dy * r.dy);
  const vertical = mean((r) => r.dz * r.dz);
  return { points: measured.length, horizontalM: Math.sqrt(horizontal), verticalM: Math.sqrt(vertical), totalM: Math.sqrt(horizontal + vertical) };
}

/** Counts for the stage report's `counts` (0 where there is nothing to measure). */
export function controlCounts(report: ControlReport): Record<string, number> {
  const of = (role: "control" | "check") => report.points.filter((p) => p.role === role);
  return {
    controlPoints: of("control").length,
    controlPointsUsed: of("control").filter((p) => p.used).length,
    checkPoints: of("check").length,
    checkPointsMeasured: of("check").filter((p) => p.used).length,
    controlApplied: report.applied ? 1 : 0,
    controlRmseHorizontalM: report.rmse.control?.horizontalM ?? 0,
    controlRmseVerticalM: report.rmse.control?.verticalM ?? 0,
    checkRmseHorizontalM: report.rmse.check?.horizontalM ?? 0,
    checkRmseVerticalM: report.rmse.check?.verticalM ?? 0,
    checkRmse3dM: report.rmse.check?.totalM ?? 0,
  };
}

/** One warning per control point left out or target that could not be measured, for the stage's warnings. */
export function controlWarnings(report: ControlReport): string[] {
  const warnings: string[] = [];
  if (!report.applied && report.reason) warnings.push(`ground control was not applied: ${report.reason}`);
  for (const p of report.points) {
    if (p.used) continue;
    const residual = p.residualM ? ` (residual ${Math.hypot(p.residualM.dx, p.residualM.dy, p.residualM.dz).toFixed(3)} m)` : "";
    warnings.push(`${p.role === "control" ? "control point" : "checkpoint"} ${p.name} was left out: ${p.reason}${residual}`);
  }
  return warnings;
}
