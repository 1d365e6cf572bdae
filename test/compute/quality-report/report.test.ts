/**
 * The quality report (compute/stages/quality-report) on a synthetic 2 × 2 nadir survey with a
 * known number of photos over every ground cell: the overlap PNG decodes to that count's colour
 * cell by cell, the HTML parses as XML with no external reference and escapes what it is given,
 * every figure it shows equals report.json's, the control RMSE are the hand-computed ones, and
 * the camera σ are the same whichever frame the model was solved in.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { DOMParser, type Element } from "@xmldom/xmldom";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { IDENTITY_ROTATION, mapSparsePoints, mapViews } from "../../../compute/scene/index.js";
import { measureModel, OVERLAP_COLOURS, run, type ControlResidual, type Input, type QualityFigures } from "../../../compute/stages/quality-report/index.js";
import { uncertaintyOf } from "../../../compute/stages/quality-report/figures.js";
import { adjusted, expectedCount, makeSurvey } from "./synthetic.js";

const HOSTILE = `<script>alert("x")</script> & 'q'`;
const generated = makeSurvey(0.5, 3, ["DJI_0001.JPG", "DJI_0002.JPG", `DJI_0003 ${HOSTILE}.JPG`, "DJI_0004.JPG"]);
const survey = { ...generated, model: adjusted(generated) };
const COVARIANCE = { refineFocal: false, refineDistortion: false, loss: "squared" as const };
const measures = measureModel(survey.model, survey.features, { covariance: COVARIANCE });

const control: ControlResidual[] = [
  { name: "GCP-A", role: "control", used: true, dx: 0.01, dy: -0.02, dz: 0.03, reprojectionPx: 0.4, marks: 4 },
  { name: "GCP-B", role: "control", used: true, dx: -0.01, dy: 0.02, dz: -0.01, marks: 3 },
  { name: "GCP-C", role: "control", used: false, reason: `marked in 1 photo ${HOSTILE}`, dx: 0.5, dy: 0.5, dz: 0.5, marks: 1 },
  { name: "CHK-D", role: "check", used: true, dx: 0.05, dy: 0, dz: -0.04, marks: 4 },
  { name: "CHK-E", role: "check", used: true, dx: -0.03, dy: 0.04, dz: 0.02, reprojectionPx: 0.7, marks: 2 },
];

const input: Input = {
  job: {
    files: 6, images: 5, wallMs: 754_000,
    skipped: [{ name: "notes.txt", reason: "not an image" }],
    unregistered: [{ name: "DJI_0005.JPG", reason: "too few matches" }],
    notRun: [],
  },
  model: survey.model,
  images: survey.images,
  measures,
  georeference: { crs: "EPSG:32632", offset: [500000, 5000000, 0], source: "gps", modelToTarget: survey.modelToTarget, gsdM: 0.1 },
  control,
  title: "Survey of field 7",
};

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

function parseStrict(html: string) {
  const errors: string[] = [];
  const doc = new DOMParser({ onError: (level, message) => errors.push(`${level}: ${message}`) }).parseFromString(html, "text/xml");
  return { doc, errors };
}

function elements(doc: ReturnType<typeof parseStrict>["doc"]): Element[] {
  return Array.from(doc.getElementsByTagName("*")) as Element[];
}

function at(figures: QualityFigures, figurePath: string): unknown {
  return figurePath.split(".").reduce<unknown>((value, key) => (value as Record<string, unknown>)?.[key], figures);
}

describe("quality-report", () => {
  it("maps the photos over each ground cell: the PNG decodes to the known count's colour in every cell", async () => {
    // The generated model, not the adjusted one: its ground spans exactly [−7, 7]² m.
    const out = await run({ ...input, model: generated.model }, { extentPercentile: 0 });
    expect(out.overlap.cellSize).toBeCloseTo(1, 9);
    expect([out.overlap.width, out.overlap.height]).toEqual([14, 14]);
    expect(out.overlap.westX).toBeCloseTo(-7, 6);
    expect(out.overlap.northZ).toBeCloseTo(-7, 6);
    const { data, info } = await sharp(out.overlapPng).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, info.channels]).toEqual([14, 14, 3]);
    const wrong: string[] = [];
    for (let r = 0; r < 14; r++) {
      for (let c = 0; c < 14; c++) {
        const expected = OVERLAP_COLOURS[expectedCount(-6.5 + c, -6.5 + r)];
        const got = Array.from(data.subarray(3 * (14 * r + c), 3 * (14 * r + c) + 3));
        if (got.join() !== expected.join()) wrong.push(`row ${r} col ${c}: ${got} ≠ ${expected}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(out.figures.overlap.cellsByPhotos).toEqual([0, 64, 96, 0, 36, 0]);
    expect(out.figures.summary.areaM2).toBeCloseTo(196, 6);
    expect(out.figures.units).toBe("m");
  });

  it("writes well-formed, self-contained HTML with every section, the figures it was given, and its strings escaped", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "quality-report-"));
    dirs.push(dir);
    const out = await run(input, { outDir: dir });
    expect(out.file).toBe(path.join(dir, "report.html"));
    expect(await readFile(out.file!, "utf8")).toBe(out.html);
    const { doc, errors } = parseStrict(out.html);
    expect(errors).toEqual([]);
    const all = elements(doc);
    const ids = all.filter((e) => e.tagName === "section").map((e) => e.getAttribute("id"));
    expect(ids).toEqual(["summary", "overlap", "calibration", "reprojection", "uncertainty", "control", "left-out"]);
    // Nothing to fetch or run: no script, no stylesheet link, every src and href inline.
    expect(all.filter((e) => ["script", "link", "iframe", "object"].includes(e.tagName))).toEqual([]);
    for (const e of all) {
      for (const name of ["src", "href", "xlink:href"]) {
        const value = e.getAttribute(name);
        if (value) expect(value, `${e.tagName} ${name}`).toMatch(/^(data:|#)/);
      }
    }
    expect(out.html).not.toMatch(/(src|href)\s*=\s*["']?\s*https?:/i);
    expect(out.html).not.toMatch(/url\(/i);
    // The hostile photo name and reason come back as text, not markup.
    const text = doc.documentElement!.textContent!;
    expect(text).toContain(`DJI_0003 ${HOSTILE}.JPG`);
    expect(text).toContain(`marked in 1 photo ${HOSTILE}`);
    expect(out.html).not.toContain("<script>");
    for (const name of ["GCP-A", "GCP-B", "GCP-C", "CHK-D", "CHK-E", "EPSG:32632", "notes.txt", "not an image", "DJI_0005.JPG", "too few matches", "Survey of field 7"]) expect(text).toContain(name);
    // A4 print rules and page breaks between sections.
    expect(out.html).toMatch(/@page\s*{\s*size:\s*A4/);
    expect(out.html).toMatch(/break-before:\s*page/);
    // The overlap map inside is the PNG returned.
    const img = all.find((e) => e.tagName === "img")!;
    expect(img.getAttribute("src")).toBe(`data:image/png;base64,${out.overlapPng.toString("base64")}`);
    expect(all.some((e) => e.tagName === "svg")).toBe(true);
    // The lenient HTML parser reads it too.
    const html = new DOMParser().parseFromString(out.html, "text/html");
    expect(html.getElementsByTagName("section").length).toBe(7);
  });

  it("shows exactly the JSON figures: every data-figure's value is the figures' value at its path", async () => {
    const out = await run(input);
    const json = JSON.parse(JSON.stringify(out.figures)) as QualityFigures;
    const shown = elements(parseStrict(out.html).doc).filter((e) => e.hasAttribute("data-figure"));
    const paths = shown.map((e) => e.getAttribute("data-figure")!);
    for (const required of ["summary.photosUsed", "summary.photosTotal", "summary.gsdM", "summary.areaM2", "summary.crs", "summary.offset.0", "summary.processingMs",
      "overlap.cellsByPhotos.4", "calibration.0.before.focal", "calibration.0.after.focal", "reprojection.rmsPx", "reprojection.meanPx",
      "uncertainty.median.eastM", "uncertainty.max.upM", "uncertainty.perPhoto.3.northM", "control.rmse.control.horizontalM", "control.rmse.check.threeDM", "control.points.4.dz"]) {
      expect(paths).toContain(required);
    }
    for (const e of shown) {
      const value = at(json, e.getAttribute("data-figure")!);
      expect(value, e.getAttribute("data-figure")!).not.toBeUndefined();
      expect(e.getAttribute("data-value"), e.getAttribute("data-figure")!).toBe(String(value));
    }
    expect(json.summary).toMatchObject({ photosUsed: 4, photosTotal: 5, gsdM: 0.1, crs: "EPSG:32632", offset: [500000, 5000000, 0], processingMs: 754_000 });
    expect(json.calibration).toHaveLength(1);
    expect(json.calibration[0]).toMatchObject({ photos: 4, before: { focal: 90, cx: 50, cy: 50, k1: 0, k2: 0 }, after: { focal: 100 } });
    expect(json.leftOut.map((l) => `${l.kind}:${l.name}`)).toEqual(["input:notes.txt", "photo:DJI_0005.JPG", "control:GCP-C"]);
  });

  it("gives each role's RMSE over its used points", async () => {
    const { figures } = await run(input);
    const { control: c, check } = figures.control!.rmse;
    expect(c!.count).toBe(2);
    expect(c!.horizontalM).toBeCloseTo(Math.sqrt(0.0005), 12);
    expect(c!.verticalM).toBeCloseTo(Math.sqrt(0.0005), 12);
    expect(c!.threeDM).toBeCloseTo(Math.sqrt((0.0014 + 0.0006) / 2), 12);
    expect(c!.eastM).toBeCloseTo(0.01, 12);
    expect(check!.count).toBe(2);
    expect(check!.horizontalM).toBeCloseTo(0.05, 12);
    expect(check!.verticalM).toBeCloseTo(Math.sqrt(0.001), 12);
    expect(check!.threeDM).toBeCloseTo(Math.sqrt(0.0035), 12);
    expect(figures.control!.points[4].horizontalM).toBeCloseTo(0.05, 12);
  });

  it("measures the reprojection error of the noisy keypoints and camera σ that do not depend on the model's frame", () => {
    const rms = Math.sqrt(Array.from(measures.observationErrorsPx).reduce((s, e) => s + e * e, 0) / measures.observationErrorsPx.length);
    // 0.5 px per axis: the 2D error's RMS is 0.5·√2 less what the adjustment absorbed (the redundancy's share).
    const c = measures.covariance!;
    const share = Math.sqrt(c.redundancy / (2 * measures.observationErrorsPx.length));
    expect(rms).toBeGreaterThan(0.9 * 0.5 * Math.SQRT2 * share);
    expect(rms).toBeLessThan(1.1 * 0.5 * Math.SQRT2 * share);
    expect(measures.covariance!.gauge).toBe("inner-constraints");
    // At the least-squares solution σ₀ estimates the keypoints' noise.
    expect(measures.covariance!.sigma0).toBeGreaterThan(0.45);
    expect(measures.covariance!.sigma0).toBeLessThan(0.55);
    const inModel = uncertaintyOf(survey.model, measures, survey.modelToTarget)!;
    // The same survey solved in the target frame itself (metres, x east, y up, z south).
    const inTarget = { ...survey.model, views: mapViews(survey.modelToTarget, survey.model.views), points: mapSparsePoints(survey.modelToTarget, survey.model.points) };
    const direct = uncertaintyOf(inTarget, measureModel(inTarget, survey.features, { covariance: COVARIANCE }), { R: IDENTITY_ROTATION, s: 1, t: new Float64Array(3) })!;
    inModel.perPhoto.forEach((p, i) => {
      for (const k of ["eastM", "northM", "upM"] as const) expect(p[k] / direct.perPhoto[i][k], `${p.name} ${k}`).toBeCloseTo(1, 6);
    });
    // In the target frame east is x, up is y and north is −z.
    const targetMeasures = measureModel(inTarget, survey.features, { covariance: COVARIANCE });
    direct.perPhoto.forEach((p, i) => {
      const m = targetMeasures.covariance!.perView.subarray(9 * i, 9 * i + 9);
      expect(p.eastM).toBeCloseTo(Math.sqrt(m[0]), 12);
      expect(p.upM).toBeCloseTo(Math.sqrt(m[4]), 12);
      expect(p.northM).toBeCloseTo(Math.sqrt(m[8]), 12);
      expect(p.eastM).toBeGreaterThan(0);
    });
    expect(inModel.median.eastM).toBeGreaterThan(0);
  });

  it("says what it left out and why when the model has no georeference, no measures and no control", async () => {
    const out = await run({ job: { ...input.job, georeferenceRefused: "the GPS fixes spread 3.0 m and scatter 2.0 m" }, model: generated.model, images: generated.images, measures: null, georeference: null });
    expect(out.figures.units).toBe("model units");
    expect(out.figures.summary).toMatchObject({ gsdM: null, crs: null, offset: null, georeferenceSource: null });
    expect(out.figures.reprojection).toBeNull();
    expect(out.figures.uncertainty).toBeNull();
    expect(out.figures.control).toBeNull();
    expect(out.figures.leftOut.map((l) => `${l.kind}:${l.name}:${l.reason}`)).toEqual([
      "input:notes.txt:not an image",
      "photo:DJI_0005.JPG:too few matches",
      "section:georeference:the GPS fixes spread 3.0 m and scatter 2.0 m",
      "section:reprojection error:not measured for this job",
      "section:camera position uncertainty:not measured for this job",
      "section:control and checkpoints:no control points or checkpoints were given",
    ]);
    // Without a GSD the cell follows the extent: at most maxMapPixels cells a side.
    expect(Math.max(out.overlap.width, out.overlap.height)).toBeLessThanOrEqual(512);
    expect(out.figures.summary.areaM2).toBeGreaterThan(0);
    const { doc, errors } = parseStrict(out.html);
    expect(errors).toEqual([]);
    expect(doc.documentElement!.textContent).toContain("the GPS fixes spread 3.0 m and scatter 2.0 m");
    expect(elements(doc).filter((e) => e.tagName === "section")).toHaveLength(7);
  });
});
