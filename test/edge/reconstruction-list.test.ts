/** GET /v1/reconstructions and GET /v1/reconstruction/{id}/report (with a survey's figures), through the real Worker. */
import { describe, expect, it } from "vitest";
import type { ReconstructionPage, ReportRecord } from "../../shared/listing.js";
import { reportKey } from "../../shared/storage-keys.js";
import { createAccount, env, keyHeaders, request } from "./helpers.js";
import { completeWithOutputs, createReconstruction, reconstructionStub } from "./reconstruction-support.js";

async function list(apiKey: string, query = ""): Promise<ReconstructionPage> {
  const res = await request(`/v1/reconstructions${query}`, { headers: keyHeaders(apiKey) });
  expect(res.status).toBe(200);
  return (await res.json()) as ReconstructionPage;
}

/** The shape compute's pipeline writes (compute/pipeline/report.ts), trimmed to a small scene. */
function computeReport(error?: { code: string; message: string; suggestion: string }) {
  return {
    quality: "standard", sparseOnly: false, startedAt: "2026-11-25T10:00:00.000Z", finishedAt: "2026-11-25T10:01:10.000Z", wallMs: 70000,
    files: 4, images: 3, registered: 2,
    skipped: [{ name: "notes.png", reason: "could not decode" }],
    unregistered: [{ name: "blurry.jpg", reason: "too few 2D-3D matches (12)" }],
    otherModelSizes: [], notRun: [],
    stages: [
      { stage: "ingest", wallMs: 1500, counts: { files: 4, images: 3 }, perImage: [{ name: "notes.png", skipped: true, reason: "could not decode" }, { name: "a.jpg", kind: "jpeg", width: 800 }, { name: "b.jpg", kind: "jpeg" }, { name: "blurry.jpg", kind: "jpeg" }], warnings: [] },
      { stage: "sfm", wallMs: 2500, counts: { registered: 2, points: 900, meanReprojectionErrorPx: 0.4 }, perImage: [{ name: "a.jpg", registered: true }, { name: "b.jpg", registered: true }, { name: "blurry.jpg", registered: false, reason: "too few 2D-3D matches (12)" }], warnings: [] },
    ],
    outputs: [],
    ...(error ? { error } : {}),
  };
}

/** report.json's georeference and qualityReport of a GPS-and-control survey (compute/pipeline/report.ts, compute/stages/quality-report/types.ts). */
function surveyParts() {
  const georeference = { crs: "EPSG:32632", offset: [500000, 5000000, 0], source: "control", gsdM: 0.012, gpsFixes: 2 };
  const intrinsics = (focal: number, k1: number) => ({ focal, cx: 400, cy: 300, k1, k2: 0 });
  const qualityReport = {
    units: "m",
    summary: { photosUsed: 2, photosTotal: 3, files: 4, gsdM: 0.012, areaM2: 1250.5, crs: "EPSG:32632", offset: [500000, 5000000, 0], georeferenceSource: "control", processingMs: 70000, points: 900 },
    overlap: { cellSizeM: 0.5, width: 40, height: 30, westX: -10, northZ: -7.5, cellsByPhotos: [700, 200, 150, 100, 50, 0], fiveOrMoreShare: 0 },
    calibration: [{ camera: "Camera 1 (800 × 600)", photos: 2, width: 800, height: 600, priorSource: "exif35mm", before: intrinsics(700, 0), after: intrinsics(712.5, -0.02) }],
    reprojection: { observations: 1800, meanPx: 0.4, rmsPx: 0.5, medianPx: 0.35, histogram: { binPx: 0.1, counts: [0, 0, 0, 1, 1] }, perPhoto: [{ name: "a.jpg", observations: 900, meanPx: 0.4, rmsPx: 0.5 }] },
    uncertainty: {
      gauge: "control", inverse: "dense", sigma0Px: 0.6,
      median: { eastM: 0.01, northM: 0.02, upM: 0.03 }, max: { eastM: 0.02, northM: 0.03, upM: 0.05 },
      perPhoto: [{ name: "a.jpg", eastM: 0.01, northM: 0.02, upM: 0.03 }, { name: "b.jpg", eastM: 0.02, northM: 0.03, upM: 0.05 }],
    },
    control: {
      points: [
        { name: "C1", role: "control", used: true, dx: 0.01, dy: -0.02, dz: 0.03, reprojectionPx: 0.7, marks: 2, horizontalM: 0.0224, threeDM: 0.0374 },
        { name: "K1", role: "check", used: false, reason: "marked in one photo", dx: 0, dy: 0, dz: 0, marks: 1, horizontalM: 0, threeDM: 0 },
      ],
      rmse: { control: { count: 1, eastM: 0.01, northM: 0.02, horizontalM: 0.0224, verticalM: 0.03, threeDM: 0.0374 }, check: null },
    },
    leftOut: [{ kind: "control", name: "K1", reason: "marked in one photo" }],
    warnings: ["only one checkpoint"],
  };
  return { georeference, qualityReport };
}

