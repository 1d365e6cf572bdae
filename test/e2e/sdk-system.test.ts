/**
 * The SDK against the real system (wrangler dev + compute on loopback): a rendered photo set
 * created through a proxy that loses the first attempt, followed with waitFor, downloaded to
 * files; one credit taken. Also the typed errors a user meets first.
 */
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError, PhotogrammetryClient, defaultFileName, type StatusRecord, type UploadProgress } from "../../clients/typescript/src/index.js";
import { renderScene, writeViewsAsImages } from "../support/render.js";
import { createAccount, type Api } from "./client.js";
import { faultyProxy, type FaultyProxy } from "./sdk-support.js";
import { startSystem, type RunningSystem } from "./system.js";

let system: RunningSystem;
let dir: string;
let photos: string[];
let proxy: FaultyProxy;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "sdk-e2e-"));
  const scene = renderScene({ scene: "object", views: 8, width: 320, height: 240, seed: 7, stepDegrees: 12 });
  photos = await writeViewsAsImages(scene.views, path.join(dir, "photos"));
  system = await startSystem();
}, 240_000);

afterAll(async () => {
  await proxy?.close();
  await system?.stop();
  await rm(dir, { recursive: true, force: true });
});

const clientOf = (api: Api, baseUrl = api.baseUrl) => new PhotogrammetryClient({ apiKey: api.apiKey, baseUrl, retry: { baseDelayMs: 100 } });

describe("SDK against the real stack", () => {
  it("creates through a lost first attempt, waits with progress, downloads; one credit", async () => {
    const api = await createAccount(system.baseUrl, system.adminToken, 3);
    proxy = await faultyProxy(system.baseUrl, 1);
    const client = clientOf(api, proxy.url);
    const uploads: UploadProgress[] = [];
    const created = await client.createReconstruction(photos, { quality: "preview", onUploadProgress: (p) => uploads.push(p) });
    expect(proxy.createKeys).toHaveLength(2);
    expect(proxy.createKeys[1]).toBe(proxy.createKeys[0]);
    expect(created.files_uploaded).toBe(photos.length);
    const total = (await Promise.all(photos.map((p) => stat(p)))).reduce((a, s) => a + s.size, 0);
    expect(uploads.at(-1)).toMatchObject({ sentBytes: total, totalBytes: total });

    const seen: StatusRecord[] = [];
    const done = await client.waitFor(created.id, { intervalMs: 500, timeoutMs: 600_000, onProgress: (s) => seen.push(s) });
    expect(done.status).toBe("completed");
    expect(seen.some((s) => s.status === "processing" && s.stage !== null)).toBe(true);
    for (let i = 1; i < seen.length; i++) expect(seen[i].progress).toBeGreaterThanOrEqual(seen[i - 1].progress);

    for (const format of ["glb", "obj"] as const) {
      const target = path.join(dir, "out", defaultFileName(created.id, format));
      const record = await client.download(created.id, format, target);
      const bytes = await readFile(target);
      expect(bytes.length).toBe(record.file_size);
      expect(bytes.subarray(0, 4).toString("latin1")).toBe(format === "glb" ? "glTF" : "PK\u0003\u0004");
    }
    const report = await client.report(created.id);
    expect(report).toMatchObject({ id: created.id, status: "completed", images: photos.length });
    expect(report.stages.map((s) => s.stage)).toEqual(expect.arrayContaining(["ingest", "sfm", "export"]));
    expect((await client.account()).balance).toBe(2);
  }, 900_000);

  // The server did the work and the answer was lost: the retry with the same Idempotency-Key
  // gets the first reconstruction back (server idempotency), charged once.
  it("retries a create whose answer was lost with the same key and gets the first answer again, charged once", async () => {
    const api = await createAccount(system.baseUrl, system.adminToken, 3);
    const lossy = await faultyProxy(system.baseUrl, 1, "drop-response");
    try {
      const created = await clientOf(api, lossy.url).createReconstruction(photos.slice(0, 2), { quality: "preview" });
      expect(lossy.createKeys).toHaveLength(2);
      expect(lossy.createKeys[1]).toBe(lossy.createKeys[0]);
      const account = await clientOf(api).account();
      expect(account.usage.reconstructions).toBe(1);
      expect(created.id).toMatch(/^rec_/);
    } finally {
      await lossy.close();
    }
  });

  it("creates through tus uploads and the JSON creation against the real server, then cancels (refund) and deletes", async () => {
    const api = await createAccount(system.baseUrl, system.adminToken, 2);
    const client = clientOf(api);
    const uploads: UploadProgress[] = [];
    const created = await client.createReconstruction(photos.slice(0, 3), { upload: "tus", quality: "preview", onUploadProgress: (p) => uploads.push(p) });
    expect(created.files_uploaded).toBe(3);
    const total = (await Promise.all(photos.slice(0, 3).map((p) => stat(p)))).reduce((a, s) => a + s.size, 0);
    expect(uploads.at(-1)).toMatchObject({ sentBytes: total, totalBytes: total });
    expect((await client.account()).balance).toBe(1);
    const cancelled = await client.cancel(created.id);
    expect(cancelled).toMatchObject({ status: "failed", error: { code: "cancelled" } });
    expect((await client.account()).balance).toBe(2);
    await client.delete(created.id);
    await expect(client.get(created.id)).rejects.toMatchObject({ status: 404, code: "not_found" });
  }, 120_000);

  it("throws typed errors with the API's codes", async () => {
    const api = await createAccount(system.baseUrl, system.adminToken, 0);
    const client = clientOf(api);
    await expect(client.createReconstruction(photos.slice(0, 1))).rejects.toMatchObject({ status: 402, code: "insufficient_credits" });
    await expect(client.get("rec_000000000000000000000000")).rejects.toMatchObject({ status: 404, code: "not_found" });
    const stranger = new PhotogrammetryClient({ apiKey: "pk_live_nope", baseUrl: system.baseUrl });
    const error = await stranger.account().catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe("invalid_api_key");
  });
});
