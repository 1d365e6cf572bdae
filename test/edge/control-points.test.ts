/**
 * The pure parts of the survey contract, run in workerd (where the edge reads them): coordinate
 * systems (shared/crs.ts), gcp_list.txt parsing and grouping, the JSON form and the checks
 * against the upload (shared/control-points.ts), and the displayed JPEG size (edge/uploads/sniff.ts).
 */
import { describe, expect, it } from "vitest";
import { resolveCrs, resolveProjectedMetres } from "../../shared/crs.js";
import { DEFAULT_ACCURACY, checkAgainstImages, gcpPoints, jsonPoints, parseGcpList, type ImageFacts } from "../../shared/control-points.js";
import { ControlPoints } from "../../shared/control-points.js";
import { jpegDisplayedSize, jpegOrientation } from "../../edge/uploads/sniff.js";
import { jpeg, jpegWithOrientation } from "./upload-fixtures.js";

describe("resolveCrs", () => {
  it("reads an EPSG code through proj4-list, projected in metres", () => {
    const result = resolveCrs(" EPSG:32632 ");
    expect(result).toMatchObject({ ok: true, crs: { input: "EPSG:32632", epsg: 32632, geographic: false, units: "m" } });
    if (result.ok) expect(result.crs.proj4).toContain("+proj=utm +zone=32");
  });

  it("reads EPSG:4326 as geographic, in degrees", () => {
    expect(resolveCrs("epsg:4326")).toMatchObject({ ok: true, crs: { epsg: 4326, geographic: true, units: "degrees" } });
  });

  it("maps WGS84 UTM <zone><N|S> to EPSG:326xx / 327xx", () => {
    expect(resolveCrs("WGS84 UTM 32N")).toMatchObject({ ok: true, crs: { epsg: 32632, input: "WGS84 UTM 32N" } });
    expect(resolveCrs("WGS84 UTM 7S")).toMatchObject({ ok: true, crs: { epsg: 32707 } });
    expect(resolveCrs("WGS84 UTM 61N")).toMatchObject({ ok: false, reason: expect.stringContaining("zone 61") });
  });

  it("reads a PROJ string with proj4, and tells its units", () => {
    expect(resolveCrs("+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs")).toMatchObject({ ok: true, crs: { geographic: false, units: "m" } });
    expect(resolveCrs("+proj=longlat +datum=WGS84 +no_defs")).toMatchObject({ ok: true, crs: { geographic: true } });
    expect(resolveCrs("EPSG:2263")).toMatchObject({ ok: true, crs: { units: "us-ft" } });
  });

  it("refuses what it cannot read, with a reason", () => {
    for (const text of ["", "UTM32", "EPSG:999999", "+proj=nonsense", "EPSG:4978"]) {
      const result = resolveCrs(text);
      expect(result.ok, text).toBe(false);
      if (!result.ok) expect(result.reason.length).toBeGreaterThan(5);
    }
  });

  it("accepts only projected systems in metres as an output system", () => {
    expect(resolveProjectedMetres("EPSG:32632").ok).toBe(true);
    expect(resolveProjectedMetres("EPSG:2056").ok).toBe(true);
    expect(resolveProjectedMetres("EPSG:4326")).toMatchObject({ ok: false, reason: expect.stringContaining("geographic") });
    expect(resolveProjectedMetres("EPSG:2263")).toMatchObject({ ok: false, reason: expect.stringContaining("us-ft") });
  });
});

const GCP_TEXT = [
  "\uFEFF# surveyed 2026-11-20",
  "EPSG:32632",
  "",
  "500010.5 5000020.25 301.2 100 200 a.jpg p1",
  "500010.5\t5000020.25\t301.2\t110\t210\tb.jpg\tp1\textra",
  "500100 5000100 299 300 400 a.jpg",
  "500100 5000100 299 320 420 c.jpg",
  "# a comment between marks",
  "500200 5000000 305 50 60 b.jpg p3",
].join("\r\n");

