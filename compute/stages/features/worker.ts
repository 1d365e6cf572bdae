/** @module Worker thread of the features stage: serves detect.ts's tasks and views.ts's. */
import { serveTasks } from "../../util/pool.js";
import { detectTask, type FeatureResult, type FeatureTask } from "./detect.js";
import { viewsTask, type ViewsResult, type ViewsTask } from "./views.js";

serveTasks<FeatureTask | ViewsTask, FeatureResult | ViewsResult>((task) => ("tilt" in task ? viewsTask(task) : detectTask(task)));
