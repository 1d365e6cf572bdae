/**
 * @module The report's figures from the model, the measures and the control residuals: the
 * `quality` section of report.json, from which the HTML is rendered (so the two cannot differ).
 */
import type { ImageRef, Similarity, SparseModel } from "../../scene/index.js";
import { intrinsicsGroups, type ModelMeasures } from "./measures.js";
import { cellsByPhotos, type OverlapGrid } from "./overlap.js";
import type { AxisSigmas, ControlResidual, Input, QualityFigures, ResidualRmse } from "./types.js";

function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const m = sorted.length >> 1;
  return sorted.length % 2 ? sorted[m] : 0.5 * (sorted[m - 1] + sorted[m]);
}

/** The calibration before (the focal prior ingest gave, principal point at the centre, no distortion) and after, per solved camera. */
export function calibrationOf(model: SparseModel, images: ImageRef[]): QualityFigures["calibration"] {
  const { groupOfView, groups } = intrinsicsGroups(model);
  return groups.map((after, g) => {
    const members = model.views.filter((_, i) => groupOfView[i] === g).map((v) => images[v.imageIndex]).filter((image) => image !== undefined);
    const first = members[0];
    const focalPrior = median(members.map((m) => m.focalPrior));
    return {
      camera: `Camera ${g + 1} (${after.width} × ${after.height})`,
      photos: members.length,
      width: after.width,
      height: after.height,
      priorSource: first?.focalPriorSource ?? "default",
      before: { focal: focalPrior, cx: after.width / 2, cy: after.height / 2, k1: 0, k2: 0 },
      after: { focal: after.focal, cx: after.cx, cy: after.cy, k1: after.k1, k2: after.k2 },
    };
  });
}

/** A bin width of 1, 2 or 5 × 10ⁿ pixels giving about `bins` bins up to `largest`. */
function niceBin(largest: number, bins: number): number {
  const raw = Math.max(largest, 1e-6) / bins;
  const decade = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * decade).find((step) => step >= raw) ?? 10 * decade;
}

export function reprojectionOf(model: SparseModel, measures: ModelMeasures | null): QualityFigures["reprojection"] {
  if (!measures) return null;
  const { points, views } = model;
  const errors = measures.observationErrorsPx;
  const sums = new Float64Array(views.length);
  const squares = new Float64Array(views.length);
  const counts = new Uint32Array(views.length);
  let sum = 0;
  let sumSquares = 0;
  for (let o = 0; o < points.obsOffsets[points.count]; o++) {
    const v = points.obsViews[o];
    sums[v] += errors[o];
    squares[v] += errors[o] ** 2;
    counts[v]++;
    sum += errors[o];
    sumSquares += errors[o] ** 2;
  }
  const perPhoto = views.map((view, i) => ({
    name: view.name,
    observations: counts[i],
    meanPx: counts[i] ? sums[i] / counts[i] : 0,
    rmsPx: counts[i] ? Math.sqrt(squares[i] / counts[i]) : 0,
  }));
  const seen = perPhoto.filter((p) => p.observations > 0);
  const binPx = niceBin(Math.max(0, ...seen.map((p) => p.rmsPx)), 10);
  const histogram = new Array<number>(Math.max(1, Math.floor(Math.max(0, ...seen.map((p) => p.rmsPx)) / binPx) + 1)).fill(0);
  for (const p of seen) histogram[Math.floor(p.rmsPx / binPx)]++;
  const n = errors.length;
  return {
    observations: n,
    meanPx: n ? sum / n : 0,
    rmsPx: n ? Math.sqrt(sumSquares / n) : 0,
    medianPx: n ? median(Array.from(errors)) : 0,
    histogram: { binPx, counts: histogram },
    perPhoto,
  };
}

