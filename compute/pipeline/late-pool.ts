/**
 * @module The worker threads of the pipeline's late stages: the mesh stage's helper and the
 * writing of the cloud's export formats (beside each other), then the texture stage's photo tasks.
 *
 * Why one pool for two stages, started before the dense stage fuses: each thread spends about a
 * second of CPU before its first task (the TypeScript loader and the stages' modules). The mesh
 * stage's helper and the texture's two threads had started together at the mesh stage's start,
 * three such starts on two cores beside the mesh's own first phases. Two threads serve both
 * stages here, and they start while the dense stage filters and fuses on one thread and the other
 * core has nothing to do.
 */
import type { CloudExportTask, WrittenFormats } from "../stages/export/cloud-formats.js";
import type { MeshResult, MeshTask } from "../stages/mesh/worker-task.js";
import type { TextureWorkers } from "../stages/texture/threads.js";
import type { ViewTask, ViewTaskResult } from "../stages/texture/view-task.js";
import { atMost, WorkerPool, type TaskRunner } from "../util/pool.js";

export type LateTask = { stage: "mesh"; task: MeshTask } | { stage: "texture"; task: ViewTask } | { stage: "export"; task: CloudExportTask };
export type LateResult = MeshResult | ViewTaskResult | WrittenFormats;

export interface LateWorkers {
  /** The mesh stage's one helper thread (mesh/index.ts hands it one task at a time). */
  mesh: TaskRunner<MeshTask, MeshResult>;
  /** Writes the cloud's export formats (export/cloud-formats.ts) on a thread the mesh stage's one task at a time leaves free. */
  exportCloud(task: CloudExportTask): Promise<WrittenFormats>;
  /** The texture stage's threads; closing them closes the pool. */
  texture: TextureWorkers;
  close(): Promise<void>;
}

/** Starts `count` late workers (at least one); they begin loading at once. */
export function startLateWorkers(count: number): LateWorkers {
  const pool = new WorkerPool<LateTask, LateResult>(new URL("./late-worker.ts", import.meta.url), { size: Math.max(1, count) });
  const close = () => pool.close();
  return {
    mesh: atMost<MeshTask, MeshResult>({ size: pool.size, run: (task, transfer, onProgress) => pool.run({ stage: "mesh", task }, transfer, onProgress) as Promise<MeshResult> }, 1),
    exportCloud: (task) => pool.run({ stage: "export", task }) as Promise<WrittenFormats>,
    texture: { runner: { size: pool.size, run: (task, transfer, onProgress) => pool.run({ stage: "texture", task }, transfer, onProgress) as Promise<ViewTaskResult> }, close },
    close,
  };
}
