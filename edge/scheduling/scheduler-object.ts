/**
 * @module JobSchedulerObject: the waiting line in front of compute. One SQLite Durable Object,
 * named `jobs`, holds every job that compute has not taken yet, in the fairness order of
 * waiting-line.ts, and hands them over as compute frees up.
 *
 * Accepted means it will run: a busy compute (503/429) is never a failure, however long the line;
 * the job keeps its place and the object asks again at compute's Retry-After (capped to
 * DISPATCH_BUSY_POLL_SECONDS) or as soon as a job ends. Only a compute that is unreachable or
 * broken (no answer, any other status) for DISPATCH_UNREACHABLE_SECONDS of a job's wait fails
 * that job with `dispatch_failed`, through its ReconstructionObject, which refunds the credit.
 *
 * All hand-overs happen in the alarm, one at a time, so two never race for one job; `enqueue`
 * and `withdraw` only change the tables and bring the alarm forward. Where COMPUTE_MAX_JOBS is
 * set (production: the containers kept for jobs), no more than that are handed over at once, each
 * to the Container instance of a free slot (`job-slot-<k>`), so a finished job's warm container
 * takes the next job and the instances in use never exceed the cap.
 */
import { DurableObject } from "cloudflare:workers";
import { z } from "zod";
import type { JobMessage } from "../../shared/jobs.js";
import { ReconstructionId } from "../../shared/records.js";
import { dispatchJob } from "../compute/targets.js";
import type { Env } from "../env.js";
import { configOf } from "../env.js";
import { forecastStarts } from "./forecast.js";
import { EnqueueRequest, type SchedulerRpc } from "./scheduler-rpc.js";
import { WaitingLine, type LinePlace, type WaitingJob } from "./waiting-line.js";

/** The one instance's name: a single line keeps the order global and fair. */
export const SCHEDULER_NAME = "jobs";

/** After a job ends, compute needs a moment to free its slot before the next hand-over. */
const AFTER_END_MS = 1000;
/** Back-off between tries while compute is unreachable: 2, 4, … s, capped. */
const MAX_ERROR_BACKOFF_S = 60;

export const UNREACHABLE_FAILURE = {
  code: "dispatch_failed",
  message: "The reconstruction could not be started: the compute service was unreachable for too long.",
  suggestion: "Your credit was refunded. Upload again later.",
} as const;

