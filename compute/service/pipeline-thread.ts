/**
 * @module The pipeline of one job inside its own worker thread.
 *
 * SfM and bundle adjustment run synchronous numeric loops for seconds at a time; in a thread
 * of their own they never stall the service's HTTP server, its heartbeats or its reports.
 */
import { parentPort, workerData } from "node:worker_threads";
import { runPipeline } from "../pipeline/index.js";
import { PipelineError } from "../scene/report.js";
import type { PipelineThreadInput, PipelineThreadMessage } from "./pipeline-messages.js";

const port = parentPort;
if (!port) throw new Error("pipeline-thread: must run as a worker thread");
const input = workerData as PipelineThreadInput;

function send(message: PipelineThreadMessage): void {
  port!.postMessage(message);
}

runPipeline({
  files: input.files,
  workDir: input.workDir,
  outDir: input.outDir,
  quality: input.quality,
  onProgress: (p) => send({ type: "progress", stage: p.stage, progress: p.progress, filesProcessed: p.filesProcessed }),
})
  .then((result) => send({ type: "done", outputs: result.outputs }))
  .catch((err: unknown) => {
    if (err instanceof PipelineError) send({ type: "failed", code: err.code, message: err.message, suggestion: err.suggestion });
    else send({ type: "crashed", message: err instanceof Error ? `${err.message}\n${err.stack ?? ""}` : String(err) });
  });
