/**
 * The pipeline's glue to the quality report (compute/pipeline/quality.ts): a PipelineReport and
 * a Located become the stage's input, report.html lands in the output folder, and the figures
 * carry the georeference the pipeline found.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Located } from "../../../compute/pipeline/locate.js";
import { measureForReport, reportGeoreference, writeQualityReport } from "../../../compute/pipeline/quality.js";
import type { PipelineReport } from "../../../compute/pipeline/report.js";
import { refinedOf } from "../../../compute/stages/quality-report/measures.js";
import { residualOfTarget } from "../../../compute/stages/quality-report/index.js";
import { adjusted, makeSurvey } from "../quality-report/synthetic.js";

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe("pipeline: quality report", () => {
  const generated = makeSurvey(0.5, 11);
  const model = adjusted(generated);
  const located: Located = {
    frame: { epsg: 32633, crs: "EPSG:32633", wkt: "PROJCS[…]", offset: [400000, 5500000, 0], source: "gps" },
    modelToTarget: generated.modelToTarget,
    report: { crs: "EPSG:32633", offset: [400000, 5500000, 0], source: "gps", gsdM: 0.1, gpsFixes: 4, gpsResidualRmsM: 2.1 },
  };

  it("writes report.html beside report.json with the pipeline's georeference and job figures", async () => {
    const outDir = await mkdtemp(path.join(tmpdir(), "pipeline-quality-"));
    dirs.push(outDir);
    const report: PipelineReport = {
      quality: "standard", sparseOnly: false, startedAt: "2026-11-28T10:00:00.000Z", finishedAt: "2026-11-28T10:05:00.000Z", wallMs: 300_000,
      files: 4, images: 4, registered: 4, skipped: [], unregistered: [], otherModelSizes: [], notRun: [], stages: [], outputs: [],
      georeference: located.report,
    };
    const measures = measureForReport(model, generated.features, { covariance: { loss: "squared" } });
    const out = await writeQualityReport(report, { model, images: generated.images, measures, located, outDir, title: "Job 42" });
    expect(out.file).toBe(path.join(outDir, "report.html"));
    expect(await readFile(out.file!, "utf8")).toContain("EPSG:32633");
    expect(out.figures.summary).toMatchObject({ crs: "EPSG:32633", offset: [400000, 5500000, 0], gsdM: 0.1, photosUsed: 4, photosTotal: 4, processingMs: 300_000, georeferenceSource: "gps" });
    expect(out.figures.uncertainty!.perPhoto).toHaveLength(4);
    expect(out.figures.reprojection!.observations).toBe(measures.observationErrorsPx.length);
    expect(out.report.stage).toBe("quality-report");
    // A report.json with the figures survives JSON.
    const json = JSON.parse(JSON.stringify({ ...report, qualityReport: out.figures })) as PipelineReport;
    expect(json.qualityReport).toEqual(out.figures);
  });

  it("maps no georeference to the model's own frame and units", () => {
    expect(reportGeoreference(null)).toBeNull();
    expect(reportGeoreference(located)).toMatchObject({ crs: "EPSG:32633", source: "gps", gsdM: 0.1 });
  });

  it("infers which intrinsics the adjustment refined from the model", () => {
    expect(refinedOf(model)).toEqual({ refineFocal: true, refineDistortion: false, refinePrincipalPoint: false });
    const views = model.views.map((v) => ({ ...v, intrinsics: { ...v.intrinsics, k1: -0.02, cx: 51.5 } }));
    expect(refinedOf({ ...model, views })).toEqual({ refineFocal: true, refineDistortion: true, refinePrincipalPoint: true });
  });

  it("turns a target-frame residual (x east, y up, z south) into east, north, up", () => {
    expect(residualOfTarget([0.01, 0.03, 0.02])).toEqual({ dx: 0.01, dy: -0.02, dz: 0.03 });
  });
});
