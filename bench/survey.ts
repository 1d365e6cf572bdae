/**
 * @module `npm run bench -- survey [--photos=30] [--width=400] [--quality=standard] [--tus]`: a
 * survey through the public API on the real stack on loopback (test/e2e/system.ts: wrangler dev
 * and one compute process), as a surveyor's client sends it (issue 41).
 *
 * A rendered drone flight with painted targets and consumer GPS in its EXIF (survey-scene.ts,
 * survey-targets.ts) is uploaded with the SDK, its control points as OpenDroneMap's
 * gcp_list.txt in `WGS84 UTM 32N` (eastings, northings, ellipsoidal heights; four of the nine
 * named as checkpoints). Once completed, the LAS, GLB, ortho, DSM and report are downloaded and
 * checked against the status record's `georeference`: the LAS's WKT names its EPSG code and its
 * points lie around the targets' UTM coordinates; geotiff.js reads the GeoTIFFs' code; GDAL's
 * `gdalinfo` (Debian's gdal-bin, installed by apt-get when root and missing) reads both, and its
 * warnings and errors are printed and counted, and GDAL's COG validator judges them. Prints the
 * job's time per stage from the JSON report (`survey`: the ortho and DSM). Writes
 * bench/out/survey.json.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { fromFile } from "geotiff";
import { PhotogrammetryClient } from "../clients/typescript/src/index.js";
import { epsgEntry, transformBetween, WGS84_GEOGRAPHIC } from "../compute/pipeline/crs.js";
import { createAccount } from "../test/e2e/client.js";
import { startSystem } from "../test/e2e/system.js";
import { encodeJpeg } from "../test/support/fixtures.js";
import { renderDefinedView } from "../test/support/render.js";
import { SURVEY_FOCAL_35MM, SURVEY_FOCAL_WIDTHS, SURVEY_METRES_PER_UNIT, surveyCapture, surveyGps } from "../test/support/survey-scene.js";
import { geographicOf, surveyTargets, targetMarks, targetPrimitives } from "../test/support/survey-targets.js";
import { ensureDebianTool, runs } from "./debian-tool.js";

const run$ = promisify(execFile);
const repoRoot = path.resolve(fileURLToPath(import.meta.url), "../..");
const SEED = 23;
const UTM_32N = 32632;
const FORMATS = ["las", "glb", "ortho", "dsm", "report"] as const;

function option(args: string[], name: string, fallback: string): string {
  return args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
}

/** Renders the flight into `dir` and writes its gcp_list.txt; returns the photo paths and the gcp file. */
async function renderSurvey(dir: string, photos: number, width: number): Promise<{ files: string[]; gcpFile: string; checkpoints: string[]; targetsUtm: Array<[number, number, number]> }> {
  const height = Math.round((width * 3) / 4);
  const targets = surveyTargets(photos, SEED);
  const capture = surveyCapture(photos, SEED, height / width, targetPrimitives(targets));
  const files: string[] = [];
  for (let i = 0; i < photos; i++) {
    const view = renderDefinedView(capture.def, i, { width, height, seed: SEED, prefix: "survey", supersample: 1 });
    const exif = { make: "Bench", model: "Drone", focalLength35mm: SURVEY_FOCAL_35MM, ...surveyGps(capture.def.cameras[i].eye, i, SEED) };
    const file = path.join(dir, `${view.name}.jpg`);
    await writeFile(file, await encodeJpeg(Buffer.from(view.rgb), width, height, exif, 92));
    files.push(file);
  }
  const marks = targetMarks(capture.def, targets, width, height, SEED);
  const toUtm = transformBetween(WGS84_GEOGRAPHIC, epsgEntry(UTM_32N)!.proj4);
  const targetsUtm = targets.map((t) => toUtm(geographicOf(t.scene)));
  const lines = ["WGS84 UTM 32N"];
  targets.forEach((target, k) => {
    const [e, n, h] = targetsUtm[k];
    for (const m of marks[k]) lines.push(`${e.toFixed(3)} ${n.toFixed(3)} ${h.toFixed(3)} ${m.x.toFixed(2)} ${m.y.toFixed(2)} ${path.basename(files[m.imageIndex])} ${target.name}`);
  });
  const gcpFile = path.join(dir, "gcp_list.txt");
  await writeFile(gcpFile, `${lines.join("\n")}\n`);
  return { files, gcpFile, checkpoints: targets.filter((t) => t.role === "check").map((t) => t.name), targetsUtm };
}

