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
  /** Time left in the pipeline (ProgressTracker's `timeLeft`); absent until MIN_MEASURED_SHARE of the job is done. */
  remainingMs?: number;
}

/**
 * A stage's own pace is trusted from OWN_PACE_FROM of it done, fully from OWN_PACE_FULL;
 * before that its time left is its weight at the pace of the stages before it. A stage's
 * fraction is rarely linear in time at its very start (SfM's first registrations, dense's
 * first cluster loading its views).
 */
const OWN_PACE_FROM = 0.15;
const OWN_PACE_FULL = 0.5;
/**
 * No time left is told until this share of the job's weight is done: the pace of a sliver says
 * nothing. With features as tasks (coarse progress), 5 s into features on fountain-P11 the
 * pace of ingest's second and the tasks' first few percent told 11 minutes for a 2-minute job.
 * Until then the client keeps the edge's first estimate.
 */
const MIN_MEASURED_SHARE = 0.03;

/** Below this overall percentage the elapsed time says too little to extrapolate from. */
const MIN_PROGRESS_FOR_ESTIMATE = 5;

/**
 * Time left, by linear extrapolation of the elapsed time over the overall percentage; undefined
 * before MIN_PROGRESS_FOR_ESTIMATE. Truthful when each stage's weight is its share of the job's
 * wall time (stage-costs.ts), whatever the machine's speed.
 */
export function linearRemainingMs(elapsedMs: number, progress: number): number | undefined {
  if (progress < MIN_PROGRESS_FOR_ESTIMATE) return undefined;
  return (elapsedMs * (100 - Math.min(100, progress))) / progress;
}

/**
 * When a job will end (ms on `now`'s clock): the pipeline's time left as told at `told.at`,
 * counted down; once that has run out (a stage slower than its pace said), or before the
 * pipeline told any, the elapsed time extrapolated over the percentage.
 */
export function completionAt(now: number, told: { at: number; leftMs: number } | null, elapsedMs: number, progress: number): number | undefined {
  const counted = told ? told.leftMs - (now - told.at) : 0;
  const left = counted > 0 ? counted : linearRemainingMs(elapsedMs, progress);
  return left === undefined ? undefined : now + left;
}

export class ProgressTracker {
  private readonly start = new Map<Stage, number>();
  private weights: StageWeights = {};
  private total = 0;
  private last = 0;
  private files = 0;
  private readonly begunAt: number;
  private current: { stage: Stage; startedAt: number } | null = null;
  /** The last time left computed from a new fraction, and when. */
  private step: { stage: Stage; fraction: number; at: number; leftMs: number } | null = null;

  constructor(
    weights: StageWeights,
    private readonly emit: (event: ProgressEvent) => void,
    /** Milliseconds; injectable for tests. */
    private readonly now: () => number = () => performance.now(),
  ) {
    this.reweight(weights);
    this.begunAt = now();
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
    const at = this.now();
    if (this.current?.stage !== stage) this.current = { stage, startedAt: at };
    const left = this.leftAt(stage, offset, clamped, at);
    this.emit({ stage, progress: value, stageFraction: clamped, filesProcessed: this.files, ...(left === undefined ? {} : { remainingMs: left }) });
  }

  /**
   * While a stage reports the fraction it reported last (tasks on other containers report in
   * steps, polled every second), the time left told at that step counts down; once it has run
   * out, the stage is slower than its pace said and the pace is taken afresh. Taken afresh at
   * every report, a fraction standing still for 30 s slowed the pace every second: a 3-process
   * fountain-P11 job was told its end 94 s late during dense (docs/decisions.md, "The time left
   * counts down while a fraction stands still").
   */
  private leftAt(stage: Stage, offset: number, fraction: number, at: number): number | undefined {
    const step = this.step;
    if (step && step.stage === stage && step.fraction === fraction) {
      const counted = step.leftMs - (at - step.at);
      if (counted > 0) return counted;
    }
    const left = this.timeLeft(stage, offset, fraction, at - this.current!.startedAt);
    this.step = left === undefined ? null : { stage, fraction, at, leftMs: left };
    return left;
  }

  /**
   * Time left: the weight not yet done at the pace measured so far (milliseconds per unit of
   * weight done, so a machine of any speed is measured by its own elapsed time), except the
   * current stage's rest, which once it is far enough along goes at its own pace. A stage whose
   * weight is off (dense spread over several containers, or a scene that costs more than
   * stage-costs.ts says) is then corrected while it runs, not only as a share of the whole.
   */
  private timeLeft(stage: Stage, offset: number, fraction: number, inStageMs: number): number | undefined {
    const beforeMs = this.current!.startedAt - this.begunAt;
    const weight = this.weights[stage] ?? 0;
    const done = offset + fraction * weight;
    // Not in the first stage (ingest, weighed before the job's shape is known), nor on a sliver.
    if (offset <= 0 || beforeMs <= 0 || done < MIN_MEASURED_SHARE * this.total) return undefined;
    // The pace so far (milliseconds per unit of weight done, this stage's part included).
    const pace = (beforeMs + inStageMs) / done;
    const modelled = weight * (1 - fraction) * pace;
    const trust = Math.min(1, Math.max(0, (fraction - OWN_PACE_FROM) / (OWN_PACE_FULL - OWN_PACE_FROM)));
    const own = fraction > 0 ? (inStageMs * (1 - fraction)) / fraction : modelled;
    return trust * own + (1 - trust) * modelled + Math.max(0, this.total - offset - weight) * pace;
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
