/**
 * @module Tasks: the pieces of one large reconstruction that run on any compute container.
 *
 * The compute process that runs a job (its coordinator) splits the work that needs no shared
 * state (feature detection per image batch, matching per pair batch, dense reconstruction per
 * view cluster) into tasks. It writes each task's inputs under the job's work prefix in R2 and registers the tasks with the ReconstructionObject, which
 * keeps the task table, sends one TaskMessage per task through the `reconstruction-tasks`
 * queue, and leases each task to the container that picks it up. A task whose lease runs out
 * (its container died) is sent again, up to a bounded number of deliveries; the others are not
 * redone. The coordinator polls the table, reads the results and merges them.
 */
import { z } from "zod";
import { ReconstructionId } from "./records.js";

/** A task's name within its job attempt, e.g. `dense-003`. */
export const TaskKey = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/);
export type TaskKey = z.infer<typeof TaskKey>;

/** Dense reconstruction of one view cluster; feature detection of one batch of images; matching of one batch of image pairs. */
export const TaskKind = z.enum(["dense-cluster", "features-batch", "matching-batch"]);
export type TaskKind = z.infer<typeof TaskKind>;

/** A work object: `work/<reconstruction id>/a<attempt>/<name>` (storage-keys.ts `workKey`). */
export const WorkKey = z.string().regex(/^work\/rec_[A-Za-z0-9_-]+\/a[0-9]+\/[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/);

/** SHA-256, lower-case hex. */
export const ContentDigest = z.string().regex(/^[0-9a-f]{64}$/);

/** What the coordinator registers: one entry per task. */
export const TaskSpec = z.object({
  key: TaskKey,
  kind: TaskKind,
  /** The task's inputs (the coordinator wrote them before registering). */
  payload_key: WorkKey,
  /**
   * What the task computes from, as a digest independent of the attempt (compute's
   * task-digest.ts). When the watchdog re-dispatched the job, a task of the new attempt with
   * the same key and digest as a task an earlier attempt finished is done at once with that
   * result: a coordinator that died in the dense stage does not cost the features and matching
   * tasks again.
   */
  content_sha256: ContentDigest.optional(),
});
export type TaskSpec = z.infer<typeof TaskSpec>;

/** Coordinator → edge: register the tasks of its job attempt (idempotent per key; see `content_sha256` for results carried over). */
export const AddTasksRequest = z.object({
  attempt: z.number().int().min(1),
  tasks: z.array(TaskSpec).min(1).max(2000),
});
export type AddTasksRequest = z.infer<typeof AddTasksRequest>;

/** Edge → queue → compute: run this task (one message per delivery). */
export const TaskMessage = z.object({
  version: z.literal(1),
  reconstruction_id: ReconstructionId,
  /** The job attempt the task belongs to; a newer attempt makes it stale. */
  attempt: z.number().int().min(1),
  key: TaskKey,
  kind: TaskKind,
  /** 1 for the first delivery, +1 each time a lease runs out or a try fails. */
  delivery: z.number().int().min(1),
});
export type TaskMessage = z.infer<typeof TaskMessage>;

/** Compute → edge: take the task (it must be pending, or its lease expired). */
export const TaskLeaseRequest = z.object({
  attempt: z.number().int().min(1),
  /** Who holds it (for operators): the compute process's id. */
  worker: z.string().min(1).max(200),
});
export type TaskLeaseRequest = z.infer<typeof TaskLeaseRequest>;

export interface TaskLeaseAnswer {
  granted: boolean;
  lease_id?: string;
  payload_key?: string;
  delivery?: number;
  /** The lease runs out this long after the grant or the last heartbeat. */
  lease_seconds?: number;
  reason?: string;
}

/** Compute → edge while it runs the task: extends the lease; progress is the task's fraction done. */
export const TaskHeartbeat = z.object({
  attempt: z.number().int().min(1),
  lease_id: z.string().min(1),
  progress: z.number().min(0).max(1),
});
export type TaskHeartbeat = z.infer<typeof TaskHeartbeat>;

export const TaskCompletion = z.object({
  attempt: z.number().int().min(1),
  lease_id: z.string().min(1),
  result_key: WorkKey,
});
export type TaskCompletion = z.infer<typeof TaskCompletion>;

/** A task that failed by itself (not a dead container): retryable ones are sent again while deliveries remain. */
export const TaskFailure = z.object({
  attempt: z.number().int().min(1),
  lease_id: z.string().min(1),
  code: z.string().min(1).max(100),
  message: z.string().max(2000),
  retryable: z.boolean(),
});
export type TaskFailure = z.infer<typeof TaskFailure>;

export const TaskState = z.enum(["pending", "running", "done", "failed"]);
export type TaskState = z.infer<typeof TaskState>;

/** One row of the task table as the coordinator reads it. */
export const TaskRecord = z.object({
  key: TaskKey,
  kind: TaskKind,
  state: TaskState,
  /** Deliveries so far (1 once first sent). */
  deliveries: z.number().int().min(0),
  progress: z.number().min(0).max(1),
  result_key: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  worker: z.string().nullable(),
  /** The earlier attempt whose result this task took (same key and content digest); null when it ran in this attempt. */
  reused_from_attempt: z.number().int().min(1).nullable(),
});
export type TaskRecord = z.infer<typeof TaskRecord>;
