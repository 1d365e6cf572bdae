/** @module The BA stage's public types: problem, options and report (re-exported by index.ts). */
import type { LossName } from "./loss.js";

/**
 * A bundle adjustment problem over flat arrays; the solver updates poses, intrinsics and
 * points in place.
 *
 * Gauge (Triggs et al. 2000 §9): reprojection errors do not change under a similarity
 * transform of the whole scene (7 DoF). Without position priors (centrePrior, pointPrior), the caller must hold at least one pose constant
 * (`fixedPose`, e.g. the first registered camera), which removes rotation and translation.
 * Scale stays free: SfM keeps it from its points and poses as they are, and the
 * Levenberg–Marquardt damping keeps the one remaining null direction from making a step
 * singular or large (the step along it has no cost benefit). Fixing a second pose too is
 * allowed (it then also pins scale) but over-constrains the solution slightly.
 */
export interface BAProblem {
  cameraCount: number;
  /** Per camera 6 values: angle-axis rotation (3) then translation (3) of camFromWorld. Updated in place. */
  poses: Float64Array;
  /** Per camera, index of its intrinsics group (several images of one physical camera / one video share one). */
  intrinsicsGroup: Uint32Array;
  /** Per group 5 values: focal, cx, cy, k1, k2 (COLMAP RADIAL model, see compute/scene/camera.ts). Updated in place. */
  intrinsics: Float64Array;
  pointCount: number;
  /** 3 per point, world frame. Updated in place. */
  points: Float64Array;
  observationCount: number;
  obsCamera: Uint32Array;
  obsPoint: Uint32Array;
  /** Observed pixel x, y per observation. */
  obsXY: Float64Array;
  /**
   * Optional standard deviation of each observation relative to the others (e.g. its
   * keypoint's detection scale over the image's finest): residuals are divided by it before
   * the robust loss, so a coarse keypoint weighs less (the information matrix 1/σ², as
   * Triggs et al. 2000 §3.2). Absent = all 1.
   */
  obsSigma?: Float64Array;
  /** 1 = this camera's pose is held constant (gauge; also used for local BA). */
  fixedPose?: Uint8Array;
  /** 1 = this point is held constant (local BA borders). */
  fixedPoint?: Uint8Array;
  /**
   * Measured camera positions (GPS) in this problem's frame (centre-prior.ts). Positions spread
   * over a plane or a volume fix the gauge, so no pose need be held.
   */
  centrePrior?: CentrePrior;
  /**
   * Surveyed positions of some points (ground control, point-prior.ts), in this problem's
   * frame. Three or more not on a line fix the gauge, so no pose need be held.
   */
  pointPrior?: PointPrior;
}

export interface Options {
  maxIterations: number;
  loss: LossName;
  /** Robust loss scale a in pixels: residuals well below a count as squared, above as outliers. */
  lossScalePx: number;
  refineFocal: boolean;
  /** Refine k1, k2. */
  refineDistortion: boolean;
  refinePrincipalPoint: boolean;
  /** Stop when an accepted step lowers the cost by less than this fraction of it. */
  functionTolerance: number;
  /** Stop when the largest gradient component is at most this. */
  gradientTolerance: number;
  /** Stop when ‖step‖ ≤ parameterTolerance·(‖x‖ + parameterTolerance). */
  parameterTolerance: number;
  /** Initial Levenberg–Marquardt damping μ (relative to the Hessian diagonal). */
  initialLambda: number;
  /** Above this many free cameras, solve the reduced camera system with preconditioned conjugate gradients instead of dense Cholesky… */
  denseSchurMaxCameras: number;
  /** …unless its banded order keeps the dense factor within this many multiply-adds… */
  bandedDenseMaxCost: number;
  /** …and the reduced system has at most this many parameters (memory 8 · n² bytes). */
  bandedDenseMaxSize: number;
  /**
   * Threads for the passes over points and observations (team.ts): 1 = the calling thread
   * alone, 0 = every available core. Each extra thread of a dense solve holds its own n × n
   * partial of the reduced system (8 · n² bytes).
   */
  threads: number;
  /** Problems with fewer observations run on the calling thread alone (a team's per-pass overhead, and small problems keep their bit-for-bit results). */
  parallelMinObservations: number;
}

export type LinearSolverKind = "dense-cholesky" | "pcg";

export interface BAReport {
  stage: "ba";
  wallMs: number;
  /** LM iterations, accepted and rejected steps both counted (as Ceres does). */
  iterations: number;
  /** ½·Σρ(‖r‖²) before and after. */
  initialCost: number;
  finalCost: number;
  /** √(mean of ‖r‖²) over all observations, pixels, unweighted. */
  initialRmsePx: number;
  finalRmsePx: number;
  /** "function" | "gradient" | "parameter" | "max-iterations" | "damping" | "no-variables". */
  termination: string;
  linearSolver: LinearSolverKind;
  counts: Record<string, number>;
  warnings: string[];
}

/**
 * Measured camera positions with a standard deviation per axis, in the prior's own frame (east,
 * north, up for GPS, where the vertical is less certain than the horizontal): `frame` maps the
 * problem's coordinates into it (x ↦ scale·R·x + t; absent: the same frame).
 */
export interface CentrePrior {
  /** 3 per camera. */
  positions: Float64Array;
  /** 3 per camera; 0 (or not finite) = no prior on that axis (e.g. a GPS fix without altitude). */
  sigmas: Float64Array;
  frame?: PriorFrame;
}

/** x ↦ scale·R·x + t, from the problem's frame into the prior's. */
export interface PriorFrame {
  R: Float64Array;
  scale: number;
  t: Float64Array;
}

/** Surveyed positions of some of the problem's points, with a standard deviation per axis, in the problem's frame. */
export interface PointPrior {
  /** Index of each prior's point in the problem (distinct). */
  points: Uint32Array;
  /** 3 per prior entry. */
  positions: Float64Array;
  /** 3 per prior entry; 0 (or not finite) = no prior on that axis. */
  sigmas: Float64Array;
}
