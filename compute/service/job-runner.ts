/**
 * @module One reconstruction job: fetch inputs, run the pipeline in a thread, report, upload.
 *
 * Compute never holds the only copy of anything (docs/DESIGN.md): inputs come from the edge and
 * outputs go back before `complete`; state lives in the edge's ReconstructionObject, which
 * ignores reports from stale attempts. When this process dies mid-job, the object's watchdog
 * notices the missing heartbeat and re-dispatches or fails the job.
 */
import { mkdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { CONTENT_TYPES } from "../../shared/formats.js";
import type { JobMessage } from "../../shared/jobs.js";
import type { Stage } from "../../shared/records.js";
import { outputKey, reportKey } from "../../shared/storage-keys.js";
import { completionAt } from "../pipeline/progress.js";
import { cancellable, type Cancellable, type OnCancel } from "./cancellable.js";
import type { ComputeConfig } from "./config.js";
import { StoppedByEdge, type EdgeClient } from "./edge-client.js";
import type { PipelineThreadCommand, PipelineThreadInput, PipelineThreadMessage } from "./pipeline-messages.js";
import type { PipelineThreads } from "./pipeline-threads.js";

export interface JobContext {
  config: ComputeConfig;
  edge: EdgeClient;
  workRoot: string;
  threads: PipelineThreads;
  log: (event: Record<string, unknown>) => void;
}

/** A running job; `attempt` follows the newest dispatch of the same reconstruction. */
export interface RunningJob extends Cancellable {
  id: string;
  attempt: number;
  startedAt: number;
  stage: Stage | null;
  progress: number;
}

type Outcome =
  | { type: "done"; outputs: Array<{ format: keyof typeof CONTENT_TYPES; path: string; bytes: number }> }
  | { type: "failed"; code: string; message: string; suggestion: string }
  | { type: "cancelled"; reason: string };

export function startJob(job: JobMessage, ctx: JobContext): { handle: RunningJob; finished: Promise<void> } {
  const { handle, onCancel } = cancellable({ id: job.reconstruction_id, attempt: job.attempt, startedAt: Date.now(), stage: null as Stage | null, progress: 0 });
  const finished = runJob(job, handle, ctx, onCancel).catch((err: unknown) => ctx.log({ level: "error", job: job.reconstruction_id, event: "job_crashed", error: String(err) }));
  return { handle, finished };
}

async function runJob(job: JobMessage, handle: RunningJob, ctx: JobContext, setCancel: OnCancel): Promise<void> {
  const id = job.reconstruction_id;
  const started = await ctx.edge.start(id, handle.attempt);
  if (!started.accepted) {
    ctx.log({ level: "info", job: id, event: "start_refused", status: started.status });
    return;
  }
  const jobDir = path.join(ctx.workRoot, `${id}-a${job.attempt}`);
  const reporter = createProgressReporter(job, handle, ctx);
  const heartbeat = setInterval(() => {
    // Once a stage runs, the heartbeat is a progress report: it also refreshes the ETA while a
    // long stage reports nothing new.
    if (reporter.refresh()) return;
    ctx.edge.heartbeat(id, handle.attempt).then(
      (answer) => {
        if (!answer.accepted) handle.cancel(`state machine refused heartbeat (${answer.status ?? "stale attempt"}: ${answer.reason ?? "no reason"})`);
      },
      (err: unknown) => ctx.log({ level: "warn", job: id, event: "heartbeat_failed", error: String(err) }),
    );
  }, ctx.config.HEARTBEAT_SECONDS * 1000);
  try {
    const outcome = await execute(job, handle, ctx, jobDir, reporter, setCancel);
    await finish(job, handle, ctx, outcome, jobDir);
  } catch (err) {
    if (err instanceof StoppedByEdge || handle.cancelReason) {
      ctx.log({ level: "info", job: id, event: "cancelled", reason: handle.cancelReason ?? String(err) });
      return;
    }
    ctx.log({ level: "error", job: id, event: "job_error", error: err instanceof Error ? err.stack : String(err) });
    await ctx.edge
      .fail(id, { attempt: handle.attempt, code: "processing_error", message: "The reconstruction failed because of an internal error.", suggestion: "Retry the upload; if it fails again, contact support with the reconstruction id." })
      .catch((failErr: unknown) => ctx.log({ level: "error", job: id, event: "fail_report_failed", error: String(failErr) }));
  } finally {
    clearInterval(heartbeat);
    if (ctx.config.KEEP_WORK_DIRS !== "1") await rm(jobDir, { recursive: true, force: true });
  }
}

type ProgressReporter = ReturnType<typeof createProgressReporter>;

async function execute(
  job: JobMessage,
  handle: RunningJob,
  ctx: JobContext,
  jobDir: string,
  reporter: ProgressReporter,
  setCancel: OnCancel,
): Promise<Outcome> {
  const inputDir = path.join(jobDir, "inputs");
  const outDir = path.join(jobDir, "out");
  await mkdir(inputDir, { recursive: true });
  await mkdir(outDir, { recursive: true });
  const files: PipelineThreadInput["files"] = [];
  for (const [index, input] of job.inputs.entries()) {
    const localPath = path.join(inputDir, `${String(index).padStart(4, "0")}${extensionOf(input.kind)}`);
    // Checkpoint: a cancelled job downloads nothing more.
    if (handle.cancelReason) return { type: "cancelled", reason: handle.cancelReason };
    await ctx.edge.downloadObject(input.key, localPath);
    files.push({ path: localPath, name: input.name });
    reporter.report("ingest", Math.floor((2 * (index + 1)) / job.inputs.length), 0);
  }
  let tasks: PipelineThreadInput["tasks"];
  if (ctx.config.DISTRIBUTE_TASKS === "1") {
    const scratchDir = path.join(jobDir, "tasks");
    await mkdir(scratchDir, { recursive: true });
    tasks = { edgeUrl: ctx.config.EDGE_URL, secret: ctx.config.COMPUTE_SECRET, attempt: handle.attempt, pollMs: ctx.config.TASK_POLL_MS, scratchDir, featureBatchImages: ctx.config.FEATURE_BATCH_IMAGES, matchBatchPairs: ctx.config.MATCH_BATCH_PAIRS };
  }
  const threadInput: PipelineThreadInput = { job, files, workDir: path.join(jobDir, "work"), outDir, tasks, denseClusterViews: ctx.config.DENSE_CLUSTER_VIEWS };
  const tag = `${job.reconstruction_id}-a${job.attempt}`;
  const outcome = await new Promise<Outcome>((resolve) => {
    const thread = ctx.threads.acquire();
    let settled = false;
    // Only a job that ended by itself leaves its thread fit for the next one.
    const settle = (value: Outcome, reusable: boolean) => {
      if (settled) return;
      settled = true;
      resolve(value);
      if (reusable) ctx.threads.release(thread);
      else ctx.threads.discard(thread);
    };
    setCancel((reason) => settle({ type: "cancelled", reason }, false));
    thread.on("message", (msg: PipelineThreadMessage) => {
      if (msg.job !== tag) return;
      if (msg.type === "progress") reporter.report(msg.stage, Math.max(2, msg.progress), msg.filesProcessed, msg.remainingMs);
      else if (msg.type === "done") settle({ type: "done", outputs: msg.outputs }, true);
      else if (msg.type === "failed") settle({ type: "failed", code: msg.code, message: msg.message, suggestion: msg.suggestion }, true);
      else {
        ctx.log({ level: "error", job: job.reconstruction_id, event: "pipeline_crashed", error: msg.message });
        settle({ type: "failed", code: "processing_error", message: "The reconstruction failed because of an internal error.", suggestion: "Retry the upload; if it fails again, contact support with the reconstruction id." }, false);
      }
    });
    thread.on("error", (err) => {
      ctx.log({ level: "error", job: job.reconstruction_id, event: "pipeline_thread_error", error: String(err) });
      settle({ type: "failed", code: "processing_error", message: "The reconstruction ran out of resources or crashed.", suggestion: "Retry with fewer or smaller images, or the preview quality." }, false);
    });
    thread.on("exit", (code) => {
      settle({ type: "failed", code: "processing_error", message: `The reconstruction stopped unexpectedly (exit ${code}).`, suggestion: "Retry the upload." }, false);
    });
    const command: PipelineThreadCommand = { type: "run", job: tag, input: threadInput };
    thread.postMessage(command);
  });
  await reporter.flush();
  return outcome;
}

/** report.json's georeference as the status record carries it (docs/API.md `georeference`), if the model has one. */
async function georeferenceOf(reportPath: string): Promise<{ crs: string; offset: [number, number, number] } | null> {
  const report = JSON.parse(await readFile(reportPath, "utf8").catch(() => "{}")) as { georeference?: { crs: string; offset: [number, number, number] } };
  return report.georeference ? { crs: report.georeference.crs, offset: report.georeference.offset } : null;
}

async function finish(job: JobMessage, handle: RunningJob, ctx: JobContext, outcome: Outcome, jobDir: string): Promise<void> {
  const id = job.reconstruction_id;
  if (outcome.type === "cancelled") {
    ctx.log({ level: "info", job: id, event: "cancelled", reason: outcome.reason });
    return;
  }
  if (outcome.type === "failed") {
    await ctx.edge.fail(id, { attempt: handle.attempt, code: outcome.code, message: outcome.message, suggestion: outcome.suggestion });
    ctx.log({ level: "info", job: id, event: "failed", code: outcome.code });
    return;
  }
  handle.stage = "export";
  const formats: Array<{ format: keyof typeof CONTENT_TYPES; file_size: number }> = [];
  for (const output of outcome.outputs) {
    // Checkpoint: once cancelled, no output is written (the edge refuses them too).
    if (handle.cancelReason) throw new StoppedByEdge(handle.cancelReason);
    const bytes = await ctx.edge.uploadObject(outputKey(id, output.format), output.path, CONTENT_TYPES[output.format]);
    formats.push({ format: output.format, file_size: bytes });
  }
  const reportPath = path.join(jobDir, "out", "report.json");
  await ctx.edge.uploadObject(reportKey(id), reportPath, "application/json").catch((err: unknown) => ctx.log({ level: "warn", job: id, event: "report_upload_failed", error: String(err) }));
  const georeference = await georeferenceOf(reportPath);
  const answer = await ctx.edge.complete(id, { attempt: handle.attempt, formats, ...(georeference ? { georeference } : {}) });
  ctx.log({ level: "info", job: id, event: "completed", accepted: answer.accepted, formats: formats.length, seconds: (Date.now() - handle.startedAt) / 1000 });
}

/**
 * Throttles progress reports; a stage change always goes at once. Keeps a running ETA: the
 * pipeline's own time left (ProgressTracker: each stage at its measured pace), counted down
 * between reports (progress.ts `completionAt`); none before the pipeline tells one.
 */
function createProgressReporter(job: JobMessage, handle: RunningJob, ctx: JobContext) {
  let lastSent = 0;
  let lastStage: Stage | null = null;
  let pending: Promise<unknown> = Promise.resolve();
  let filesProcessed = 0;
  let told: { at: number; leftMs: number } | null = null;
  function send(stage: Stage, clamped: number): void {
    const now = Date.now();
    lastSent = now;
    lastStage = stage;
    // Until the pipeline tells a time left, the edge's first estimate stands.
    const at = told ? completionAt(now, told, now - handle.startedAt, clamped) : undefined;
    const estimated = at === undefined ? undefined : new Date(at).toISOString();
    const body = { attempt: handle.attempt, stage, progress: clamped, files_processed: filesProcessed, ...(estimated ? { estimated_completion: estimated } : {}) };
    pending = pending
      .then(() => ctx.edge.progress(job.reconstruction_id, body))
      .then((answer) => {
        if (!answer.accepted) handle.cancel(`state machine refused progress (${answer.status ?? "stale attempt"}: ${answer.reason ?? "no reason"})`);
      })
      .catch((err: unknown) => ctx.log({ level: "warn", job: job.reconstruction_id, event: "progress_failed", error: String(err) }));
  }
  return {
    report(stage: Stage, progress: number, files: number, pipelineLeftMs?: number) {
      const clamped = Math.min(99, Math.max(handle.progress, Math.floor(progress)));
      filesProcessed = Math.max(filesProcessed, Math.min(files, job.inputs.length));
      handle.progress = clamped;
      handle.stage = stage;
      if (pipelineLeftMs !== undefined) told = { at: Date.now(), leftMs: pipelineLeftMs };
      if (stage === lastStage && Date.now() - lastSent < ctx.config.PROGRESS_INTERVAL_MS) return;
      send(stage, clamped);
    },
    /** Re-sends the current progress (with a fresh ETA); false before the first stage report. */
    refresh(): boolean {
      if (!handle.stage) return false;
      send(handle.stage, handle.progress);
      return true;
    },
    flush: () => pending,
  };
}

function extensionOf(kind: JobMessage["inputs"][number]["kind"]): string {
  switch (kind) {
    case "jpeg":
      return ".jpg";
    case "png":
      return ".png";
    case "heic":
      return ".heic";
    case "mp4":
      return ".mp4";
    case "mov":
      return ".mov";
  }
}