describe("parseGcpList and gcpPoints", () => {
  it("reads the header and every mark line with its line number; groups by name, else by coordinates", () => {
    const parsed = parseGcpList(GCP_TEXT);
    expect(parsed.problems).toEqual([]);
    expect(parsed.header).toEqual({ text: "EPSG:32632", line: 2 });
    expect(parsed.lines.map((l) => [l.line, l.image, l.name])).toEqual([
      [4, "a.jpg", "p1"],
      [5, "b.jpg", "p1"],
      [6, "a.jpg", undefined],
      [7, "c.jpg", undefined],
      [9, "b.jpg", "p3"],
    ]);
    const grouped = gcpPoints(parsed.header!.text, parsed.lines, ["p3"]);
    expect(grouped.problems).toEqual([]);
    const value = ControlPoints.parse(grouped.located!.value);
    expect(value.crs).toBe("EPSG:32632");
    expect(value.points.map((p) => [p.name, p.role, p.marks.length])).toEqual([
      ["p1", "control", 2],
      ["gcp1", "control", 2],
      ["p3", "check", 1],
    ]);
    expect(value.points[0]).toMatchObject({ coordinates: [500010.5, 5000020.25, 301.2], accuracy: DEFAULT_ACCURACY, marks: [{ image: "a.jpg", x: 100, y: 200 }, { image: "b.jpg", x: 110, y: 210 }] });
    expect(grouped.located!.places.marks[1]).toEqual(["line 6", "line 7"]);
  });

  it("names unnamed points gcp1, gcp2, … past the names the file uses", () => {
    const parsed = parseGcpList("EPSG:32632\n1 1 1 4 5 a.jpg\n2 2 2 4 5 a.jpg gcp2\n3 3 3 4 5 a.jpg\n3 3 3 6 7 b.jpg\n");
    expect(gcpPoints("EPSG:32632", parsed.lines, []).located!.value.points.map((p) => [p.name, p.marks.length])).toEqual([["gcp1", 1], ["gcp2", 1], ["gcp3", 2]]);
  });

  it("names each line that does not parse", () => {
    const parsed = parseGcpList("EPSG:32632\n1 2 3 4 5\n1 2 x 4 5 a.jpg\n1 2 3 4 5 a.jpg\n");
    expect(parsed.problems).toEqual([
      { where: "line 2", reason: expect.stringContaining("found 5 fields") },
      { where: "line 3", reason: 'geo_z "x" is not a number' },
    ]);
    expect(parsed.lines).toHaveLength(1);
  });

  it("refuses a named point with two positions, and a checkpoint name the file does not have", () => {
    const parsed = parseGcpList("EPSG:32632\n1 2 3 4 5 a.jpg p\n1 2 4 4 5 b.jpg p\n");
    expect(gcpPoints("EPSG:32632", parsed.lines, ["q"]).problems).toEqual([
      { where: "line 3", reason: expect.stringContaining('point "p" has other coordinates') },
      { where: "checkpoints", reason: '"q" is not the name of a point in the file' },
    ]);
  });
});

describe("jsonPoints", () => {
  const point = (name: string, crs?: string) => ({ name, ...(crs ? { crs } : {}), coordinates: [1, 2, 3] as [number, number, number], marks: [{ image: "a.jpg", x: 1, y: 1 }] });

  it("fills the defaults and takes the system from the top or the points", () => {
    const fromTop = jsonPoints({ crs: "EPSG:32632", points: [point("a")] }, () => true);
    expect(fromTop.located!.value).toEqual({ crs: "EPSG:32632", points: [{ name: "a", role: "control", coordinates: [1, 2, 3], accuracy: DEFAULT_ACCURACY, marks: [{ image: "a.jpg", x: 1, y: 1 }] }] });
    expect(jsonPoints({ points: [point("a", "EPSG:4326"), point("b", "EPSG:4326")] }, (x, y) => x === y).located!.value.crs).toBe("EPSG:4326");
  });

  it("refuses mixed systems, a missing system and a repeated name, naming the point", () => {
    expect(jsonPoints({ crs: "EPSG:32632", points: [point("a"), point("b", "EPSG:4326")] }, (x, y) => x === y).problems).toEqual([
      { where: "points[1].crs", reason: expect.stringContaining("all points must share one") },
    ]);
    expect(jsonPoints({ points: [point("a")] }, () => true).problems).toEqual([{ where: "crs", reason: expect.stringContaining("no coordinate system") }]);
    expect(jsonPoints({ crs: "EPSG:32632", points: [point("a"), point("a")] }, () => true).problems).toEqual([{ where: "points[1].name", reason: expect.stringContaining("also the name of points[0]") }]);
  });
});

