/**
 * @module Task deliveries: the `reconstruction-tasks` consumer and its dead-letter consumer.
 *
 * A TaskMessage goes to any compute that accepts it (POST /tasks, the same 202/503 contract as
 * POST /jobs). The ReconstructionObject decides whether a delivery is still wanted (its job
 * attempt is current and running, the task waits for a container, the delivery is the task's
 * current one), so late or duplicated messages are dropped here rather than run twice. The
 * container that accepts a task leases it from the object before running it. When every
 * container is busy, the object itself sends the delivery again after the Retry-After, so a
 * large job waits for free containers as long as it needs without using up the queue's retries.
 */
import { TaskMessage } from "../../shared/tasks.js";
import { postToCompute, retryDelaySeconds, type DispatchOutcome } from "./targets.js";
import type { Env } from "../env.js";
import { configOf } from "../env.js";

export const TASK_QUEUE = "reconstruction-tasks";
export const TASK_DEAD_LETTER_QUEUE = "reconstruction-tasks-dlq";

/**
 * POSTs the task delivery to compute. In production each delivery gets its own Container
 * instance, so a task sent again after its container died does not land on that same instance.
 */
export function dispatchTask(task: TaskMessage, env: Env): Promise<DispatchOutcome> {
  return postToCompute(env, { path: "/tasks", body: task, containerName: `${task.reconstruction_id}/${task.key}/${task.delivery}` });
}

export async function handleTaskBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const maxBackoff = configOf(env).DISPATCH_MAX_BACKOFF_SECONDS;
  for (const message of batch.messages) {
    const parsed = TaskMessage.safeParse(message.body);
    if (!parsed.success) {
      console.error(JSON.stringify({ level: "error", event: "bad_task_message", issues: parsed.error.issues.length }));
      message.ack(); // can never succeed; the object sends a well-formed one again if its task still waits
      continue;
    }
    const task = parsed.data;
    if (!(await reconstructionStub(env, task.reconstruction_id).taskWanted(task))) {
      message.ack();
      continue;
    }
    const outcome = await dispatchTask(task, env);
    if (outcome.kind === "accepted") {
      message.ack();
      continue;
    }
    const delaySeconds = retryDelaySeconds(outcome, message.attempts, maxBackoff);
    // Busy containers are the normal state of a large job on a few of them: waiting for one
    // must not use up the queue's retries (those are for a compute that errs or cannot be
    // reached), so the object sends this delivery again itself.
    if (outcome.kind === "busy" && (await reconstructionStub(env, task.reconstruction_id).deferTask(task, delaySeconds))) {
      message.ack();
      continue;
    }
    console.warn(JSON.stringify({ level: "warn", event: "task_dispatch_retry", id: task.reconstruction_id, attempt: task.attempt, key: task.key, delivery: task.delivery, tries: message.attempts, outcome: outcome.kind, delaySeconds }));
    message.retry({ delaySeconds });
  }
}

/** Deliveries no compute accepted after the queue's retries: their tasks fail (the coordinator then fails the job). */
export async function handleTaskDeadLetters(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const parsed = TaskMessage.safeParse(message.body);
    if (parsed.success) {
      const task = parsed.data;
      const reason = `Task ${task.key} could not be handed to compute: no compute accepted delivery ${task.delivery} after several tries.`;
      const outcome = await reconstructionStub(env, task.reconstruction_id).abandonTask(task, reason);
      console.warn(JSON.stringify({ level: "warn", event: "task_dead_letter", id: task.reconstruction_id, attempt: task.attempt, key: task.key, delivery: task.delivery, failed: outcome.accepted }));
    }
    message.ack();
  }
}

function reconstructionStub(env: Env, id: string) {
  return env.RECONSTRUCTIONS.get(env.RECONSTRUCTIONS.idFromName(id));
}
