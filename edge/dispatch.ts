/**
 * @module Edge → compute dispatch: the queue consumer and the dead-letter consumer.
 *
 * One function sends a job to compute (edge/compute-targets.ts): over HTTP when `COMPUTE_URL` is
 * set (local dev, CI; one URL or several), otherwise to the Container binding (production). Both
 * speak the same contract: compute answers 202 at once, or 503 with Retry-After when busy.
 * Retries back off exponentially (2^attempts s, capped); after the queue's max_retries the message lands in the dead-letter
 * queue, whose consumer fails the reconstruction with a reason and refunds its credit.
 */
import { JobMessage } from "../shared/jobs.js";
import { postToCompute, type DispatchOutcome } from "./compute-targets.js";
import type { Env } from "./env.js";
import { configOf } from "./env.js";

export const JOB_QUEUE = "reconstruction-jobs";
export const DEAD_LETTER_QUEUE = "reconstruction-jobs-dlq";

export type { DispatchOutcome } from "./compute-targets.js";

/** POSTs the job to compute (HTTP targets or the reconstruction's Container). Never throws: the outcome says what happened. */
export function dispatchJob(job: JobMessage, env: Env): Promise<DispatchOutcome> {
  return postToCompute(env, { path: "/jobs", body: job, containerName: job.reconstruction_id });
}

/** Exponential backoff for the n-th delivery (1-based): 2, 4, 8, … seconds, capped. */
export function backoffSeconds(deliveries: number, maxSeconds = 300): number {
  return Math.min(maxSeconds, 2 ** Math.max(1, deliveries));
}

/** How long a message waits before its next try: compute's Retry-After when busy, else the backoff; both capped. */
export function retryDelaySeconds(outcome: Exclude<DispatchOutcome, { kind: "accepted" }>, deliveries: number, maxSeconds: number): number {
  return outcome.kind === "busy" ? Math.min(outcome.retryAfterSeconds, maxSeconds) : backoffSeconds(deliveries, maxSeconds);
}

export async function handleJobBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const maxBackoff = configOf(env).DISPATCH_MAX_BACKOFF_SECONDS;
  for (const message of batch.messages) {
    const parsed = JobMessage.safeParse(message.body);
    if (!parsed.success) {
      console.error(JSON.stringify({ level: "error", event: "bad_job_message", issues: parsed.error.issues.length }));
      message.ack(); // a malformed message can never succeed; nothing to refund without an id
      continue;
    }
    const job = parsed.data;
    // The state machine is the source of truth: a finished job is not sent again.
    const current = await reconstructionStub(env, job.reconstruction_id).status(job.account_id);
    if (!current || current.status === "completed" || current.status === "failed") {
      message.ack();
      continue;
    }
    const outcome = await dispatchJob(job, env);
    if (outcome.kind === "accepted") message.ack();
    else {
      const delaySeconds = retryDelaySeconds(outcome, message.attempts, maxBackoff);
      console.warn(JSON.stringify({ level: "warn", event: "dispatch_retry", id: job.reconstruction_id, attempt: job.attempt, delivery: message.attempts, outcome: outcome.kind, delaySeconds }));
      message.retry({ delaySeconds });
    }
  }
}

function reconstructionStub(env: Env, id: string) {
  return env.RECONSTRUCTIONS.get(env.RECONSTRUCTIONS.idFromName(id));
}

/** Messages that exhausted their retries: fail the reconstruction (refunding its credit) with a reason. */
export async function handleDeadLetters(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const parsed = JobMessage.safeParse(message.body);
    if (parsed.success) {
      const job = parsed.data;
      await reconstructionStub(env, job.reconstruction_id).fail({
        attempt: job.attempt,
        code: "dispatch_failed",
        message: "The reconstruction could not be started: the compute service did not accept it after several tries.",
        suggestion: "Your credit was refunded. Upload again in a few minutes.",
      });
    }
    message.ack();
  }
}