describe("checkAgainstImages", () => {
  const images: ImageFacts[] = [
    { name: "a.jpg", video: false, width: 400, height: 300 },
    { name: "b.jpg", video: false, width: 400, height: 300 },
    { name: "c.jpg", video: false },
    { name: "walk.mp4", video: true },
  ];
  const located = (marks: Array<Array<{ image: string; x: number; y: number }>>, roles: Array<"control" | "check"> = []) => ({
    value: { crs: "EPSG:32632", points: marks.map((m, i) => ({ name: `p${i}`, role: roles[i] ?? ("control" as const), coordinates: [i, i, i] as [number, number, number], accuracy: { ...DEFAULT_ACCURACY }, marks: m })) },
    places: { points: marks.map((_, i) => `points[${i}]`), marks: marks.map((m, i) => m.map((_, j) => `points[${i}].marks[${j}]`)) },
  });
  const pair = (x = 10, y = 10) => [{ image: "a.jpg", x, y }, { image: "b.jpg", x, y }];

  it("accepts three control points in two photos each, on the edges included; unknown sizes are not checked", () => {
    expect(checkAgainstImages(located([pair(0, 0), pair(400, 300), [{ image: "a.jpg", x: 5, y: 5 }, { image: "c.jpg", x: 9000, y: 9000 }]]), images)).toEqual([]);
  });

  it("names the mark of an image not in the upload, of a video, and outside its photo", () => {
    expect(checkAgainstImages(located([pair(), pair(), [{ image: "z.jpg", x: 1, y: 1 }, { image: "walk.mp4", x: 1, y: 1 }, { image: "b.jpg", x: 400.5, y: 3 }]]), images)).toEqual([
      { where: "points[2].marks[0]", reason: 'image "z.jpg" is not in the upload' },
      { where: "points[2].marks[1]", reason: '"walk.mp4" is a video; marks go on photos' },
      { where: "points[2].marks[2]", reason: 'the mark (400.5, 3) is outside "b.jpg" (400 × 300 pixels as displayed)' },
    ]);
  });

  it("needs three control points marked in two photos each; checkpoints and single marks do not count", () => {
    const problems = checkAgainstImages(located([pair(), pair(), pair(), [{ image: "a.jpg", x: 1, y: 1 }]], ["control", "control", "check", "control"]), images);
    expect(problems).toEqual([{ where: "control points", reason: expect.stringContaining("2 control points are marked in two or more photos; at least 3") }]);
  });
});

describe("jpegDisplayedSize", () => {
  it("swaps width and height for EXIF orientations 5 to 8, in either byte order", () => {
    expect(jpegOrientation(jpegWithOrientation(4000, 3000, 6))).toBe(6);
    expect(jpegDisplayedSize(jpegWithOrientation(4000, 3000, 6))).toEqual({ width: 3000, height: 4000 });
    expect(jpegDisplayedSize(jpegWithOrientation(4000, 3000, 8, false))).toEqual({ width: 3000, height: 4000 });
    expect(jpegDisplayedSize(jpegWithOrientation(4000, 3000, 3))).toEqual({ width: 4000, height: 3000 });
    expect(jpegDisplayedSize(jpeg(4000, 3000))).toEqual({ width: 4000, height: 3000 });
  });
});
