/**
 * @module Internal task routes (mounted under /internal/reconstructions, behind the compute secret).
 *
 *   POST /:id/tasks                 AddTasksRequest   → 200 {accepted, added, reused}
 *   GET  /:id/tasks?attempt=N                         → 200 {tasks: TaskRecord[]}
 *   POST /:id/tasks/:key/lease      TaskLeaseRequest  → 200 TaskLeaseAnswer (granted)
 *   POST /:id/tasks/:key/heartbeat  TaskHeartbeat     → 200 {accepted}
 *   POST /:id/tasks/:key/complete   TaskCompletion    → 200 {accepted}
 *   POST /:id/tasks/:key/fail       TaskFailure       → 200 {accepted}
 *
 * A body that does not parse, or names work keys outside the attempt's work prefix, is a 400. A
 * refusal by the ReconstructionObject is a 409 whose body carries `reason` and `stop: true`: the
 * job attempt is stale or over, or (task verbs) the task is not the caller's to run any more.
 */
import { Hono, type Context } from "hono";
import { z } from "zod";
import { ReconstructionId } from "../../shared/records.js";
import { AddTasksRequest, TaskCompletion, TaskFailure, TaskHeartbeat, TaskKey, TaskLeaseRequest } from "../../shared/tasks.js";
import type { AppEnv } from "../app-env.js";
import { ApiError } from "../errors.js";
import { foreignWorkKeyProblem, taskSpecsProblem } from "../objects/reconstruction-tasks.js";

export const internalTaskRoutes = new Hono<AppEnv>();

const TaskVerb = z.enum(["lease", "heartbeat", "complete", "fail"]);
const AttemptQuery = z.coerce.number().int().min(1);

const invalid = (message: string) => new ApiError("invalid_request", `Internal task report: ${message}`, "");

function stubOf(c: Context<AppEnv>) {
  const id = ReconstructionId.safeParse(c.req.param("id"));
  if (!id.success) throw new ApiError("not_found", "No such reconstruction.", "");
  return { id: id.data, stub: c.env.RECONSTRUCTIONS.get(c.env.RECONSTRUCTIONS.idFromName(id.data)) };
}

/** The JSON body parsed with `schema`; a 400 naming `what` otherwise. */
async function bodyOf<T>(c: Context<AppEnv>, schema: z.ZodType<T>, what: string): Promise<T> {
  const parsed = schema.safeParse(await c.req.json().catch(() => null));
  if (!parsed.success) throw invalid(`the body does not match ${what}: ${z.prettifyError(parsed.error).replace(/\s+/g, " ")}`);
  return parsed.data;
}

internalTaskRoutes.post("/:id/tasks", async (c) => {
  const { id, stub } = stubOf(c);
  const request = await bodyOf(c, AddTasksRequest, "AddTasksRequest");
  const problem = taskSpecsProblem(request.tasks, id, request.attempt);
  if (problem) throw invalid(problem);
  const outcome = await stub.addTasks(request);
  if (outcome.accepted) return c.json({ accepted: true, added: outcome.added, reused: outcome.reused ?? 0 }, 200);
  return c.json({ ...outcome, stop: true }, 409);
});

internalTaskRoutes.get("/:id/tasks", async (c) => {
  const { stub } = stubOf(c);
  const attempt = AttemptQuery.safeParse(c.req.query("attempt"));
  if (!attempt.success) throw invalid("?attempt=<job attempt ≥ 1> is required");
  return c.json({ tasks: await stub.tasks(attempt.data) }, 200);
});

internalTaskRoutes.post("/:id/tasks/:key/:verb", async (c) => {
  const { id, stub } = stubOf(c);
  const key = TaskKey.safeParse(c.req.param("key"));
  const verb = TaskVerb.safeParse(c.req.param("verb"));
  if (!key.success || !verb.success) throw new ApiError("not_found", "No such task or task report.", "");
  let answer: { accepted: boolean; reason?: string };
  switch (verb.data) {
    case "lease": {
      const lease = await stub.leaseTask(key.data, await bodyOf(c, TaskLeaseRequest, "TaskLeaseRequest"));
      return c.json(lease.granted ? lease : { ...lease, stop: true }, lease.granted ? 200 : 409);
    }
    case "heartbeat":
      answer = await stub.taskHeartbeat(key.data, await bodyOf(c, TaskHeartbeat, "TaskHeartbeat"));
      break;
    case "complete": {
      const completion = await bodyOf(c, TaskCompletion, "TaskCompletion");
      const foreign = foreignWorkKeyProblem("result_key", completion.result_key, id, completion.attempt);
      if (foreign) throw invalid(foreign);
      answer = await stub.completeTask(key.data, completion);
      break;
    }
    case "fail":
      answer = await stub.failTask(key.data, await bodyOf(c, TaskFailure, "TaskFailure"));
      break;
  }
  return c.json(answer.accepted ? answer : { ...answer, stop: true }, answer.accepted ? 200 : 409);
});
