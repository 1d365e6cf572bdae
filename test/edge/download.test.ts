import { describe, expect, it } from "vitest";
import { DownloadRecord } from "../../shared/records.js";
import { FORMATS } from "../../shared/formats.js";
import { createAccount, env, keyHeaders, request } from "./helpers.js";
import { completeWithOutputs, createReconstruction, reconstructionStub } from "./reconstruction-support.js";

const download = (id: string, format: string, apiKey: string) => request(`/v1/reconstruction/${id}/download/${format}`, { headers: keyHeaders(apiKey) });

describe("GET /v1/reconstruction/{id}/download/{file-type}", () => {
  it("gives a signed, expiring CDN link with the file size for each produced format", async () => {
    const { account, id } = await createReconstruction();
    const sizes = { obj: 31, ply: 32, gltf: 33, glb: 34, stl: 35, las: 36, colmap: 37, transforms: 38, ortho: 39, dsm: 40, report: 41 };
    await completeWithOutputs(id, sizes);
    for (const format of FORMATS) {
      const before = Date.now();
      const res = await download(id, format, account.apiKey);
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toContain("application/json");
      const body = DownloadRecord.parse(await res.json());
      expect(body).toMatchObject({ format, file_size: sizes[format] });
      expect(body.download_url.startsWith(`${env.CDN_URL}/${id}/${format}?expires=`)).toBe(true);
      expect(body.download_url).toMatch(/&sig=[0-9a-f]{64}$/);
      const after = Date.now();
      // Expiry is whole Unix seconds: DOWNLOAD_TTL_SECONDS (900) after the request, rounded down.
      const expiresSeconds = Date.parse(body.expires_at) / 1000;
      expect(expiresSeconds).toBeGreaterThanOrEqual(Math.floor(before / 1000) + 900);
      expect(expiresSeconds).toBeLessThanOrEqual(Math.floor(after / 1000) + 900);
      expect(new URL(body.download_url).searchParams.get("expires")).toBe(String(Date.parse(body.expires_at) / 1000));
    }
  });

  it("applies 404, then 400 unsupported_format, then 409", async () => {
    const { account, id } = await createReconstruction();
    const stranger = await createAccount(1);
    // Another account's id with a bad format: 404 wins, and looks like an unknown id.
    const foreign = await download(id, "fbx", stranger.apiKey);
    const unknown = await download("rec_BBBBBBBBBBBBBBBBBBBBBBBB", "fbx", stranger.apiKey);
    expect([foreign.status, unknown.status]).toEqual([404, 404]);
    expect(await foreign.text()).toBe(await unknown.text());
    // The owner, pending, bad format: 400 before 409.
    const bad = await download(id, "fbx", account.apiKey);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: "unsupported_format" } });
    // Pending: 409 naming the status.
    const pending = await download(id, "glb", account.apiKey);
    expect(pending.status).toBe(409);
    const pendingBody = (await pending.json()) as { error: { code: string; message: string } };
    expect(pendingBody.error.code).toBe("not_ready");
    expect(pendingBody.error.message).toContain("pending");
    await reconstructionStub(id).start(1);
    const processing = (await (await download(id, "glb", account.apiKey)).json()) as { error: { code: string; message: string } };
    expect(processing.error).toMatchObject({ code: "not_ready" });
    expect(processing.error.message).toContain("processing");
  });

  it("answers 409 reconstruction_failed for a failed reconstruction", async () => {
    const { account, id } = await createReconstruction();
    await reconstructionStub(id).fail({ attempt: 1, code: "no_usable_images", message: "All images were blurred.", suggestion: "Retake." });
    const res = await download(id, "glb", account.apiKey);
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: { code: "reconstruction_failed" } });
  });

  it("answers 401 before anything else", async () => {
    const res = await request(`/v1/reconstruction/rec_BBBBBBBBBBBBBBBBBBBBBBBB/download/fbx`);
    expect(res.status).toBe(401);
  });
});
