/**
 * @module The quality report's input and its figures (the `quality` section of report.json,
 * the same numbers the HTML shows).
 */
import type { ImageRef, SkippedInput, Similarity, SparseModel } from "../../scene/index.js";
import type { ModelMeasures } from "./measures.js";

/**
 * One ground control point or checkpoint after the adjustment: what the SfM stage with control
 * reports for each point it was given. Residuals are estimated − stated, in metres, along east,
 * north and up of the output system.
 */
export interface ControlResidual {
  name: string;
  /** "control": held the model in the adjustment; "check": measured only, left out of the adjustment to test it. */
  role: "control" | "check";
  /** False when the point was left out (too few marks, an outlier, outside the model…); `reason` says why. */
  used: boolean;
  reason?: string;
  dx: number;
  dy: number;
  dz: number;
  /** RMS of its marks' reprojection errors, pixels. */
  reprojectionPx?: number;
  /** Photos it was marked in. */
  marks: number;
}

/**
 * A residual vector of the target frame (x east, y up, z south; compute/pipeline/georeference.ts)
 * as east, north, up: what a ControlResidual holds.
 */
export function residualOfTarget(target: ArrayLike<number>): Pick<ControlResidual, "dx" | "dy" | "dz"> {
  return { dx: target[0], dy: -target[2], dz: target[1] };
}

/** The job-level figures of report.json the report shows (compute/pipeline/report.ts PipelineReport has them all). */
export interface JobSummary {
  /** Input files, and the images or keyframes ingest made of them. */
  files: number;
  images: number;
  skipped: SkippedInput[];
  unregistered: Array<{ name: string; reason: string }>;
  notRun: Array<{ stage: string; reason: string }>;
  /** Processing time so far, ms, and when the job started (ISO 8601). */
  wallMs: number;
  startedAt?: string;
  quality?: string;
  georeferenceRefused?: string;
}

/** Where the model is on Earth (compute/pipeline/locate.ts Located, flattened). */
export interface ReportGeoreference {
  /** "EPSG:<code>". */
  crs: string;
  offset: [number, number, number];
  source: "control" | "gps";
  /** Model frame → target frame (the system's metres minus offset; x east, y up, z south). */
  modelToTarget: Similarity;
  /** Ground sampling distance, metres per pixel. */
  gsdM?: number;
}

export interface Input {
  job: JobSummary;
  /** The sparse model in the stages' model frame (views with their solved intrinsics). */
  model: SparseModel;
  /** Ingest's images: names, sizes and focal priors (the calibration before). */
  images: ImageRef[];
  /** Reprojection errors and position covariances, measured while the features were at hand (measures.ts); null: not measured. */
  measures: ModelMeasures | null;
  /** Null: the model is in its own frame and units. */
  georeference: ReportGeoreference | null;
  control?: ControlResidual[];
  /** Shown at the top of the report (e.g. the reconstruction's id or name). */
  title?: string;
}

export interface AxisSigmas {
  eastM: number;
  northM: number;
  upM: number;
}

export interface Intrinsic5 {
  focal: number;
  cx: number;
  cy: number;
  k1: number;
  k2: number;
}

/** Root mean square errors of one role's used points, metres. */
export interface ResidualRmse {
  count: number;
  eastM: number;
  northM: number;
  /** √(east² + north²) and |up| and the 3D length, as RMS over the points. */
  horizontalM: number;
  verticalM: number;
  threeDM: number;
}

/** The `quality` section of report.json. */
export interface QualityFigures {
  /** Lengths and areas: "m" when georeferenced, else the model's own units. */
  units: "m" | "model units";
  summary: {
    photosUsed: number;
    photosTotal: number;
    files: number;
    gsdM: number | null;
    areaM2: number;
    crs: string | null;
    offset: [number, number, number] | null;
    georeferenceSource: "control" | "gps" | null;
    processingMs: number;
    points: number;
  };
  overlap: {
    /** Side of one ground cell and the map's size in cells (= PNG pixels). */
    cellSizeM: number;
    width: number;
    height: number;
    /** Target-frame x (east) and z (south) of the map's top-left (north-west) corner. */
    westX: number;
    northZ: number;
    /** Cells seen by 0, 1, 2, 3, 4 and 5 or more photos. */
    cellsByPhotos: [number, number, number, number, number, number];
    /** Share of the seen area seen by 5 or more photos. */
    fiveOrMoreShare: number;
  };
  calibration: Array<{
    camera: string;
    photos: number;
    width: number;
    height: number;
    priorSource: string;
    before: Intrinsic5;
    after: Intrinsic5;
  }>;
  reprojection: {
    observations: number;
    meanPx: number;
    rmsPx: number;
    medianPx: number;
    /** Per-photo RMS error histogram: bin i holds photos with RMS in [i·binPx, (i+1)·binPx). */
    histogram: { binPx: number; counts: number[] };
    perPhoto: Array<{ name: string; observations: number; meanPx: number; rmsPx: number }>;
  } | null;
  uncertainty: {
    /** What holds the gauge (solvers/bundle-adjustment/covariance.ts) and how the inverse was taken. */
    gauge: string;
    inverse: string;
    sigma0Px: number;
    median: AxisSigmas;
    max: AxisSigmas;
    perPhoto: Array<{ name: string } & AxisSigmas>;
  } | null;
  control: {
    points: Array<ControlResidual & { horizontalM: number; threeDM: number }>;
    rmse: { control: ResidualRmse | null; check: ResidualRmse | null };
  } | null;
  /** What the report or the reconstruction left out, and why. */
  leftOut: Array<{ kind: "input" | "photo" | "control" | "stage" | "section"; name: string; reason: string }>;
  warnings: string[];
}
