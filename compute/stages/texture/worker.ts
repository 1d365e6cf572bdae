/** @module Worker thread of the texture stage: serves view-task.ts's tasks. */
import { serveTasks } from "../../util/pool.js";
import { runViewTask, type ViewTask, type ViewTaskResult } from "./view-task.js";

serveTasks<ViewTask, ViewTaskResult>(runViewTask);