export class JobSchedulerObject extends DurableObject<Env> implements SchedulerRpc {
  private readonly line: WaitingLine;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.line = new WaitingLine(ctx.storage.sql);
  }

  /** Puts the job's attempt in the line (a repeat keeps its place) and says where it stands. */
  async enqueue(request: EnqueueRequest): Promise<LinePlace> {
    const { job, run_seconds } = EnqueueRequest.parse(request);
    const now = Date.now();
    if (this.line.add(job, run_seconds, now)) {
      const health = this.line.health();
      // While compute says busy, the next poll comes soon enough (a burst of creations must not
      // make a POST round each); otherwise, or below a configured cap, try at once.
      const busyPollMs = configOf(this.env).DISPATCH_BUSY_POLL_SECONDS * 1000;
      const recentlyBusy = health.busy_at !== null && now - health.busy_at < busyPollMs;
      const belowCap = configOf(this.env).COMPUTE_MAX_JOBS !== undefined && this.underCap();
      await this.wakeAt(recentlyBusy && !belowCap ? health.busy_at! + busyPollMs : now);
    }
    return this.place(job.reconstruction_id);
  }

  /**
   * The job ended, was cancelled or failed: it leaves the line, and its slot goes to the next. A
   * job that `completed` also teaches the forecasts its real run time.
   */
  async withdraw(id: string, completed = false): Promise<void> {
    const parsed = ReconstructionId.safeParse(id);
    if (!parsed.success) return;
    if (completed) this.line.learnRunTime(parsed.data, Date.now());
    this.line.remove(parsed.data);
    if (this.line.waitingCount() > 0) await this.wakeAt(Date.now() + AFTER_END_MS);
  }

  /** Where the job stands: its place and forecast start, or that compute has it. */
  async place(id: string): Promise<LinePlace> {
    const running = this.line.running(id);
    if (running) return { state: "running", attempt: running.attempt, dispatched_at: running.dispatched_at };
    const order = this.line.inOrder();
    const index = order.findIndex((job) => job.reconstruction_id === id);
    if (index < 0) return { state: "absent" };
    const starts = this.forecast(order.slice(0, index + 1));
    const runMs = order[index]!.run_seconds * 1000 * this.line.health().run_ratio;
    return { state: "queued", position: index + 1, estimated_start: starts[index]!, estimated_end: starts[index]! + runMs };
  }

  override async alarm(): Promise<void> {
    const next = await this.handOver();
    if (next !== null) await this.wakeAt(next);
  }

  /** Hands jobs to compute in line order until it is full; returns when to try again (null: line empty). */
  private async handOver(): Promise<number | null> {
    const config = configOf(this.env);
    for (;;) {
      const head = this.line.inOrder(1)[0];
      if (!head) return null;
      if (!this.underCap()) return Date.now() + config.DISPATCH_BUSY_POLL_SECONDS * 1000;
      const slot = config.COMPUTE_MAX_JOBS === undefined ? null : this.line.freeSlot(config.COMPUTE_MAX_JOBS);
      const job = JSON.parse(head.job) as JobMessage;
      const outcome = await dispatchJob(job, this.env, slot === null ? job.reconstruction_id : `job-slot-${slot}`);
      const now = Date.now();
      if (outcome.kind === "accepted") {
        this.line.recordAccepted(now);
        if (this.line.markRunning(head, now, slot)) await this.tellDispatched(head);
        continue;
      }
      if (outcome.kind === "busy") {
        this.line.recordBusy(now);
        log("info", "dispatch_busy", { id: head.reconstruction_id, waiting: this.line.waitingCount(), running: this.line.runningCount() });
        return now + Math.min(outcome.retryAfterSeconds, config.DISPATCH_BUSY_POLL_SECONDS) * 1000;
      }
      const errors = this.line.recordError();
      log("warn", "dispatch_error", { id: head.reconstruction_id, errors, message: outcome.message.slice(0, 300) });
      await this.failExpired(now);
      return now + Math.min(MAX_ERROR_BACKOFF_S, 2 ** Math.min(errors, 6)) * 1000;
    }
  }

  /**
   * Compute has been unreachable or broken for the whole window of these jobs' wait (since they
   * joined the line, or since compute last answered, whichever is later): they fail, refunded.
   */
  private async failExpired(now: number): Promise<void> {
    const windowMs = configOf(this.env).DISPATCH_UNREACHABLE_SECONDS * 1000;
    const healthyAt = this.line.health().healthy_at ?? 0;
    for (const job of this.line.inOrder()) {
      if (now - Math.max(job.enqueued_at, healthyAt) < windowMs) continue;
      try {
        await this.reconstruction(job.reconstruction_id).fail({ attempt: job.attempt, ...UNREACHABLE_FAILURE });
        this.line.remove(job.reconstruction_id);
        log("warn", "dispatch_failed", { id: job.reconstruction_id, attempt: job.attempt, waited_s: Math.round((now - job.enqueued_at) / 1000) });
      } catch (err) {
        log("error", "dispatch_fail_report_failed", { id: job.reconstruction_id, error: String(err) });
      }
    }
  }

  /** The ReconstructionObject starts its pending watchdog from now; compute's own reports follow. */
  private async tellDispatched(job: WaitingJob): Promise<void> {
    try {
      await this.reconstruction(job.reconstruction_id).dispatched(job.attempt);
    } catch (err) {
      // Its own watchdog asks the line again later and learns it then.
      log("error", "dispatched_report_failed", { id: job.reconstruction_id, error: String(err) });
    }
  }

  /** Start forecasts, with every estimate scaled by what the jobs that completed lately took. */
  private forecast(order: WaitingJob[]): number[] {
    const ratio = this.line.health().run_ratio;
    const runningEnds = this.line.runningRows().map((r) => r.dispatched_at + (r.expected_end - r.dispatched_at) * ratio);
    return forecastStarts({ now: Date.now(), slots: this.slotCount(), runningEnds, waitingRunMs: order.map((job) => job.run_seconds * 1000 * ratio) });
  }

  /** The cap where one is set; else the capacity seen at compute's last busy answer; before any, one slot per compute URL. */
  private slotCount(): number {
    const config = configOf(this.env);
    const health = this.line.health();
    if (config.COMPUTE_MAX_JOBS !== undefined) return config.COMPUTE_MAX_JOBS;
    return health.busy_at === null ? Math.max(health.slots, config.COMPUTE_URL?.length ?? 1) : health.slots;
  }

  private underCap(): boolean {
    const cap = configOf(this.env).COMPUTE_MAX_JOBS;
    return cap === undefined || this.line.runningCount() < cap;
  }

  /** Brings the alarm forward to `at` (never pushes an earlier one back). */
  private async wakeAt(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  private reconstruction(id: string) {
    return this.env.RECONSTRUCTIONS.get(this.env.RECONSTRUCTIONS.idFromName(id));
  }
}

function log(level: "info" | "warn" | "error", event: string, fields: Record<string, unknown>): void {
  const line = JSON.stringify({ level, event, ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

/** The scheduler's stub. */
export function schedulerStub(env: Env) {
  return env.SCHEDULER.get(env.SCHEDULER.idFromName(SCHEDULER_NAME));
}
