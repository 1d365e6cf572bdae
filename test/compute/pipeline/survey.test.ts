/**
 * A survey through the whole pipeline (issue 41): a rendered drone flight over a town with
 * painted targets, consumer GPS in the EXIF, and the targets' coordinates as a surveyor sends
 * them (WGS 84 longitude, latitude, height; five control points, four checkpoints). The model
 * comes back in UTM zone 32N (the zone of the points), its checkpoints within 1.5 GSD
 * horizontally and 2.5 GSD vertically, the orthophoto shows each target within 2 GSD of where
 * it is, the DSM's median height error is under 2 GSD inside the targets' area, and geotiff.js
 * reads both rasters with their EPSG code.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fromFile, type GeoTIFFImage } from "geotiff";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { geodeticToEnu } from "../../../compute/geometry/geodesy.js";
import { epsgEntry, transformBetween, WGS84_GEOGRAPHIC } from "../../../compute/pipeline/crs.js";
import { runPipeline, type PipelineResult } from "../../../compute/pipeline/index.js";
import { encodeJpeg } from "../../support/fixtures.js";
import { renderDefinedView, type SceneDef } from "../../support/render.js";
import { SURVEY_FOCAL_35MM, SURVEY_FOCAL_WIDTHS, SURVEY_METRES_PER_UNIT, SURVEY_ORIGIN, surveyCapture, surveyGps } from "../../support/survey-scene.js";
import { geographicOf, surveyControlPoints, surveyTargets, targetMarks, targetPrimitives, type SurveyTarget } from "../../support/survey-targets.js";

const PHOTOS = 20;
const SEED = 21;
const WIDTH = 400;
const HEIGHT = 300;
const GSD_M = SURVEY_METRES_PER_UNIT / (SURVEY_FOCAL_WIDTHS * WIDTH);
const UTM = 32632;

let dir = "";
let result: PipelineResult;
let def: SceneDef;
let targets: SurveyTarget[];

/** Height of the town's top surface at UTM (east, north): a ray straight down onto the rendered primitives. */
function trueHeight(east: number, north: number, toGeographic: (p: [number, number, number]) => [number, number, number]): number {
  const [lon, lat] = toGeographic([east, north, 0]);
  const [e, n] = geodeticToEnu({ latitudeDeg: lat, longitudeDeg: lon, heightM: SURVEY_ORIGIN.heightM }, SURVEY_ORIGIN);
  const origin = new Float64Array([e / SURVEY_METRES_PER_UNIT, n / SURVEY_METRES_PER_UNIT, 10]);
  const down = new Float64Array([0, 0, -1]);
  const normal = new Float64Array(3);
  let t = Infinity;
  for (const primitive of def.primitives) t = Math.min(t, primitive.intersect(origin, down, t, normal));
  return SURVEY_ORIGIN.heightM + (10 - t) * SURVEY_METRES_PER_UNIT;
}

async function geotiffOf(file: string): Promise<GeoTIFFImage> {
  return (await fromFile(file)).getImage(0);
}