describe("GET /v1/reconstructions", () => {
  it("lists the caller's reconstructions newest first, in pages joined by next_cursor", async () => {
    const account = await createAccount(5);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createReconstruction(account)).id);
    const first = await list(account.apiKey, "?limit=2");
    expect(first.data.map((r) => r.id)).toEqual([ids[2], ids[1]]);
    expect(first.data[0]).toMatchObject({ status: "pending", progress: 0, total_files: 2 });
    expect(first.next_cursor).toMatch(/^c/);
    const second = await list(account.apiKey, `?limit=2&cursor=${first.next_cursor}`);
    expect(second.data.map((r) => r.id)).toEqual([ids[0]]);
    expect(second.next_cursor).toBeNull();
    expect((await list(account.apiKey)).data).toHaveLength(3);
  });

  it("filters by status, confirming each record's state with its object", async () => {
    const account = await createAccount(5);
    const done = (await createReconstruction(account)).id;
    const failed = (await createReconstruction(account)).id;
    const waiting = (await createReconstruction(account)).id;
    await completeWithOutputs(done, { glb: 100 });
    await reconstructionStub(failed).fail({ attempt: 1, code: "not_enough_overlap", message: "m", suggestion: "s" });
    expect((await list(account.apiKey, "?status=completed")).data.map((r) => r.id)).toEqual([done]);
    expect((await list(account.apiKey, "?status=failed")).data.map((r) => r).map((r) => [r.id, r.credit_refunded])).toEqual([[failed, true]]);
    expect((await list(account.apiKey, "?status=pending")).data.map((r) => r.id)).toEqual([waiting]);
    expect((await list(account.apiKey, "?status=processing")).data).toEqual([]);
    // A filtered page that must skip non-matching candidates still pages correctly.
    const page = await list(account.apiKey, "?status=completed&limit=1");
    expect(page).toEqual({ data: [expect.objectContaining({ id: done })], next_cursor: null });
  });

  it("shows a cancelled reconstruction as failed (cancelled) and leaves a deleted one out", async () => {
    const account = await createAccount(5);
    const kept = (await createReconstruction(account)).id;
    const cancelled = (await createReconstruction(account)).id;
    const deleted = (await createReconstruction(account)).id;
    const cancel = (id: string) => request(`/v1/reconstruction/${id}/cancel`, { method: "POST", headers: keyHeaders(account.apiKey) });
    expect((await cancel(cancelled)).status).toBe(200);
    expect((await cancel(deleted)).status).toBe(200);
    expect((await request(`/v1/reconstruction/${deleted}`, { method: "DELETE", headers: keyHeaders(account.apiKey) })).status).toBe(204);
    const all = await list(account.apiKey);
    expect(all.data.map((r) => [r.id, r.status, r.error?.code ?? null])).toEqual([[cancelled, "failed", "cancelled"], [kept, "pending", null]]);
    expect(all.next_cursor).toBeNull();
    expect((await list(account.apiKey, "?status=failed")).data.map((r) => r.id)).toEqual([cancelled]);
    // A page whose candidate row is the deleted one still fills from older rows and ends cleanly.
    const first = await list(account.apiKey, "?limit=1");
    expect(first.data.map((r) => r.id)).toEqual([cancelled]);
    const second = await list(account.apiKey, `?limit=1&cursor=${first.next_cursor}`);
    expect(second).toEqual({ data: [expect.objectContaining({ id: kept })], next_cursor: null });
  });

  it("never shows another account's reconstructions", async () => {
    const owner = await createAccount(2);
    await createReconstruction(owner);
    const other = await createAccount(2);
    expect(await list(other.apiKey)).toEqual({ data: [], next_cursor: null });
  });

  it.each([["?limit=0"], ["?limit=101"], ["?limit=abc"], ["?status=done"], ["?cursor=xyz"], ["?page=2"]])("refuses %s with 400 invalid_request", async (query) => {
    const account = await createAccount(1);
    const res = await request(`/v1/reconstructions${query}`, { headers: keyHeaders(account.apiKey) });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "invalid_request" } });
    expect(res.headers.get("RateLimit-Policy")).not.toBeNull();
  });

  it("answers 401 without a key, with the rate-limit headers", async () => {
    const res = await request("/v1/reconstructions");
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: "missing_api_key" } });
    expect(res.headers.get("X-RateLimit-Limit")).not.toBeNull();
  });
});

