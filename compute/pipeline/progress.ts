/**
 * @module One monotone overall percentage from per-stage fractions.
 *
 * Each stage owns a slice of 0–100 proportional to its typical share of the wall time
 * (measured on the benchmark sets at `standard`); a stage reports its own fraction and the
 * tracker maps it into the slice. The emitted value never decreases, even when a stage's own
 * estimate goes back (e.g. SfM starts a second model), so clients never see progress regress.
 */
import type { Stage } from "../../shared/records.js";

export type StageWeights = Partial<Record<Stage, number>>;

/**
 * Before ingest has read the uploads, and the former weights of every job: shares measured on
 * small sets of large photos (fountain-P11-like). A large capture spends far more of its time in
 * dense, so with these its time left was told several times too short (`npm run bench -- eta`).
 */
export const FIXED_FULL_WEIGHTS: StageWeights = { ingest: 5, features: 12, matching: 15, sfm: 18, dense: 33, mesh: 8, texture: 5, export: 4 };
/** The same for a sparse-only job: no dense or mesh. */
export const FIXED_SPARSE_WEIGHTS: StageWeights = { ingest: 10, features: 25, matching: 30, sfm: 30, export: 5 };

export interface ProgressEvent {
  stage: Stage;
  /** Overall 0–100, monotone. */
  progress: number;
  /** The stage's own fraction (0–1) behind `progress`, so a bench can replay another weighting. */
  stageFraction: number;
  filesProcessed: number;
}

/** Below this overall percentage the elapsed time says too little to extrapolate from. */
export const MIN_PROGRESS_FOR_ESTIMATE = 5;

/**
 * Time left, by linear extrapolation of the elapsed time over the overall percentage; undefined
 * before MIN_PROGRESS_FOR_ESTIMATE. Truthful when each stage's weight is its share of the job's
 * wall time (stage-costs.ts), whatever the machine's speed.
 */
export function remainingMs(elapsedMs: number, progress: number): number | undefined {
  if (progress < MIN_PROGRESS_FOR_ESTIMATE) return undefined;
  return (elapsedMs * (100 - Math.min(100, progress))) / progress;
}

export class ProgressTracker {
  private readonly start = new Map<Stage, number>();
  private weights: StageWeights = {};
  private total = 0;
  private last = 0;
  private files = 0;

  constructor(
    weights: StageWeights,
    private readonly emit: (event: ProgressEvent) => void,
  ) {
    this.reweight(weights);
  }

  /**
   * New weights, once the job's shape is known (after ingest). The stages must be the same; the
   * overall value stays monotone, so a stage re-weighted to a larger share waits until it
   * catches up with what was already shown.
   */
  reweight(weights: StageWeights): void {
    const stages = Object.keys(weights);
    if (this.start.size > 0 && (stages.length !== this.start.size || stages.some((s) => !this.start.has(s as Stage)))) {
      throw new Error("pipeline: re-weighting must keep the same stages");
    }
    let offset = 0;
    for (const [stage, weight] of Object.entries(weights) as Array<[Stage, number]>) {
      this.start.set(stage, offset);
      offset += weight;
    }
    this.weights = { ...weights };
    this.total = offset;
  }

  /** Report `fraction` (0–1) of `stage` done, and optionally how many input files are processed. */
  update(stage: Stage, fraction: number, filesProcessed?: number): void {
    const offset = this.start.get(stage);
    if (offset === undefined) throw new Error(`pipeline: stage ${stage} has no progress weight`);
    const clamped = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
    const overall = (100 * (offset + clamped * (this.weights[stage] ?? 0))) / this.total;
    if (filesProcessed !== undefined) this.files = Math.max(this.files, filesProcessed);
    // Whole percent, and never 100 before the pipeline says it is finished.
    const value = Math.min(99, Math.max(this.last, Math.floor(overall)));
    this.last = value;
    this.emit({ stage, progress: value, stageFraction: clamped, filesProcessed: this.files });
  }

  finish(stage: Stage, filesProcessed: number): void {
    this.files = Math.max(this.files, filesProcessed);
    this.last = 100;
    this.emit({ stage, progress: 100, stageFraction: 1, filesProcessed: this.files });
  }

  get filesProcessed(): number {
    return this.files;
  }
}
