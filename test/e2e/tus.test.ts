/**
 * Resumable uploads end to end: tus-js-client (the Node build, unchanged) uploads a video the
 * test encodes to the real Worker in small chunks, is aborted halfway through, and a fresh
 * client finds the stored upload URL (`findPreviousUploads`) and resumes it to the end; a
 * reconstruction created from the upload id then completes and serves its files.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import * as tus from "tus-js-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderScene } from "../support/render.js";
import { encodeMp4 } from "../support/fixtures.js";
import { createAccount, getJson, pollUntilDone, type Api } from "./client.js";
import { startSystem, type RunningSystem } from "./system.js";
import { checkFile } from "./validate.js";

/** The Node build's file-backed URL store; tus-js-client's type declarations leave it out. */
const { FileUrlStorage } = tus as unknown as { FileUrlStorage: new (file: string) => NonNullable<tus.UploadOptions["urlStorage"]> };

let system: RunningSystem;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "e2e-tus-"));
  system = await startSystem();
}, 180_000);

afterAll(async () => {
  await system?.stop();
  await rm(dir, { recursive: true, force: true });
});

function tusOptions(api: Api, storagePath: string, size: number, extra: Partial<tus.UploadOptions> = {}): tus.UploadOptions {
  return {
    endpoint: `${api.baseUrl}/v1/uploads`,
    headers: { Authorization: `Bearer ${api.apiKey}` },
    chunkSize: Math.ceil(size / 8),
    metadata: { filename: "orbit.mp4", filetype: "video/mp4" },
    urlStorage: new FileUrlStorage(storagePath),
    storeFingerprintForResuming: true,
    removeFingerprintOnSuccess: false,
    retryDelays: [],
    ...extra,
  };
}

/** Starts an upload and aborts it (no termination) once at least half of it has been sent. */
function uploadHalf(data: Buffer, options: tus.UploadOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const upload = new tus.Upload(data, {
      ...options,
      onProgress(sent, total) {
        if (sent < total / 2 || !upload.url) return;
        const url = upload.url;
        upload.abort(false).then(() => resolve(url), reject);
      },
      onError: reject,
      onSuccess: () => reject(new Error("the upload finished before it could be interrupted")),
    });
    upload.start();
  });
}

/** A fresh client, as after a restart: finds the stored URL and resumes from the server's offset. */
function resume(data: Buffer, options: tus.UploadOptions): Promise<{ url: string; resumedFrom: number }> {
  return new Promise((resolve, reject) => {
    let resumedFrom = -1;
    const upload = new tus.Upload(data, {
      ...options,
      onProgress(sent) {
        if (resumedFrom < 0) resumedFrom = sent;
      },
      onError: reject,
      onSuccess: () => resolve({ url: upload.url!, resumedFrom }),
    });
    upload.findPreviousUploads().then((previous) => {
      if (previous.length !== 1) return reject(new Error(`expected one stored upload, found ${previous.length}`));
      upload.resumeFromPreviousUpload(previous[0]!);
      upload.start();
    }, reject);
  });
}

describe("tus end to end", () => {
  it("an interrupted tus-js-client upload of a video resumes from a fresh client and becomes a completed reconstruction", async () => {
    const scene = renderScene({ scene: "object", views: 16, width: 320, height: 240, seed: 11, stepDegrees: 6 });
    const videoPath = path.join(dir, "orbit.mp4");
    await encodeMp4(scene.views.map((v) => Buffer.from(v.rgb)), 320, 240, 8, videoPath);
    const video = await readFile(videoPath);
    const api = await createAccount(system.baseUrl, system.adminToken, 1);
    const options = tusOptions(api, path.join(dir, "tus-urls.json"), video.length);

    const url = await uploadHalf(video, options);
    const halfway = await fetch(url, { method: "HEAD", headers: { Authorization: `Bearer ${api.apiKey}`, "Tus-Resumable": "1.0.0" } });
    const offset = Number(halfway.headers.get("Upload-Offset"));
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
    const { body: link } = await getJson<{ download_url: string; file_size: number }>(api, `/v1/reconstruction/${id}/download/glb`);
    const glb = new Uint8Array(await (await fetch(link.download_url)).arrayBuffer());
    expect(glb.byteLength).toBe(link.file_size);
    const check = await checkFile("glb", glb);
    expect(check.ok, check.detail).toBe(true);
    // The upload became the reconstruction's input: its URL is gone.
    expect((await fetch(url, { method: "HEAD", headers: { Authorization: `Bearer ${api.apiKey}`, "Tus-Resumable": "1.0.0" } })).status).toBe(404);
  }, 900_000);
});
