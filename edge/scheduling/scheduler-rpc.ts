/**
 * @module What a caller may ask of the JobSchedulerObject (edge/scheduling/scheduler-object.ts):
 * put a job's attempt in the line, withdraw it, ask its place. Its own module, so that env.ts
 * types the binding without importing the object (which imports env.ts).
 */
import { z } from "zod";
import { JobMessage } from "../../shared/jobs.js";
import type { LinePlace } from "./waiting-line.js";

export const EnqueueRequest = z.object({
  job: JobMessage,
  /** The job's estimated run time on compute, for the forecasts. */
  run_seconds: z.number().positive().max(7 * 24 * 3600),
});
export type EnqueueRequest = z.infer<typeof EnqueueRequest>;

export interface SchedulerRpc extends Rpc.DurableObjectBranded {
  enqueue(request: EnqueueRequest): Promise<LinePlace>;
  withdraw(id: string, completed?: boolean): Promise<void>;
  place(id: string): Promise<LinePlace>;
}
