/**
 * @module Worker thread of the pipeline's late stages: serves the mesh stage's tasks and the
 * texture stage's, so one pair of threads loads the TypeScript loader, sharp and both stages'
 * code once per job instead of three threads at the mesh stage's start (late-pool.ts).
 */
import { runMeshTask } from "../stages/mesh/worker-task.js";
import { runViewTask } from "../stages/texture/view-task.js";
import { serveTasks } from "../util/pool.js";
import type { LateResult, LateTask } from "./late-pool.js";

serveTasks<LateTask, LateResult>((task) => (task.stage === "mesh" ? runMeshTask(task.task) : runViewTask(task.task)));
