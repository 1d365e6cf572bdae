/** @module Worker thread of the features stage: serves detect.ts's tasks. */
import { serveTasks } from "../../util/pool.js";
import { detectTask, type FeatureResult, type FeatureTask } from "./detect.js";

serveTasks<FeatureTask, FeatureResult>(detectTask);
