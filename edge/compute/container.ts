/**
 * @module The compute service as a Cloudflare Container (production only).
 *
 * Instances are named by what they take: a job goes to the instance of its slot in the waiting
 * line, `job-slot-<k>` (COMPUTE_MAX_JOBS set, as in production; unset, the reconstruction id),
 * so a finished job's warm container takes the next one; each task delivery of a large job goes
 * to an instance of its own, `<id>/<key>/<delivery>`. `max_instances` in wrangler's production
 * environment caps how many run at once. It cannot run without a Docker engine, so this stays
 * thin; the HTTP contract is the same as the local compute process's (edge/compute/targets.ts).
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
