/** GET /v1/reconstructions and GET /v1/reconstruction/{id}/report, through the real Worker. */
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
  });
});
