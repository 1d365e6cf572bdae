/** @module The Worker entry: fetch (API + CDN), queue consumers, and the Durable Object classes. */
import { createApp } from "./app.js";
import { DEAD_LETTER_QUEUE, JOB_QUEUE, handleDeadLetters, handleJobBatch } from "./compute/job-queue.js";
import { TASK_DEAD_LETTER_QUEUE, TASK_QUEUE, handleTaskBatch, handleTaskDeadLetters } from "./compute/task-queue.js";
import type { Env } from "./env.js";
import type { JobMessage } from "../shared/jobs.js";
import { WEBHOOK_QUEUE, handleWebhookBatch } from "./webhooks/consumer.js";

export { AccountObject } from "./objects/account.js";
export { ReconstructionObject } from "./objects/reconstruction.js";
export { RateLimiterObject } from "./objects/rate-limiter.js";
export { UploadObject } from "./objects/upload.js";
export { UserObject } from "./objects/user.js";
export { ComputeContainer } from "./compute/container.js";
export { JobSchedulerObject } from "./scheduling/scheduler-object.js";

const app = createApp();

type BatchHandler = (batch: MessageBatch<unknown>, env: Env) => Promise<void>;

/** Each queue's consumer, by the queue's name in wrangler.jsonc. */
const CONSUMERS: Record<string, BatchHandler> = {
  [JOB_QUEUE]: handleJobBatch,
  [DEAD_LETTER_QUEUE]: handleDeadLetters,
  [TASK_QUEUE]: handleTaskBatch,
  [TASK_DEAD_LETTER_QUEUE]: handleTaskDeadLetters,
  [WEBHOOK_QUEUE]: handleWebhookBatch,
};

export default {
  fetch: app.fetch,
  async queue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
    // An unknown queue is read as jobs, as before there were several: its messages are parsed (and dropped if they are not jobs).
    const consume = CONSUMERS[batch.queue] ?? handleJobBatch;
    await consume(batch, env);
  },
} satisfies ExportedHandler<Env, JobMessage | unknown>;
