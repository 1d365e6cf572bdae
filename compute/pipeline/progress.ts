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

/** Full pipeline: dense matching dominates. */
export const FULL_WEIGHTS: StageWeights = { ingest: 5, features: 12, matching: 15, sfm: 18, dense: 33, mesh: 8, texture: 5, export: 4 };
/** Sparse-only pipeline: no dense or mesh. */
export const SPARSE_WEIGHTS: StageWeights = { ingest: 10, features: 25, matching: 30, sfm: 30, export: 5 };

export interface ProgressEvent {
  stage: Stage;
  /** Overall 0–100, monotone. */
  progress: number;
  filesProcessed: number;
}

export class ProgressTracker {
  private readonly start = new Map<Stage, number>();
  private readonly total: number;
  private last = 0;
  private files = 0;

  constructor(
    private readonly weights: StageWeights,
    private readonly emit: (event: ProgressEvent) => void,
  ) {
    let offset = 0;
    for (const [stage, weight] of Object.entries(weights) as Array<[Stage, number]>) {
      this.start.set(stage, offset);
      offset += weight;
    }
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
    this.emit({ stage, progress: value, filesProcessed: this.files });
  }

  finish(stage: Stage, filesProcessed: number): void {
    this.files = Math.max(this.files, filesProcessed);
    this.last = 100;
    this.emit({ stage, progress: 100, filesProcessed: this.files });
  }

  get filesProcessed(): number {
    return this.files;
  }
}
