/**
 * @module The `reconstruction-jobs` queue's consumers, kept to drain messages sent before the
 * waiting line (edge/scheduling) took over the hand-over to compute.
 *
 * Jobs no longer travel through this queue: a ReconstructionObject puts each attempt in the
 * line itself. A message still in the queue is handed to its ReconstructionObject, which puts
 * that attempt in the line if it is still current and pending; the dead-letter consumer fails a
 * job whose message could not even be handed over, refunding its credit.
 */
import { JobMessage } from "../../shared/jobs.js";
import { backoffSeconds } from "./targets.js";
import type { Env } from "../env.js";
import { configOf } from "../env.js";

export const JOB_QUEUE = "reconstruction-jobs";
export const DEAD_LETTER_QUEUE = "reconstruction-jobs-dlq";

export async function handleJobBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const maxBackoff = configOf(env).DISPATCH_MAX_BACKOFF_SECONDS;
  for (const message of batch.messages) {
    const parsed = JobMessage.safeParse(message.body);
    if (!parsed.success) {
      console.error(JSON.stringify({ level: "error", event: "bad_job_message", issues: parsed.error.issues.length }));
      message.ack(); // a malformed message can never succeed; nothing to refund without an id
      continue;
    }
    try {
      // A finished job, or an attempt that is no longer current, is left alone by the object.
      await reconstructionStub(env, parsed.data.reconstruction_id).joinLine(parsed.data.attempt);
      message.ack();
    } catch (err) {
      console.warn(JSON.stringify({ level: "warn", event: "job_forward_retry", id: parsed.data.reconstruction_id, delivery: message.attempts, error: String(err) }));
      message.retry({ delaySeconds: backoffSeconds(message.attempts, maxBackoff) });
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
