/** @module The Worker entry: fetch (API + CDN), queue consumer, and the Durable Object classes. */
import { createApp } from "./app.js";
import { DEAD_LETTER_QUEUE, handleDeadLetters, handleJobBatch } from "./dispatch.js";
import type { Env } from "./env.js";
import type { JobMessage } from "../shared/jobs.js";
import { WEBHOOK_QUEUE, handleWebhookBatch } from "./webhooks/consumer.js";

export { AccountObject } from "./objects/account.js";
export { ReconstructionObject } from "./objects/reconstruction.js";
export { RateLimiterObject } from "./objects/rate-limiter.js";
export { UploadObject } from "./objects/upload.js";
export { UserObject } from "./objects/user.js";
export { ComputeContainer } from "./container.js";

const app = createApp();

export default {
  fetch: app.fetch,
  async queue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
    if (batch.queue === WEBHOOK_QUEUE) await handleWebhookBatch(batch, env);
    else if (batch.queue === DEAD_LETTER_QUEUE) await handleDeadLetters(batch, env);
    else await handleJobBatch(batch, env);
  },
} satisfies ExportedHandler<Env, JobMessage | unknown>;
