/**
 * @module Worker thread of the pipeline's front: serves both the features stage's detections
 * and the matching stage's pairs, so one set of threads loads the TypeScript loader and
 * OpenCV.js once per job instead of once per stage (front-pool.ts).
 */
import { detectTask, type FeatureTask } from "../stages/features/detect.js";
import { matchTask, type PairTask } from "../stages/matching/pair.js";
import { serveTasks } from "../util/pool.js";
import type { FrontResult, FrontTask } from "./front-pool.js";

serveTasks<FrontTask, FrontResult>((task) => (task.stage === "features" ? detectTask(task.task as FeatureTask) : matchTask(task.task as PairTask)));
