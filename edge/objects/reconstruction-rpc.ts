/**
 * @module What a caller may ask of a ReconstructionObject (edge/objects/reconstruction.ts):
 * its creation, compute's reports, the owner's status, cancel and delete, and the task verbs of a
 * large job. Its own module, so that env.ts types the binding without importing the object
 * (which imports env.ts).
 */
import { z } from "zod";
import type { CompletionReport, FailureReport, ProgressReport } from "../../shared/jobs.js";
import { JobMessage } from "../../shared/jobs.js";
import { ReconstructionId, type ReconstructionStatus, type StatusRecord } from "../../shared/records.js";
import type { AddTasksRequest, TaskCompletion, TaskFailure, TaskHeartbeat, TaskLeaseAnswer, TaskLeaseRequest, TaskMessage, TaskRecord } from "../../shared/tasks.js";
import type { CancelOutcome } from "./reconstruction-cancel.js";
import type { AddTasksOutcome, TaskReportOutcome } from "./reconstruction-tasks.js";

/**
 * What the create route hands the object once the inputs are in R2 and the credit is taken: the
 * job's options, inputs and creation time as the job message will carry them, the account, and
 * the record's id and first estimate.
 */
export const ReconstructionInit = JobMessage.pick({ quality: true, control_points: true, output_crs: true, inputs: true, created_at: true }).extend({
  id: ReconstructionId,
  account_id: z.string().min(1),
  estimated_completion: z.string(),
});
export type ReconstructionInit = z.infer<typeof ReconstructionInit>;

/** The answer to every compute report: whether it changed anything, and the state after it. */
export interface ReportOutcome {
  accepted: boolean;
  /** Absent when the reconstruction does not exist. */
  status?: ReconstructionStatus;
  reason?: string;
}

/** One row of the transition log (`history()`). */
export type TransitionRecord = { at: string; from_status: string; to_status: string; attempt: number; note: string };

export interface ReconstructionRpc extends Rpc.DurableObjectBranded {
  create(init: ReconstructionInit): Promise<{ created: boolean; estimated_completion: string }>;
  joinLine(attempt: number): Promise<ReportOutcome>;
  dispatched(attempt: number): Promise<ReportOutcome>;
  start(attempt: number): Promise<ReportOutcome>;
  progress(report: ProgressReport): Promise<ReportOutcome>;
  heartbeat(attempt: number): Promise<ReportOutcome>;
  complete(report: CompletionReport): Promise<ReportOutcome>;
  fail(report: FailureReport): Promise<ReportOutcome>;
  status(accountId: string): Promise<StatusRecord | null>;
  cancel(accountId: string): Promise<CancelOutcome>;
  markDeleted(accountId: string): Promise<boolean>;
  acceptsOutputs(): Promise<boolean>;
  addTasks(request: AddTasksRequest): Promise<AddTasksOutcome>;
  leaseTask(key: string, request: TaskLeaseRequest): Promise<TaskLeaseAnswer>;
  taskHeartbeat(key: string, beat: TaskHeartbeat): Promise<TaskReportOutcome>;
  completeTask(key: string, completion: TaskCompletion): Promise<TaskReportOutcome>;
  failTask(key: string, failure: TaskFailure): Promise<TaskReportOutcome>;
  tasks(attempt: number): Promise<TaskRecord[]>;
  taskWanted(message: TaskMessage): Promise<boolean>;
  deferTask(message: TaskMessage, seconds: number): Promise<boolean>;
  abandonTask(message: TaskMessage, reason: string): Promise<TaskReportOutcome>;
  history(): Promise<TransitionRecord[]>;
}