describe("a survey with ground control, whole pipeline", () => {
  beforeAll(async () => {
    targets = surveyTargets(PHOTOS, SEED);
    const capture = surveyCapture(PHOTOS, SEED, HEIGHT / WIDTH, targetPrimitives(targets));
    def = capture.def;
    const marks = targetMarks(capture.def, targets, WIDTH, HEIGHT, SEED);
    dir = await mkdtemp(path.join(tmpdir(), "survey-pipeline-"));
    const files: Array<{ path: string; name: string }> = [];
    for (let i = 0; i < PHOTOS; i++) {
      const view = renderDefinedView(capture.def, i, { width: WIDTH, height: HEIGHT, seed: SEED, prefix: "survey", supersample: 1 });
      const exif = { make: "Test", model: "Drone", focalLength35mm: SURVEY_FOCAL_35MM, ...surveyGps(capture.def.cameras[i].eye, i, SEED) };
      const file = path.join(dir, `${view.name}.jpg`);
      await writeFile(file, await encodeJpeg(Buffer.from(view.rgb), WIDTH, HEIGHT, exif));
      files.push({ path: file, name: `${view.name}.jpg` });
    }
    const controlPoints = surveyControlPoints(targets, marks, files.map((f) => f.name));
    result = await runPipeline({ files, workDir: path.join(dir, "work"), outDir: path.join(dir, "out"), quality: "preview", control_points: controlPoints });
  }, 1_800_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("places the model in the points' UTM zone, checkpoints within 1.5 GSD horizontally and 2.5 GSD vertically", () => {
    expect(result.report.georeference?.crs).toBe(`EPSG:${UTM}`);
    expect(result.report.georeference?.source).toBe("control");
    const sfm = result.report.stages.find((s) => s.stage === "sfm") as unknown as { control: { applied: boolean; rmse: { check: { points: number; horizontalM: number; verticalM: number } } } };
    expect(sfm.control.applied).toBe(true);
    expect(sfm.control.rmse.check.points).toBe(4);
    console.log(`survey: GSD ${GSD_M.toFixed(3)} m, checkpoint RMSE ${sfm.control.rmse.check.horizontalM.toFixed(3)} m horizontal, ${sfm.control.rmse.check.verticalM.toFixed(3)} m vertical`);
    expect(sfm.control.rmse.check.horizontalM).toBeLessThan(1.5 * GSD_M);
    expect(sfm.control.rmse.check.verticalM).toBeLessThan(2.5 * GSD_M);
    expect(result.outputs.map((o) => o.format)).toEqual(expect.arrayContaining(["las", "glb", "ortho", "dsm", "report"]));
  });

  it("writes a DSM whose median height error is under 2 GSD inside the targets' area", async () => {
    const dsm = await geotiffOf(result.outputs.find((o) => o.format === "dsm")!.path);
    expect(dsm.getGeoKeys()!.ProjectedCSTypeGeoKey).toBe(UTM);
    const [originE, originN] = dsm.getOrigin();
    const [pixelE, pixelN] = dsm.getResolution();
    const heights = (await dsm.readRasters({ interleave: true })) as unknown as Float32Array;
    const toUtm = transformBetween(WGS84_GEOGRAPHIC, epsgEntry(UTM)!.proj4);
    const toGeographic = transformBetween(epsgEntry(UTM)!.proj4, WGS84_GEOGRAPHIC);
    const corners = targets.filter((t) => t.role === "control").map((t) => toUtm(geographicOf(t.scene)));
    const [e0, e1] = [Math.min(...corners.map((c) => c[0])), Math.max(...corners.map((c) => c[0]))];
    const [n0, n1] = [Math.min(...corners.map((c) => c[1])), Math.max(...corners.map((c) => c[1]))];
    const errors: number[] = [];
    const width = dsm.getWidth();
    for (let row = 0; row < dsm.getHeight(); row += 3) {
      for (let col = 0; col < width; col += 3) {
        const east = originE + (col + 0.5) * pixelE;
        const north = originN + (row + 0.5) * pixelN;
        const h = heights[row * width + col];
        if (east < e0 || east > e1 || north < n0 || north > n1 || h === -9999) continue;
        errors.push(Math.abs(h - trueHeight(east, north, toGeographic)));
      }
    }
    errors.sort((a, b) => a - b);
    console.log(`survey: DSM median |error| ${errors[errors.length >> 1].toFixed(3)} m over ${errors.length} cells`);
    expect(errors.length).toBeGreaterThan(200);
    expect(errors[errors.length >> 1]).toBeLessThan(2 * GSD_M);
  });

  it("writes the cloud's formats during the mesh stage, the LAS in the survey's frame where the DSM lies", async () => {
    const exported = result.report.stages.find((s) => s.stage === "export")!;
    expect(exported.counts!.formatsWrittenAhead).toBe(4);
    const las = await readFile(result.outputs.find((o) => o.format === "las")!.path);
    const header = new DataView(las.buffer, las.byteOffset, las.byteLength);
    const [maxE, minE, maxN, minN] = [179, 187, 195, 203].map((at) => header.getFloat64(at, true));
    expect(las.toString("latin1")).toContain("UTM zone 32N");
    const dsm = await geotiffOf(result.outputs.find((o) => o.format === "dsm")!.path);
    const [e0, n0, e1, n1] = dsm.getBoundingBox();
    // The cloud reaches somewhat past the DSM's cells; they overlap by most of the DSM.
    expect(Math.min(maxE, e1) - Math.max(minE, e0)).toBeGreaterThan(0.8 * (e1 - e0));
    expect(Math.min(maxN, n1) - Math.max(minN, n0)).toBeGreaterThan(0.8 * (n1 - n0));
  });

  it("shows every target in the orthophoto within 2 GSD of its true position", async () => {
    const ortho = await geotiffOf(result.outputs.find((o) => o.format === "ortho")!.path);
    expect(ortho.getGeoKeys()!.ProjectedCSTypeGeoKey).toBe(UTM);
    const [originE, originN] = ortho.getOrigin();
    const [pixelE, pixelN] = ortho.getResolution();
    const rgba = (await ortho.readRasters({ interleave: true })) as unknown as Uint8Array;
    const width = ortho.getWidth();
    const grey = (col: number, row: number) => rgba[4 * (row * width + col)] + rgba[4 * (row * width + col) + 1] + rgba[4 * (row * width + col) + 2];
    const toUtm = transformBetween(WGS84_GEOGRAPHIC, epsgEntry(UTM)!.proj4);
    // A 2 × 2 checker of the target's size: its centre is where the quarters' contrast peaks.
    const half = Math.max(2, Math.round((0.03 * SURVEY_METRES_PER_UNIT) / 2 / Math.abs(pixelE)));
    for (const target of targets) {
      const [east, north] = toUtm(geographicOf(target.scene));
      const col0 = Math.round((east - originE) / pixelE - 0.5);
      const row0 = Math.round((north - originN) / pixelN - 0.5);
      let best = { score: -1, col: col0, row: row0 };
      for (let row = row0 - 6; row <= row0 + 6; row++) {
        for (let col = col0 - 6; col <= col0 + 6; col++) {
          let score = 0;
          for (let dy = -half; dy < half; dy++) for (let dx = -half; dx < half; dx++) score += ((dx < 0) === (dy < 0) ? 1 : -1) * grey(col + dx, row + dy);
          if (Math.abs(score) > best.score) best = { score: Math.abs(score), col, row };
        }
      }
      const offsetM = Math.hypot((best.col - col0) * pixelE, (best.row - row0) * pixelN);
      console.log(`survey: ortho ${target.name} found ${offsetM.toFixed(3)} m from its true position`);
      expect(offsetM, target.name).toBeLessThan(2 * GSD_M);
    }
  });

  it("writes the quality report with the checkpoint table", async () => {
    const html = await readFile(result.outputs.find((o) => o.format === "report")!.path, "utf8");
    for (const name of ["C1", "C5", "K1", "K4", `EPSG:${UTM}`]) expect(html).toContain(name);
    expect(html).not.toMatch(/(src|href)="https?:/);
  });
});
