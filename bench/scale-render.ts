/**
 * @module Worker of `npm run bench -- scale`: renders one photo of a survey (survey-scene.ts) and
 * writes it as a JPEG with the EXIF a drone writes (make, model, 35 mm focal length, and with
 * `gps` its GPS fix, noisy as a consumer receiver's: survey-scene.ts surveyGps), with painted
 * ground targets where `control`.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { serveTasks } from "../compute/util/pool.js";
import { encodeJpeg } from "../test/support/fixtures.js";
import { renderDefinedView } from "../test/support/render.js";
import { surveyTargets, targetPrimitives } from "../test/support/survey-targets.js";
import { SURVEY_FOCAL_35MM, SURVEY_GPS_SIGMA_M, SURVEY_RTK_SIGMA_M, surveyCapture, surveyGps, surveyVideo, type SurveyCapture } from "../test/support/survey-scene.js";

export interface RenderTask {
  /** A photo survey of `images` photos, or a video of `images` frames (written as frames, without EXIF). */
  kind: "survey" | "video";
  images: number;
  seed: number;
  width: number;
  height: number;
  index: number;
  dir: string;
  /** Write the camera's GPS fix into the photo's EXIF (surveys only): a consumer receiver's, or an RTK one's with its deviations in DJI's XMP. */
  gps?: "consumer" | "rtk";
  /** Paint the survey's nine ground targets (test/support/survey-targets.ts) on the ground (surveys only). */
  control?: boolean;
}

let cached: { key: string; capture: SurveyCapture } | null = null;

serveTasks<RenderTask, { R: number[]; t: number[] }>(async (task) => {
  const key = `${task.kind}/${task.images}/${task.seed}/${task.height / task.width}/${task.control === true}`;
  const aspect = task.height / task.width;
  const targets = task.control ? targetPrimitives(surveyTargets(task.images, task.seed)) : [];
  if (cached?.key !== key) cached = { key, capture: task.kind === "survey" ? surveyCapture(task.images, task.seed, aspect, targets) : surveyVideo(task.images, task.seed, 3, 5, aspect) };
  const { capture } = cached;
  const view = renderDefinedView(capture.def, task.index, { width: task.width, height: task.height, seed: task.seed, prefix: "survey", supersample: 1 });
  const gps = task.gps ? surveyGps(capture.def.cameras[task.index].eye, task.index, task.seed, task.gps === "rtk" ? SURVEY_RTK_SIGMA_M : SURVEY_GPS_SIGMA_M) : {};
  const exif = task.kind === "survey" ? { make: "Bench", model: "Survey", focalLength35mm: SURVEY_FOCAL_35MM, ...gps } : {};
  const jpeg = await encodeJpeg(Buffer.from(view.rgb.buffer, view.rgb.byteOffset, view.rgb.byteLength), view.width, view.height, exif, task.kind === "survey" ? 92 : 95);
  await writeFile(path.join(task.dir, `${capture.names[task.index]}.jpg`), jpeg);
  return { value: { R: [...view.R], t: [...view.t] } };
});
