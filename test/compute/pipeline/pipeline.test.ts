/**
 * The whole pipeline, sparse only, on 6 rendered views (preview preset): monotone progress ending at 100,
 * report.json with every stage and per-image registration, and the sparse model files.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { NodeIO } from "@gltf-transform/core";
import { KHRMaterialsUnlit } from "@gltf-transform/extensions";
import { unzipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { downloadFileName } from "../../../shared/formats.js";
import { KeptFrontWorkers } from "../../../compute/pipeline/front-pool.js";
import { runPipeline, type PipelineResult, type ProgressEvent } from "../../../compute/pipeline/index.js";
import { PipelineError } from "../../../compute/scene/index.js";
import { encodeJpeg } from "../../support/fixtures.js";
import { renderScene } from "../../support/render.js";

const WIDTH = 640;
const HEIGHT = 480;

describe("runPipeline (sparse only)", () => {
  let dir = "";
  let files: Array<{ path: string; name: string }> = [];
  const events: ProgressEvent[] = [];
  let result: PipelineResult;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "pipeline-"));
    const scene = renderScene({ scene: "object", views: 6, width: WIDTH, height: HEIGHT, seed: 9 });
    for (const view of scene.views) {
      const file = path.join(dir, `${view.name}.jpg`);
      await writeFile(file, await encodeJpeg(Buffer.from(view.rgb), WIDTH, HEIGHT, { focalLength35mm: Math.round((view.K[0] * 43.27) / Math.hypot(WIDTH, HEIGHT)) }));
      files.push({ path: file, name: `${view.name}.jpg` });
    }
    result = await runPipeline({ files, workDir: path.join(dir, "work"), outDir: path.join(dir, "out"), quality: "preview", sparseOnly: true, onProgress: (e) => events.push(e) });
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reports monotone progress through the stages, ending at 100 with every file processed", () => {
    const values = events.map((e) => e.progress);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThanOrEqual(values[i - 1]);
    expect(values[values.length - 1]).toBe(100);
    expect(values.slice(0, -1).every((v) => v < 100)).toBe(true);
    expect([...new Set(events.map((e) => e.stage))]).toEqual(["ingest", "features", "matching", "sfm", "export"]);
    expect(events[events.length - 1].filesProcessed).toBe(6);
  });

  it("writes report.json with each stage and every image either registered or listed with a reason", async () => {
    const report = JSON.parse(await readFile(path.join(dir, "out/report.json"), "utf8"));
    expect(report.stages.map((s: { stage: string }) => s.stage)).toEqual(["ingest", "features", "matching", "keypoints", "sfm", "export"]);
    for (const s of report.stages) expect(s.wallMs).toBeGreaterThan(0);
    expect(report.images).toBe(6);
    expect(report.files).toBe(6);
    // The smooth rendered texture gives preview's detector few keypoints: at least the seed
    // pair registers, and whatever does not is accounted for with a reason.
    expect(report.registered).toBeGreaterThanOrEqual(2);
    expect(report.registered + report.unregistered.length).toBe(6);
    for (const u of report.unregistered) expect(u.reason.length).toBeGreaterThan(0);
    const sfmReport = report.stages.find((s: { stage: string }) => s.stage === "sfm");
    expect(sfmReport.perImage).toHaveLength(6);
    expect(sfmReport.perImage.filter((p: { registered: boolean }) => p.registered)).toHaveLength(report.registered);
    expect(result.report.registered).toBe(report.registered);
  });

  it("writes the sparse model as model.glb and model.ply, and the cameras as colmap and transforms", async () => {
    expect(result.outputs.map((o) => o.format).sort()).toEqual(["colmap", "glb", "ply", "transforms"]);
    for (const output of result.outputs) {
      expect(path.basename(output.path)).toBe(downloadFileName("model", output.format));
      expect((await stat(output.path)).size).toBe(output.bytes);
      expect(output.bytes).toBeGreaterThan(1000);
    }
  });

  it("the colmap cameras of a real SfM run sit where the glb's camera nodes are, with tracks in points3D", async () => {
    const file = (format: string) => readFile(result.outputs.find((o) => o.format === format)!.path);
    const doc = await new NodeIO().registerExtensions([KHRMaterialsUnlit]).readBinary(await file("glb"));
    const nodes = new Map(doc.getRoot().listNodes().filter((n) => n.getCamera()).map((n) => [n.getName(), n.getTranslation()]));
    const zip = unzipSync(await file("colmap"));
    const lines = new TextDecoder().decode(zip["images.txt"]).split("\n").filter((l) => !l.startsWith("#"));
    const imageLines = lines.filter((_, i) => i % 2 === 0 && lines[i]!.trim() !== "");
    expect(imageLines.length).toBe(nodes.size);
    for (const line of imageLines) {
      const [, qw, qx, qy, qz, tx, ty, tz, , name] = line.split(" ");
      const [w, x, y, z] = [qw, qx, qy, qz].map(Number) as [number, number, number, number];
      // Written out from the quaternion here: R (camFromWorld), then the centre −Rᵀt.
      const R = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
      ];
      const t = [tx, ty, tz].map(Number);
      const centre = [0, 1, 2].map((c) => -(R[0]![c]! * t[0]! + R[1]![c]! * t[1]! + R[2]![c]! * t[2]!));
      const node = nodes.get(name!)!;
      for (let a = 0; a < 3; a++) expect(node[a]).toBeCloseTo(centre[a]!, 4);
    }
    const points = new TextDecoder().decode(zip["points3D.txt"]).split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"));
    expect(points.length).toBeGreaterThan(50);
    // Every track has at least two observations (a triangulated point).
    for (const line of points) expect(line.split(" ").length - 8).toBeGreaterThanOrEqual(4);
    const transforms = JSON.parse((await file("transforms")).toString("utf8"));
    expect(transforms.frames).toHaveLength(nodes.size);
  });

  it("fails with a PipelineError when fewer than two files are images", async () => {
    const junk = path.join(dir, "notes.txt");
    await writeFile(junk, "not an image");
    const run = runPipeline({ files: [files[0], { path: junk, name: "notes.txt" }], workDir: path.join(dir, "work2"), outDir: path.join(dir, "out2"), quality: "preview", sparseOnly: true });
    await expect(run).rejects.toBeInstanceOf(PipelineError);
    await expect(run).rejects.toMatchObject({ code: "no_usable_images" });
  });

  it("runs on front workers kept from an earlier job, alike, and does not keep workers whose heap grew past the limit", async () => {
    const kept = new KeptFrontWorkers();
    try {
      const job = (n: number, front: KeptFrontWorkers) => runPipeline({ files, workDir: path.join(dir, `work-kept${n}`), outDir: path.join(dir, `out-kept${n}`), quality: "preview", sparseOnly: true, front });
      const first = await job(1, kept);
      expect(kept.kept).toBe(true);
      const workers = kept.acquire(2);
      await kept.release(workers);
      expect(kept.acquire(2)).toBe(workers); // the same loaded threads, not new ones
      await kept.release(workers);
      const second = await job(2, kept);
      expect(kept.kept).toBe(true);
      const keypoints = (r: PipelineResult) => r.report.stages.find((s) => s.stage === "features")?.counts.keypoints;
      expect(keypoints(second)).toBe(keypoints(first));
      expect(keypoints(second)).toBe(keypoints(result));
      expect(second.report.registered).toBe(first.report.registered);
      // Every OpenCV.js heap is larger than one byte: these workers are closed after their job.
      const strict = new KeptFrontWorkers(1);
      await job(3, strict);
      expect(strict.kept).toBe(false);
    } finally {
      await kept.close();
    }
  }, 120_000);
});