describe("GET /v1/reconstruction/{id}/report", () => {
  it("answers 409 not_ready while the reconstruction runs", async () => {
    const { account, id } = await createReconstruction();
    const res = await request(`/v1/reconstruction/${id}/report`, { headers: keyHeaders(account.apiKey) });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: { code: "not_ready" } });
  });

  it("gives per input registered or not with the reason, and per stage wall seconds and counts", async () => {
    const { account, id } = await createReconstruction();
    await env.BUCKET.put(reportKey(id), JSON.stringify(computeReport()));
    await completeWithOutputs(id, { glb: 64 });
    const res = await request(`/v1/reconstruction/${id}/report`, { headers: keyHeaders(account.apiKey) });
    expect(res.status).toBe(200);
    const report = (await res.json()) as ReportRecord;
    expect(report).toMatchObject({ id, status: "completed", wall_seconds: 70, images: 3, registered: 2 });
    expect(report.inputs).toEqual([
      { file: "a.jpg", kind: "jpeg", registered: true, reason: null },
      { file: "b.jpg", kind: "jpeg", registered: true, reason: null },
      { file: "blurry.jpg", kind: "jpeg", registered: false, reason: "too few 2D-3D matches (12)" },
      { file: "notes.png", kind: null, registered: false, reason: "skipped: could not decode" },
    ]);
    expect(report.stages).toEqual([
      { stage: "ingest", wall_seconds: 1.5, counts: { files: 4, images: 3 } },
      { stage: "sfm", wall_seconds: 2.5, counts: { registered: 2, points: 900, meanReprojectionErrorPx: 0.4 } },
    ]);
  });

  it("carries a georeferenced survey's georeference and quality figures in snake_case", async () => {
    const { account, id } = await createReconstruction();
    await env.BUCKET.put(reportKey(id), JSON.stringify({ ...computeReport(), ...surveyParts() }));
    await completeWithOutputs(id, { glb: 64 });
    const res = await request(`/v1/reconstruction/${id}/report`, { headers: keyHeaders(account.apiKey) });
    expect(res.status).toBe(200);
    const report = (await res.json()) as ReportRecord;
    expect(report.georeference).toEqual({ crs: "EPSG:32632", offset: [500000, 5000000, 0] });
    const intrinsics = (focal: number, k1: number) => ({ focal, cx: 400, cy: 300, k1, k2: 0 });
    expect(report.survey).toEqual({
      units: "m",
      summary: { photos_used: 2, photos_total: 3, gsd_m: 0.012, area_m2: 1250.5, crs: "EPSG:32632", offset: [500000, 5000000, 0], georeference_source: "control" },
      overlap: { cell_size_m: 0.5, cells_by_photos: [700, 200, 150, 100, 50, 0], five_or_more_share: 0 },
      calibration: [{ camera: "Camera 1 (800 × 600)", photos: 2, width: 800, height: 600, prior_source: "exif35mm", before: intrinsics(700, 0), after: intrinsics(712.5, -0.02) }],
      reprojection: { observations: 1800, mean_px: 0.4, rms_px: 0.5, median_px: 0.35 },
      uncertainty: {
        gauge: "control", sigma0_px: 0.6,
        median: { east_m: 0.01, north_m: 0.02, up_m: 0.03 }, max: { east_m: 0.02, north_m: 0.03, up_m: 0.05 },
        per_photo: [{ name: "a.jpg", east_m: 0.01, north_m: 0.02, up_m: 0.03 }, { name: "b.jpg", east_m: 0.02, north_m: 0.03, up_m: 0.05 }],
      },
      control: {
        points: [
          { name: "C1", role: "control", used: true, dx_m: 0.01, dy_m: -0.02, dz_m: 0.03, horizontal_m: 0.0224, three_d_m: 0.0374, reprojection_px: 0.7, marks: 2 },
          { name: "K1", role: "check", used: false, reason: "marked in one photo", dx_m: 0, dy_m: 0, dz_m: 0, horizontal_m: 0, three_d_m: 0, marks: 1 },
        ],
        rmse: { control: { count: 1, horizontal_m: 0.0224, vertical_m: 0.03, three_d_m: 0.0374 }, check: null },
      },
      warnings: ["only one checkpoint"],
    });
  });

  it("gives neither georeference nor survey for a model in its own frame", async () => {
    const { account, id } = await createReconstruction();
    await env.BUCKET.put(reportKey(id), JSON.stringify(computeReport()));
    await completeWithOutputs(id, { glb: 64 });
    const report = (await (await request(`/v1/reconstruction/${id}/report`, { headers: keyHeaders(account.apiKey) })).json()) as ReportRecord;
    expect(report.registered).toBe(2);
    expect(report).not.toHaveProperty("georeference");
    expect(report).not.toHaveProperty("survey");
  });

  it("leaves out a survey that cannot be read, or a torn georeference, and answers the rest", async () => {
    const { account, id } = await createReconstruction();
    const { georeference, qualityReport } = surveyParts();
    const cases: Array<[string, Record<string, unknown>, boolean]> = [
      ["a missing section", { ...qualityReport, overlap: undefined }, true],
      ["a string for a number", { ...qualityReport, summary: { ...qualityReport.summary, photosUsed: "two" } }, true],
      ["a NaN written as null", { ...qualityReport, uncertainty: { ...qualityReport.uncertainty, sigma0Px: null } }, true],
      ["a negative length", { ...qualityReport, summary: { ...qualityReport.summary, areaM2: -1 } }, true],
      ["not an object", "figures" as unknown as Record<string, unknown>, true],
      ["a torn georeference", qualityReport, false],
    ];
    await completeWithOutputs(id, { glb: 64 });
    for (const [label, figures, keepGeoreference] of cases) {
      const torn = keepGeoreference ? georeference : { crs: "EPSG:32632", offset: [1, 2] };
      await env.BUCKET.put(reportKey(id), JSON.stringify({ ...computeReport(), georeference: torn, qualityReport: figures }));
      const res = await request(`/v1/reconstruction/${id}/report`, { headers: keyHeaders(account.apiKey) });
      expect(res.status, label).toBe(200);
      const report = (await res.json()) as ReportRecord;
      expect(report, label).toMatchObject({ id, status: "completed", wall_seconds: 70, images: 3, registered: 2 });
      expect(report.inputs, label).toHaveLength(4);
      expect(report.stages.map((s) => s.stage), label).toEqual(["ingest", "sfm"]);
      if (keepGeoreference) {
        expect(report.georeference, label).toEqual({ crs: "EPSG:32632", offset: [500000, 5000000, 0] });
        expect(report, label).not.toHaveProperty("survey");
      } else {
        expect(report, label).not.toHaveProperty("georeference");
        expect(report.survey?.summary.photos_used, label).toBe(2);
      }
    }
  });

  it("explains images of a run that failed before registration", async () => {
    const { account, id } = await createReconstruction();
    const failure = { code: "not_enough_overlap", message: "m", suggestion: "s" };
    const raw = computeReport(failure);
    raw.stages = raw.stages.filter((s) => s.stage !== "sfm");
    await env.BUCKET.put(reportKey(id), JSON.stringify(raw));
    await reconstructionStub(id).fail({ attempt: 1, ...failure });
    const report = (await (await request(`/v1/reconstruction/${id}/report`, { headers: keyHeaders(account.apiKey) })).json()) as ReportRecord;
    expect(report.status).toBe("failed");
    expect(report.inputs[0]).toEqual({ file: "a.jpg", kind: "jpeg", registered: false, reason: "the run stopped before camera registration (not_enough_overlap)" });
  });

  it("answers 404 for another account's id, and for a terminal reconstruction without a report", async () => {
    const { account, id } = await createReconstruction();
    await env.BUCKET.put(reportKey(id), JSON.stringify(computeReport()));
    await completeWithOutputs(id, { glb: 64 });
    const stranger = await createAccount(1);
    const foreign = await request(`/v1/reconstruction/${id}/report`, { headers: keyHeaders(stranger.apiKey) });
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toMatchObject({ error: { code: "not_found" } });
    const bare = await createReconstruction(account);
    await reconstructionStub(bare.id).fail({ attempt: 1, code: "dispatch_failed", message: "m", suggestion: "s" });
    const missing = await request(`/v1/reconstruction/${bare.id}/report`, { headers: keyHeaders(account.apiKey) });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: "not_found" } });
  });
});

describe("OpenAPI", () => {
  it("documents both endpoints and their records", async () => {
    const doc = (await (await request("/v1/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };
    expect(Object.keys(doc.paths["/v1/reconstructions"])).toEqual(["get"]);
    expect(Object.keys(doc.paths["/v1/reconstruction/{id}/report"])).toEqual(["get"]);
    expect(doc.components.schemas).toHaveProperty("ReconstructionPage");
    expect(doc.components.schemas).toHaveProperty("ReportRecord");
    expect(doc.components.schemas).toHaveProperty("SurveyReport");
    const report = doc.components.schemas.ReportRecord as { properties: Record<string, { $ref?: string; description?: string }>; required: string[] };
    expect(report.properties.georeference).toMatchObject({ $ref: "#/components/schemas/Georeference" });
    expect(report.properties.survey).toMatchObject({ $ref: "#/components/schemas/SurveyReport", description: expect.stringContaining("accuracy report") });
    expect(report.required).not.toContain("survey");
  });
});
