/**
 * @module Worker thread of the pipeline's late stages: serves the mesh stage's tasks, the writing
 * of the cloud's export formats and the texture stage's tasks, so one pair of threads loads the
 * TypeScript loader, sharp and the stages' code once per job instead of three threads at the mesh
 * stage's start (late-pool.ts).
 */
import { writeCloudFormats } from "../stages/export/cloud-formats.js";
import { runMeshTask } from "../stages/mesh/worker-task.js";
import { runViewTask } from "../stages/texture/view-task.js";
import { serveTasks } from "../util/pool.js";
import type { LateResult, LateTask } from "./late-pool.js";

serveTasks<LateTask, LateResult>(async (task) => {
  if (task.stage === "mesh") return runMeshTask(task.task);
  if (task.stage === "export") return { value: await writeCloudFormats(task.task) };
  return runViewTask(task.task);
});
