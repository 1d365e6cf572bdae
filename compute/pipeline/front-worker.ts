/**
 * @module Worker thread of the pipeline's front: serves the features stage's detections, the
 * matching stage's pairs and the keypoints stage's patches, so one set of threads loads the TypeScript loader and
 * OpenCV.js once per job instead of once per stage (front-pool.ts), and answers pings with
 * the size of its OpenCV.js heap once that is loaded.
 */
import { detectTask, openCvHeapBytes, type FeatureTask } from "../stages/features/detect.js";
import { viewsTask, type ViewsTask } from "../stages/features/views.js";
import { matchTask, type PairTask } from "../stages/matching/pair.js";
import { viewPairTask, type ViewPairTask } from "../stages/matching/view-matches.js";
import { runImageTask, type ImageTask } from "../stages/keypoints/image-task.js";
import { serveTasks } from "../util/pool.js";
import type { FrontResult, FrontTask } from "./front-pool.js";

serveTasks<FrontTask, FrontResult | number>((task) => {
  if (task.stage === "features") return detectTask(task.task as FeatureTask);
  if (task.stage === "matching") return matchTask(task.task as PairTask);
  if (task.stage === "views") return viewsTask(task.task as ViewsTask);
  if (task.stage === "viewPairs") return viewPairTask(task.task as ViewPairTask);
  if (task.stage === "keypoints") return runImageTask(task.task as ImageTask);
  return { value: openCvHeapBytes() };
});