/** σ east, north, up of each camera centre: the model-frame covariance carried by s·R into the target frame (x east, y up, z south). */
export function uncertaintyOf(model: SparseModel, measures: ModelMeasures | null, modelToTarget: Similarity): QualityFigures["uncertainty"] {
  const covariance = measures?.covariance;
  if (!covariance || covariance.failed) return null;
  const { R, s } = modelToTarget;
  const perPhoto: Array<{ name: string } & AxisSigmas> = [];
  model.views.forEach((view, c) => {
    const m = covariance.perView.subarray(9 * c, 9 * c + 9);
    if (!m.every(Number.isFinite)) return;
    // Diagonal of s²·R·M·Rᵀ: axis a is s²·Σᵢⱼ R[a][i]·M[i][j]·R[a][j].
    const variance = [0, 1, 2].map((a) => {
      let sum = 0;
      for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) sum += R[3 * a + i] * m[3 * i + j] * R[3 * a + j];
      return s * s * Math.max(0, sum);
    });
    perPhoto.push({ name: view.name, eastM: Math.sqrt(variance[0]), northM: Math.sqrt(variance[2]), upM: Math.sqrt(variance[1]) });
  });
  if (perPhoto.length === 0) return null;
  const summary = (pick: (values: number[]) => number): AxisSigmas => ({
    eastM: pick(perPhoto.map((p) => p.eastM)),
    northM: pick(perPhoto.map((p) => p.northM)),
    upM: pick(perPhoto.map((p) => p.upM)),
  });
  return { gauge: covariance.gauge, inverse: covariance.inverse, sigma0Px: covariance.sigma0, median: summary(median), max: summary((v) => Math.max(...v)), perPhoto };
}

function rmseOf(points: ControlResidual[]): ResidualRmse | null {
  if (points.length === 0) return null;
  const rms = (f: (p: ControlResidual) => number) => Math.sqrt(points.reduce((sum, p) => sum + f(p) ** 2, 0) / points.length);
  return {
    count: points.length,
    eastM: rms((p) => p.dx),
    northM: rms((p) => p.dy),
    horizontalM: rms((p) => Math.hypot(p.dx, p.dy)),
    verticalM: rms((p) => p.dz),
    threeDM: rms((p) => Math.hypot(p.dx, p.dy, p.dz)),
  };
}

export function controlOf(control: ControlResidual[] | undefined): QualityFigures["control"] {
  if (!control || control.length === 0) return null;
  const used = control.filter((p) => p.used);
  return {
    points: control.map((p) => ({ ...p, horizontalM: Math.hypot(p.dx, p.dy), threeDM: Math.hypot(p.dx, p.dy, p.dz) })),
    rmse: { control: rmseOf(used.filter((p) => p.role === "control")), check: rmseOf(used.filter((p) => p.role === "check")) },
  };
}

export function leftOutOf(input: Input, figures: Pick<QualityFigures, "reprojection" | "uncertainty" | "control">): QualityFigures["leftOut"] {
  const out: QualityFigures["leftOut"] = [];
  for (const s of input.job.skipped) out.push({ kind: "input", name: s.name, reason: s.reason });
  for (const u of input.job.unregistered) out.push({ kind: "photo", name: u.name, reason: u.reason });
  for (const p of input.control ?? []) if (!p.used) out.push({ kind: "control", name: p.name, reason: p.reason ?? "not used" });
  for (const s of input.job.notRun) out.push({ kind: "stage", name: s.stage, reason: s.reason });
  if (!input.georeference) out.push({ kind: "section", name: "georeference", reason: input.job.georeferenceRefused ?? "no control points and no photo with a GPS fix: lengths are in the model's own units" });
  if (!figures.reprojection) out.push({ kind: "section", name: "reprojection error", reason: "not measured for this job" });
  if (!figures.uncertainty) out.push({ kind: "section", name: "camera position uncertainty", reason: input.measures?.covariance?.failed ?? "not measured for this job" });
  if (!figures.control) out.push({ kind: "section", name: "control and checkpoints", reason: "no control points or checkpoints were given" });
  return out;
}

export function overlapFigures(grid: OverlapGrid): { overlap: QualityFigures["overlap"]; areaM2: number } {
  const byPhotos = cellsByPhotos(grid.counts);
  const seen = byPhotos[1] + byPhotos[2] + byPhotos[3] + byPhotos[4] + byPhotos[5];
  return {
    overlap: {
      cellSizeM: grid.cellSize, width: grid.width, height: grid.height, westX: grid.westX, northZ: grid.northZ,
      cellsByPhotos: byPhotos, fiveOrMoreShare: seen ? byPhotos[5] / seen : 0,
    },
    areaM2: seen * grid.cellSize * grid.cellSize,
  };
}
