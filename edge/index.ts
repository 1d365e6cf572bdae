/** @module The Worker entry: fetch (API + CDN), queue consumer, and the Durable Object classes. */
import { createApp } from "./app.js";
import type { Env } from "./env.js";
import type { JobMessage } from "../shared/jobs.js";

export { AccountObject } from "./objects/account.js";
export { ReconstructionObject } from "./objects/reconstruction.js";
export { RateLimiterObject } from "./objects/rate-limiter.js";

const app = createApp();

export default {
  fetch: app.fetch,
  async queue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
    // Dispatch to compute is built with the compute service (issue 5); until then messages wait.
    for (const message of batch.messages) message.retry({ delaySeconds: 60 });
  },
} satisfies ExportedHandler<Env, JobMessage | unknown>;
