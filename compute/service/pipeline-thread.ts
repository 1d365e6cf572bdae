/**
 * @module The pipelines of the service's jobs, one at a time, in a worker thread that the
 * service keeps between jobs (pipeline-threads.ts).
 *
 * SfM and bundle adjustment run synchronous numeric loops for seconds at a time; in a thread
 * of their own they never stall the service's HTTP server, its heartbeats or its reports.
 * Kept between jobs, the thread holds its front workers with OpenCV.js loaded and its own
 * code compiled, so a job of a few small photos does not pay for start-up (KeptFrontWorkers).
 */
import { parentPort } from "node:worker_threads";
import { jobOptionsOf } from "../../shared/jobs.js";
import { KeptFrontWorkers } from "../pipeline/front-pool.js";
import { runPipeline } from "../pipeline/index.js";
import { QUALITY_PRESETS } from "../pipeline/presets.js";
import { PipelineError } from "../scene/report.js";
import { DEFAULTS as FEATURE_DEFAULTS } from "../stages/features/index.js";
import { denseTaskRunner } from "./dense-tasks.js";
import { createEdgeClient } from "./edge-client.js";
import { featureTaskRunner } from "./feature-tasks.js";
import { matchingTaskRunner } from "./matching-tasks.js";
import { TaskCoordinator } from "./task-coordinator.js";
import type { PipelineThreadCommand, PipelineThreadInput, PipelineThreadMessage } from "./pipeline-messages.js";

const port = parentPort;
if (!port) throw new Error("pipeline-thread: must run as a worker thread");

const front = new KeptFrontWorkers();
/** Every preset detects on the same number of workers (all cores unless a preset says otherwise). */
const frontCount = (quality: keyof typeof QUALITY_PRESETS) => QUALITY_PRESETS[quality].features.workers ?? FEATURE_DEFAULTS.workers;
front.prepare(frontCount("standard"));

function send(message: PipelineThreadMessage): void {
  port!.postMessage(message);
}

/** The runners that send feature batches, pair batches and dense clusters out as tasks, when the job runner asked for it. */
function taskRunnersFor(input: PipelineThreadInput) {
  const tasks = input.tasks;
  if (!tasks) return {};
  const coordinator = new TaskCoordinator({ edge: createEdgeClient(tasks.edgeUrl, tasks.secret), reconstructionId: input.job.reconstruction_id, attempt: tasks.attempt, pollMs: tasks.pollMs, scratchDir: tasks.scratchDir });
  return { featureRunner: featureTaskRunner(coordinator, tasks.featureBatchImages), pairRunner: matchingTaskRunner(coordinator, tasks.matchBatchPairs), denseRunner: denseTaskRunner(coordinator) };
}

// The owner (pipeline-threads.ts) gives a thread one job at a time.
port.on("message", (command: PipelineThreadCommand) => {
  const { job: tag, input } = command;
  runPipeline({
    ...jobOptionsOf(input.job),
    files: input.files,
    workDir: input.workDir,
    outDir: input.outDir,
    front,
    ...taskRunnersFor(input),
    denseClusterViews: input.denseClusterViews,
    onProgress: (p) => send({ type: "progress", job: tag, stage: p.stage, progress: p.progress, filesProcessed: p.filesProcessed, remainingMs: p.remainingMs }),
  })
    .then((result) => send({ type: "done", job: tag, outputs: result.outputs }))
    .catch((err: unknown) => {
      if (err instanceof PipelineError) send({ type: "failed", job: tag, code: err.code, message: err.message, suggestion: err.suggestion });
      else send({ type: "crashed", job: tag, message: err instanceof Error ? `${err.message}\n${err.stack ?? ""}` : String(err) });
    })
    .finally(() => {
      // Ready for the next job: replaces workers the job's large images left with big heaps.
      front.prepare(frontCount(input.job.quality));
    });
});
