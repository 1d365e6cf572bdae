/** @module Worker thread of the keypoints stage: serves image-task.ts's tasks. */
import { serveTasks } from "../../util/pool.js";
import { runImageTask, type ImageTask, type ImageTaskResult } from "./image-task.js";

serveTasks<ImageTask, ImageTaskResult>(runImageTask);
