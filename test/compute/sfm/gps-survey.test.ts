/**
 * A small drone survey whose photos carry GPS fixes in their EXIF (issue "Large captures"):
 * through ingest's EXIF reader, pair selection and SfM, every global bundle adjustment holds the
 * cameras to their fixes (no camera fixed), and the cameras stay as accurate as without them.
 * An RTK drone's fixes, whose centimetre accuracy only its XMP states (as DJI's do), hold the
 * cameras to that accuracy. What the priors buy at 800 photos is measured by
 * `npm run bench -- scale --gps` and `--gps=rtk`.
 */
import { describe, expect, it } from "vitest";
import { renderDefinedView } from "../../support/render.js";
import { runSfmOnViews } from "../../support/sfm-run.js";
import { SURVEY_FOCAL_35MM, SURVEY_GPS_SIGMA_M, SURVEY_RTK_SIGMA_M, surveyCapture, surveyGps } from "../../support/survey-scene.js";

const PHOTOS = 30;
const SEED = 21;

describe("sfm with GPS fixes on a rendered survey", () => {
  it("holds every camera to its fix and places all of them within 0.2°", async () => {
    const capture = surveyCapture(PHOTOS, SEED, 0.75);
    const views = capture.def.cameras.map((_, i) => renderDefinedView(capture.def, i, { width: 400, height: 300, seed: SEED, prefix: "survey", supersample: 1 }));
    const exif = (_: unknown, i: number) => ({ make: "Test", model: "Drone", focalLength35mm: SURVEY_FOCAL_35MM, ...surveyGps(capture.def.cameras[i].eye, i, SEED) });
    const run = await runSfmOnViews(views, new Set(views.map((v) => v.name)), capture.sceneRadius, {}, exif);
    const { counts, finalBundleAdjustment } = run.result.report as unknown as { counts: Record<string, number>; finalBundleAdjustment: { gps?: { used: number; sigmaM: number } } };
    console.log(`gps survey: ${counts.registered}/${PHOTOS}, ${counts.gpsPriors} priors, fixes ${counts.gpsResidualRmsM.toFixed(2)} m RMS from the model; rotation ${run.accuracy.medianRotationErrorDeg.toFixed(3)}/${run.accuracy.maxRotationErrorDeg.toFixed(3)}°, centre ${run.accuracy.medianCenterErrorPercent.toFixed(3)}/${run.accuracy.maxCenterErrorPercent.toFixed(3)} %`);
    expect(counts.registered).toBe(PHOTOS);
    expect(counts.gpsFixes).toBe(PHOTOS);
    expect(counts.gpsPriors).toBeGreaterThanOrEqual(PHOTOS - 1);
    // The fixes lie within their noise of the model (metres, 1.5 m horizontal and 3 m vertical σ).
    expect(counts.gpsResidualRmsM).toBeLessThan(2 * Math.hypot(SURVEY_GPS_SIGMA_M.horizontal, SURVEY_GPS_SIGMA_M.vertical));
    expect(finalBundleAdjustment.gps?.sigmaM).toBeGreaterThanOrEqual(2);
    expect(run.accuracy.maxRotationErrorDeg).toBeLessThan(0.2);
    expect(run.accuracy.maxCenterErrorPercent).toBeLessThan(1);
  }, 180_000);

  it("holds an RTK drone's cameras to the centimetres its XMP states", async () => {
    const capture = surveyCapture(PHOTOS, SEED, 0.75);
    const views = capture.def.cameras.map((_, i) => renderDefinedView(capture.def, i, { width: 400, height: 300, seed: SEED, prefix: "survey", supersample: 1 }));
    const exif = (_: unknown, i: number) => ({ make: "Test", model: "Drone", focalLength35mm: SURVEY_FOCAL_35MM, ...surveyGps(capture.def.cameras[i].eye, i, SEED, SURVEY_RTK_SIGMA_M) });
    const run = await runSfmOnViews(views, new Set(views.map((v) => v.name)), capture.sceneRadius, {}, exif);
    const { counts, finalBundleAdjustment } = run.result.report as unknown as { counts: Record<string, number>; finalBundleAdjustment: { gps?: { used: number; sigmaM: number; verticalSigmaM: number } } };
    console.log(`rtk survey: ${counts.registered}/${PHOTOS}, ${counts.gpsPriors} priors, fixes ${counts.gpsResidualRmsM.toFixed(3)} m RMS from the model; rotation ${run.accuracy.medianRotationErrorDeg.toFixed(3)}/${run.accuracy.maxRotationErrorDeg.toFixed(3)}°, centre ${run.accuracy.medianCenterErrorPercent.toFixed(3)}/${run.accuracy.maxCenterErrorPercent.toFixed(3)} %`);
    expect(counts.registered).toBe(PHOTOS);
    expect(counts.gpsPriors).toBe(PHOTOS);
    // The XMP's deviations, not the options' consumer σ (2 m, 4 m).
    expect(finalBundleAdjustment.gps?.sigmaM).toBeCloseTo(SURVEY_RTK_SIGMA_M.horizontal, 6);
    expect(finalBundleAdjustment.gps?.verticalSigmaM).toBeCloseTo(SURVEY_RTK_SIGMA_M.vertical, 6);
    // The model lies within the fixes' few centimetres (σ 2 cm and 3 cm: 3.6 cm RMS in 3-D).
    expect(counts.gpsResidualRmsM).toBeLessThan(2 * Math.hypot(SURVEY_RTK_SIGMA_M.horizontal, SURVEY_RTK_SIGMA_M.vertical));
    expect(run.accuracy.maxRotationErrorDeg).toBeLessThan(0.2);
  }, 180_000);
});