/** The LAS file's coordinate system VLR (LASF_Projection 2112, OGC WKT) and its bounds (LAS 1.4 header). */
function lasFacts(bytes: Buffer): { wkt: string | null; min: [number, number, number]; max: [number, number, number]; points: number } {
  const headerSize = bytes.readUInt16LE(94);
  const vlrCount = bytes.readUInt32LE(100);
  let at = headerSize;
  let wkt: string | null = null;
  for (let v = 0; v < vlrCount; v++) {
    const user = bytes.toString("latin1", at + 2, at + 18).replace(/\0+$/, "");
    const record = bytes.readUInt16LE(at + 18);
    const length = bytes.readUInt16LE(at + 20);
    if (user === "LASF_Projection" && record === 2112) wkt = bytes.toString("utf8", at + 54, at + 54 + length).replace(/\0+$/, "");
    at += 54 + length;
  }
  const d = (o: number) => bytes.readDoubleLE(o);
  return { wkt, max: [d(179), d(195), d(211)], min: [d(187), d(203), d(219)], points: Number(bytes.readBigUInt64LE(247)) };
}

/** `gdalinfo` when it runs, after apt-get installs gdal-bin when root; null when it cannot. */
async function gdalinfo(): Promise<string | null> {
  return (await ensureDebianTool("gdal-bin", runs("gdalinfo", ["--version"]))) ? "gdalinfo" : null;
}

/**
 * gdalinfo's report of `file`: whether it names `epsg`, every warning or error line it printed,
 * and the verdict of GDAL's own COG validator (validate_cloud_optimized_geotiff.py, which
 * gdal-bin's python3-gdal brings) when it runs.
 */
async function gdalCheck(file: string, epsg: number): Promise<{ namesCode: boolean; problems: string[]; version: string; cog: string }> {
  const { stdout, stderr } = await run$("gdalinfo", ["-json", file], { maxBuffer: 1 << 26 });
  const { stdout: version } = await run$("gdalinfo", ["--version"]);
  const info = JSON.parse(stdout) as { coordinateSystem?: { wkt?: string } };
  const wkt = info.coordinateSystem?.wkt ?? "";
  const problems = stderr.split("\n").filter((l) => /warning|error/i.test(l));
  const cog = await run$("/usr/bin/python3", ["-m", "osgeo_utils.samples.validate_cloud_optimized_geotiff", file]).then(
    ({ stdout: out }) => (/is a valid cloud optimized GeoTIFF/i.test(out) ? "valid" : out.trim().replace(/\s+/g, " ").slice(0, 300)),
    (e: { stdout?: string; stderr?: string }) => `not a valid COG: ${(e.stdout || e.stderr || "").trim().replace(/\s+/g, " ").slice(0, 300)}`,
  );
  return { namesCode: wkt.includes(`ID["EPSG",${epsg}]`) || wkt.includes(`AUTHORITY["EPSG","${epsg}"]`), problems, version: version.trim(), cog };
}

