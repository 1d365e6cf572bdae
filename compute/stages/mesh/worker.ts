/** @module Worker thread of the mesh stage: serves worker-task.ts's tasks. */
import { serveTasks } from "../../util/pool.js";
import { runMeshTask, type MeshResult, type MeshTask } from "./worker-task.js";

serveTasks<MeshTask, MeshResult>(runMeshTask);
