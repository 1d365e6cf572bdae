/**
 * @module One dense-cluster task in a worker thread of its own (started per task, ended after
 * it), so its fusion and filtering never stall the service's HTTP server or its heartbeats.
 * PatchMatch itself runs on the dense stage's worker pool, started here.
 */
import { readFile, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { parentPort } from "node:worker_threads";
import { encodeClusterResult, solveCluster } from "../stages/dense/index.js";
import type { ViewResult, ViewTask } from "../stages/dense/worker.js";
import { WorkerPool } from "../util/pool.js";
import { decodePayload } from "./dense-tasks.js";

export interface TaskThreadCommand {
  payloadPath: string;
  /** ImageRef.index → local path of the downloaded photo. */
  photos: Array<[number, string]>;
  resultPath: string;
}

export type TaskThreadMessage = { type: "progress"; fraction: number } | { type: "done"; points: number } | { type: "failed"; message: string };

const port = parentPort;
if (!port) throw new Error("task-thread: must run as a worker thread");

port.once("message", (command: TaskThreadCommand) => {
  run(command).then(
    (points) => port.postMessage({ type: "done", points } satisfies TaskThreadMessage),
    (err: unknown) => port.postMessage({ type: "failed", message: err instanceof Error ? `${err.message}\n${err.stack ?? ""}` : String(err) } satisfies TaskThreadMessage),
  );
});

async function run(command: TaskThreadCommand): Promise<number> {
  const { job } = decodePayload(await readFile(command.payloadPath, "utf8"));
  const photos = new Map(command.photos);
  const pool = new WorkerPool<ViewTask, ViewResult>(new URL("../stages/dense/worker.ts", import.meta.url), { size: Math.min(availableParallelism(), job.views.length) });
  let solved = 0;
  try {
    const result = await solveCluster(
      job,
      (imageIndex) => {
        const photo = photos.get(imageIndex);
        if (!photo) throw new Error(`dense task: photo ${imageIndex} was not downloaded`);
        return { path: photo };
      },
      pool,
      // Fusion after the last view is the rest: the solves count for 90 %.
      { onSolved: () => port!.postMessage({ type: "progress", fraction: (0.9 * ++solved) / job.views.length } satisfies TaskThreadMessage) },
    );
    await writeFile(command.resultPath, encodeClusterResult(result));
    return result.cloud.count;
  } finally {
    await pool.close();
  }
}