export async function run(args: string[]): Promise<void> {
  const photos = Number(option(args, "photos", "30"));
  const width = Number(option(args, "width", "400"));
  const quality = option(args, "quality", "standard") as "preview" | "standard" | "high";
  const upload = args.includes("--tus") ? "tus" : "multipart";
  const dir = await mkdtemp(path.join(os.tmpdir(), "bench-survey-"));
  const system = await startSystem();
  try {
    const rendered = await renderSurvey(dir, photos, width);
    const gsdM = SURVEY_METRES_PER_UNIT / (SURVEY_FOCAL_WIDTHS * width);
    console.log(`rendered ${photos} photos ${width} px (GSD ${gsdM.toFixed(3)} m), gcp_list.txt in WGS84 UTM 32N, checkpoints ${rendered.checkpoints.join(",")}`);
    const account = await createAccount(system.baseUrl, system.adminToken, 10);
    const client = new PhotogrammetryClient({ baseUrl: system.baseUrl, apiKey: account.apiKey });
    const started = performance.now();
    const created = await client.createReconstruction(rendered.files, { quality, gcp: rendered.gcpFile, checkpoints: rendered.checkpoints, upload });
    const status = await client.waitFor(created.id, { intervalMs: 2000 });
    const wallS = (performance.now() - started) / 1000;
    const georeference = status.georeference;
    console.log(`${created.id}: ${status.status} in ${wallS.toFixed(1)} s (${upload}, ${quality}); georeference ${JSON.stringify(georeference)}; formats ${status.formats?.map((f) => f.format).join(",")}`);
    if (!georeference) throw new Error("the status record has no georeference");
    const code = Number(/^EPSG:(\d+)$/.exec(georeference.crs)?.[1]);
    const report = await client.report(created.id);
    const rmse = report.survey?.control?.rmse;
    const line = (r: { count: number; horizontal_m: number; vertical_m: number } | null | undefined) => (r ? `${r.horizontal_m.toFixed(3)} m h, ${r.vertical_m.toFixed(3)} m v over ${r.count}` : "none");
    console.log(`  JSON report: georeference ${JSON.stringify(report.georeference)}; GSD ${report.survey?.summary.gsd_m?.toFixed(3) ?? "-"} m; control RMSE ${line(rmse?.control)}; checkpoint RMSE ${line(rmse?.check)}`);
    console.log(`  stages (wall s): ${report.stages.map((s) => `${s.stage} ${s.wall_seconds.toFixed(1)}`).join(", ")}; job ${report.wall_seconds.toFixed(1)} s`);
    const out = path.join(dir, "out");
    await mkdir(out);
    const paths: Record<string, string> = {};
    for (const format of FORMATS) {
      paths[format] = path.join(out, `model.${format === "ortho" || format === "dsm" ? `${format}.tif` : format === "report" ? "report.html" : format}`);
      await client.download(created.id, format, paths[format]);
      console.log(`  downloaded ${format.padEnd(6)} ${((await stat(paths[format])).size / 2 ** 20).toFixed(2)} MiB`);
    }
    const las = lasFacts(await readFile(paths.las));
    const mean = [0, 1, 2].map((a) => rendered.targetsUtm.reduce((s, t) => s + t[a], 0) / rendered.targetsUtm.length);
    const lasCentre = [0, 1].map((a) => (las.min[a] + las.max[a]) / 2);
    const lasNamesCode = las.wkt !== null && (las.wkt.includes(`AUTHORITY["EPSG","${code}"]`) || las.wkt.includes(`ID["EPSG",${code}]`));
    console.log(`  LAS: ${las.points} points, WKT ${lasNamesCode ? `names EPSG:${code}` : "DOES NOT name the status record's code"}; centre ${lasCentre.map((v) => v.toFixed(1)).join(", ")} against the targets' ${mean.slice(0, 2).map((v) => v.toFixed(1)).join(", ")} (${Math.hypot(lasCentre[0] - mean[0], lasCentre[1] - mean[1]).toFixed(1)} m apart)`);
    const glb = await readFile(paths.glb);
    const gltf = JSON.parse(glb.toString("utf8", 20, 20 + glb.readUInt32LE(12))) as { nodes?: Array<{ name?: string; extras?: Record<string, unknown> }> };
    console.log(`  GLB: root node ${JSON.stringify(gltf.nodes?.[0]?.name)}, extras ${JSON.stringify(gltf.nodes?.[0]?.extras)}`);
    const rasters: Record<string, unknown> = {};
    const gdal = await gdalinfo();
    for (const format of ["ortho", "dsm"] as const) {
      const image = await (await fromFile(paths[format])).getImage(0);
      const keyCode = image.getGeoKeys()?.ProjectedCSTypeGeoKey;
      const gdalFacts = gdal ? await gdalCheck(paths[format], code) : null;
      rasters[format] = { geotiffJsCode: keyCode, width: image.getWidth(), height: image.getHeight(), resolution: image.getResolution(), gdal: gdalFacts };
      console.log(`  ${format}: geotiff.js reads ${image.getWidth()}×${image.getHeight()} at ${Math.abs(image.getResolution()[0]).toFixed(3)} m, EPSG ${keyCode} (${keyCode === code ? "agrees" : "DISAGREES"})${gdalFacts ? `; ${gdalFacts.version}: ${gdalFacts.namesCode ? `names EPSG:${code}` : "DOES NOT name the code"}, ${gdalFacts.problems.length} warnings/errors${gdalFacts.problems.length ? `: ${gdalFacts.problems.join(" | ")}` : ""}; COG validator: ${gdalFacts.cog}` : "; gdalinfo not available"}`);
    }
    const html = await readFile(paths.report, "utf8");
    const named = ["C1", "C2", "C3", "C4", "C5", "K1", "K2", "K3", "K4"].filter((n) => html.includes(n));
    console.log(`  report: ${(html.length / 1024).toFixed(0)} KiB of HTML naming ${named.length}/9 points, ${/(src|href)="https?:/.test(html) ? "WITH" : "no"} outside links`);
    const summary = { photos, width, quality, upload, gsdM, wallS, georeference, reportGeoreference: report.georeference, rmse, stages: report.stages.map((s) => ({ stage: s.stage, wallS: s.wall_seconds })), las: { points: las.points, namesCode: lasNamesCode, centreOffsetM: Math.hypot(lasCentre[0] - mean[0], lasCentre[1] - mean[1]) }, rasters, reportNames: named.length, commit: (await run$("git", ["rev-parse", "--short", "HEAD"], { cwd: repoRoot })).stdout.trim() };
    await mkdir(path.join(repoRoot, "bench", "out"), { recursive: true });
    await writeFile(path.join(repoRoot, "bench", "out", "survey.json"), JSON.stringify(summary, null, 2));
  } catch (err) {
    console.log(system.logs().slice(-4000));
    throw err;
  } finally {
    await system.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
