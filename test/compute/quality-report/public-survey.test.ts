/**
 * The quality report's figures as compute writes them into report.json read by the edge's public
 * survey (edge/listing/survey-report.ts `surveyOf`): the two sides' shapes cannot drift apart
 * unnoticed. The workerd tests (test/edge/reconstruction-list.test.ts) cover the route.
 */
import { describe, expect, it } from "vitest";
import { measureModel, run, type ControlResidual, type Input } from "../../../compute/stages/quality-report/index.js";
import { surveyOf } from "../../../edge/listing/survey-report.js";
import { adjusted, makeSurvey } from "./synthetic.js";

const generated = makeSurvey(0.5, 5);
const model = adjusted(generated);
const measures = measureModel(model, generated.features, { covariance: { refineFocal: false, refineDistortion: false, loss: "squared" } });
const control: ControlResidual[] = [
  { name: "GCP-A", role: "control", used: true, dx: 0.01, dy: -0.02, dz: 0.03, reprojectionPx: 0.4, marks: 4 },
  { name: "GCP-B", role: "control", used: false, reason: "marked in 1 photo", dx: 0.5, dy: 0.5, dz: 0.5, marks: 1 },
  { name: "CHK-C", role: "check", used: true, dx: 0.05, dy: 0, dz: -0.04, marks: 4 },
];
const input: Input = {
  job: { files: 4, images: 4, wallMs: 60_000, skipped: [], unregistered: [], notRun: [] },
  model,
  images: generated.images,
  measures,
  georeference: { crs: "EPSG:32632", offset: [500000, 5000000, 0], source: "control", modelToTarget: generated.modelToTarget, gsdM: 0.1 },
  control,
};

/** What report.json holds: the figures through JSON. */
const written = (figures: unknown): unknown => JSON.parse(JSON.stringify(figures));

describe("quality report figures → public survey", () => {
  it("reads every section of a georeferenced survey with control", async () => {
    const { figures } = await run(input);
    const survey = surveyOf(written(figures));
    expect(survey).toBeDefined();
    expect(survey!.summary).toEqual({ photos_used: 4, photos_total: 4, gsd_m: 0.1, area_m2: figures.summary.areaM2, crs: "EPSG:32632", offset: [500000, 5000000, 0], georeference_source: "control" });
    expect(survey!.overlap.cells_by_photos).toEqual(figures.overlap.cellsByPhotos);
    expect(survey!.calibration).toHaveLength(figures.calibration.length);
    expect(survey!.reprojection).toMatchObject({ observations: figures.reprojection!.observations, rms_px: figures.reprojection!.rmsPx });
    expect(survey!.uncertainty!.per_photo).toHaveLength(4);
    expect(survey!.control!.points.map((p) => [p.name, p.used, p.reason ?? null, p.reprojection_px ?? null])).toEqual([
      ["GCP-A", true, null, 0.4],
      ["GCP-B", false, "marked in 1 photo", null],
      ["CHK-C", true, null, null],
    ]);
    expect(survey!.control!.rmse.check).toEqual({ count: 1, horizontal_m: expect.closeTo(0.05, 12), vertical_m: expect.closeTo(0.04, 12), three_d_m: expect.closeTo(Math.hypot(0.05, 0.04), 12) });
    expect(survey!.units).toBe("m");
  });

  it("reads a model in its own frame with nothing measured", async () => {
    const { figures } = await run({ ...input, measures: null, georeference: null, control: [] });
    const survey = surveyOf(written(figures));
    expect(survey).toMatchObject({ units: "model units", reprojection: null, uncertainty: null, control: null });
    expect(survey!.summary).toMatchObject({ gsd_m: null, crs: null, offset: null, georeference_source: null });
  });
});
