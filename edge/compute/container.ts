/**
 * @module The compute service as a Cloudflare Container (production only).
 *
 * One container instance per reconstruction (named by its id): a job never queues behind
 * another inside an instance, and `max_instances` in wrangler's production environment caps
 * how many run at once. It cannot run without a Docker engine, so this stays thin; the HTTP
 * contract is the same as the local compute process's (see edge/compute/job-queue.ts).
 */
import { Container } from "@cloudflare/containers";
import type { Env } from "../env.js";

export class ComputeContainer extends Container<Env> {
  override defaultPort = 8080;
  // Long enough for a large job between two requests; compute reports through the Worker anyway.
  override sleepAfter = "30m";

  constructor(ctx: DurableObjectState<{}>, env: Env) {
    super(ctx, env);
    this.envVars = { HOST: "0.0.0.0", PORT: "8080", EDGE_URL: env.BASE_URL, COMPUTE_SECRET: env.COMPUTE_SECRET };
  }
}
