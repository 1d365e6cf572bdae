/**
 * The whole system as a client sees it: wrangler dev (workerd) + the compute process on free
 * loopback ports, an account from the operator API, uploads of images (multipart) and of a video
 * the test makes itself (tus-js-client, interrupted and resumed), polling to `completed`, and the
 * six files through their signed links.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// A reconstruction without a georeference offers the model formats (no ortho, dsm or report).
import { MODEL_FORMATS as FORMATS } from "../../shared/formats.js";
import { renderScene, writeViewsAsImages } from "../support/render.js";
import { encodeMp4 } from "../support/fixtures.js";
import { createAccount, getJson, pollUntilDone, upload, type Api, type StatusBody } from "./client.js";
import { startSystem, type RunningSystem } from "./system.js";
import { resume, tusOptions, uploadHalf } from "./tus-client.js";
import { checkFile } from "./validate.js";

let system: RunningSystem;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "e2e-inputs-"));
  // A short watchdog so the kill test finishes in test time.
  system = await startSystem({ vars: { WATCHDOG_PROCESSING_SECONDS: "20", WATCHDOG_PENDING_SECONDS: "60" } });
}, 180_000);

afterAll(async () => {
  await system?.stop();
  await rm(dir, { recursive: true, force: true });
});

function expectMonotone(seen: StatusBody[]): void {
  for (let i = 1; i < seen.length; i++) expect(seen[i].progress).toBeGreaterThanOrEqual(seen[i - 1].progress);
}

async function downloadAll(api: Api, id: string): Promise<void> {
  for (const format of FORMATS) {
    const { status, body } = await getJson<{ download_url: string; file_size: number; format: string }>(api, `/v1/reconstruction/${id}/download/${format}`);
    expect(status, `download record for ${format}`).toBe(200);
    const res = await fetch(body.download_url);
    expect(res.status, `bytes of ${format}`).toBe(200);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(bytes.byteLength).toBe(body.file_size);
    const check = await checkFile(format, bytes);
    expect(check.ok, `${format}: ${check.detail}`).toBe(true);
  }
}

async function balance(api: Api): Promise<number> {
  return (await getJson<{ balance: number }>(api, "/v1/account")).body.balance;
}

describe("end to end", () => {
  it("reconstructs a photo set the test renders, and serves a valid file per format", async () => {
    const scene = renderScene({ scene: "object", views: 8, width: 320, height: 240, seed: 7, stepDegrees: 12 });
    const files = await writeViewsAsImages(scene.views, path.join(dir, "photos"));
    const api = await createAccount(system.baseUrl, system.adminToken, 3);
    const res = await upload(api, files, { quality: "preview" });
    expect(res.status, await res.clone().text()).toBe(202);
    const created = (await res.json()) as { id: string; files_uploaded: number };
    expect(created.files_uploaded).toBe(files.length);
    const seen = await pollUntilDone(api, created.id, 600_000);
    const last = seen.at(-1)!;
    expect(last.status, JSON.stringify(last.error)).toBe("completed");
    expect(last.progress).toBe(100);
    expectMonotone(seen);
    expect(last.formats?.map((f) => f.format).sort()).toEqual([...FORMATS].sort());
    await downloadAll(api, created.id);
    expect(await balance(api)).toBe(2);
  }, 900_000);

  it("reconstructs a short video sent by tus-js-client, interrupted halfway and resumed from a fresh client", async () => {
    const scene = renderScene({ scene: "object", views: 16, width: 320, height: 240, seed: 11, stepDegrees: 6 });
    const videoPath = path.join(dir, "orbit.mp4");
    await encodeMp4(scene.views.map((v) => Buffer.from(v.rgb)), 320, 240, 8, videoPath);
    const video = await readFile(videoPath);
    const api = await createAccount(system.baseUrl, system.adminToken, 1);
    const options = tusOptions(api, path.join(dir, "tus-urls.json"), video.length, { filename: "orbit.mp4", filetype: "video/mp4" });
    const tusHead = () => fetch(url, { method: "HEAD", headers: { Authorization: `Bearer ${api.apiKey}`, "Tus-Resumable": "1.0.0" } });

    const url = await uploadHalf(video, options);
    const offset = Number((await tusHead()).headers.get("Upload-Offset"));
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThan(video.length);
    const resumed = await resume(video, options);
    expect(resumed.url).toBe(url);
    expect(resumed.resumedFrom).toBeGreaterThanOrEqual(offset);
    const { body: uploadRecord } = await getJson<{ complete: boolean; kind: string; upload_length: number }>(api, new URL(url).pathname);
    expect(uploadRecord).toMatchObject({ complete: true, kind: "mp4", upload_length: video.length });

    const res = await fetch(`${api.baseUrl}/v1/reconstruction`, {
      method: "POST",
      headers: { Authorization: `Bearer ${api.apiKey}`, "Content-Type": "application/json" },
      body: JSON.stringify({ uploads: [url.split("/").pop()], quality: "preview" }),
    });
    expect(res.status, await res.clone().text()).toBe(202);
    const { id, files_uploaded } = (await res.json()) as { id: string; files_uploaded: number };
    expect(files_uploaded).toBe(1);
    const seen = await pollUntilDone(api, id, 600_000);
    const last = seen.at(-1)!;
    expect(last.status, JSON.stringify(last.error)).toBe("completed");
    expectMonotone(seen);
    await downloadAll(api, id);
    // The upload became the reconstruction's input: its URL is gone.
    expect((await tusHead()).status).toBe(404);
    // Both jobs ran in the pipeline thread compute started ahead of the first, with its front
    // workers kept loaded in between.
    const health = (await (await fetch(`${system.computeUrl}/healthz`)).json()) as { pipeline_threads: { started: number; waiting: number } };
    expect(health.pipeline_threads).toEqual({ started: 1, waiting: 1 });
  }, 900_000);

  it("ends a job whose compute process is killed mid-job, once, with one debit", async () => {
    const scene = renderScene({ scene: "object", views: 8, width: 320, height: 240, seed: 5, stepDegrees: 12 });
    const files = await writeViewsAsImages(scene.views, path.join(dir, "kill"));
    const api = await createAccount(system.baseUrl, system.adminToken, 2);
    const res = await upload(api, files, { quality: "preview" });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    // Wait until compute has started, then kill it without warning and bring it back.
    const deadline = Date.now() + 120_000;
    for (;;) {
      const { body } = await getJson<StatusBody>(api, `/v1/reconstruction/${id}/status`);
      if (body.status === "processing" || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    await system.killCompute("SIGKILL");
    await new Promise((r) => setTimeout(r, 2000));
    await system.startCompute();
    const seen = await pollUntilDone(api, id, 600_000);
    const last = seen.at(-1)!;
    expectMonotone(seen);
    expect(["completed", "failed"]).toContain(last.status);
    if (last.status === "completed") {
      expect(await balance(api)).toBe(1); // one debit, no refund
    } else {
      expect(last.error?.code).toBeTruthy();
      expect(last.credit_refunded).toBe(true);
      expect(await balance(api)).toBe(2);
    }
  }, 900_000);
});
