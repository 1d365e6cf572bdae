import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createAccount, env, keyHeaders, request } from "./helpers.js";
import { filler, jpeg, mp4 } from "./upload-fixtures.js";
import { TUS, b64, createUpload, head, patch, patchAll, sha1Base64, storedKeys, uploadIdOf, uploadStub } from "./tus-support.js";
import type { UploadState } from "../../edge/objects/upload-rpc.js";

const MiB = 1024 * 1024;

function video(length: number): Uint8Array {
  const data = filler(length, 11);
  data.set(mp4(0).subarray(0, 64), 0);
  return data;
}

/** Multi-MiB bodies through workerd on a shared 2-core machine take seconds. */
const LARGE = { timeout: 60_000 };

describe("tus at /v1/uploads: happy paths", () => {
  it("OPTIONS tells the protocol, extensions, size limit and checksum algorithms, without a key", async () => {
    const res = await request("/v1/uploads", { method: "OPTIONS" });
    expect(res.status).toBe(204);
    expect(Object.fromEntries(["Tus-Resumable", "Tus-Version", "Tus-Extension", "Tus-Max-Size", "Tus-Checksum-Algorithm"].map((h) => [h, res.headers.get(h)]))).toEqual({
      "Tus-Resumable": "1.0.0",
      "Tus-Version": "1.0.0",
      "Tus-Extension": "creation,termination,checksum,expiration",
      "Tus-Max-Size": env.MAX_VIDEO_BYTES,
      "Tus-Checksum-Algorithm": "sha1,md5,sha256",
    });
    expect(res.headers.get("RateLimit-Policy")).toBeTruthy();
  });

  it("POST creates an upload at an absolute Location; HEAD and GET tell its offset, length and metadata", async () => {
    const account = await createAccount(1);
    const metadata = `filename ${b64("façade 01.jpg")},filetype ${b64("image/jpeg")},empty`;
    const res = await request("/v1/uploads", { method: "POST", headers: keyHeaders(account.apiKey, { ...TUS, "Upload-Length": "1000", "Upload-Metadata": metadata }) });
    expect(res.status).toBe(201);
    const location = res.headers.get("Location")!;
    expect(location).toMatch(new RegExp(`^${env.BASE_URL}/v1/uploads/upl_[A-Za-z0-9_-]{24}$`));
    expect(res.headers.get("Tus-Resumable")).toBe("1.0.0");
    expect(Date.parse(res.headers.get("Upload-Expires")!)).toBeGreaterThan(Date.now() + 23 * 3600 * 1000);
    expect(res.headers.get("X-RateLimit-Limit")).toBeTruthy();
    const path = new URL(location).pathname;
    expect(await res.json()).toMatchObject({ id: uploadIdOf(path), upload_url: location, upload_length: 1000, upload_offset: 0, complete: false, filename: "façade 01.jpg", kind: null });

    const probe = await head(account.apiKey, path);
    expect(probe.status).toBe(200);
    expect(probe.headers.get("Upload-Offset")).toBe("0");
    expect(probe.headers.get("Upload-Length")).toBe("1000");
    expect(probe.headers.get("Upload-Metadata")).toBe(metadata);
    expect(probe.headers.get("Cache-Control")).toBe("no-store");
    expect(probe.headers.get("Tus-Resumable")).toBe("1.0.0");
    expect(await probe.text()).toBe("");
  });

  it("a small image in PATCHes of odd sizes (below the sniffing size too) ends as one object, byte for byte, with no tail left", async () => {
    const account = await createAccount(1);
    const photo = jpeg(1600, 1200, 30_000);
    const path = await createUpload(account.apiKey, photo.length);
    await patchAll(account.apiKey, path, photo.slice(0, 107), [7, 100]);
    const keysMidway = await storedKeys(path);
    const empty = await patch(account.apiKey, path, 107, new Uint8Array(0));
    expect([empty.status, empty.headers.get("Upload-Offset")]).toEqual([204, "107"]);
    expect(await storedKeys(path)).toEqual(keysMidway);
    await patchAll(account.apiKey, path, photo, [4_093, 11_000], 107);
    expect(await storedKeys(path)).toEqual([`uploads/${uploadIdOf(path)}/data`]);
    const stored = await env.BUCKET.get(`uploads/${uploadIdOf(path)}/data`);
    expect(stored!.httpMetadata?.contentType).toBe("image/jpeg");
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(photo);
    const record = await request(path, { headers: keyHeaders(account.apiKey) });
    expect(await record.json()).toMatchObject({ upload_offset: photo.length, complete: true, kind: "jpeg" });
    expect((await uploadStub(path).view(account.accountId))!.pixels).toBe(1600 * 1200);
  });

  it("a video over two R2 parts, sent in PATCHes that straddle part boundaries, is assembled exactly", LARGE, async () => {
    const account = await createAccount(1);
    const data = video(11 * MiB + 12_345);
    const path = await createUpload(account.apiKey, data.length, "walk.mp4");
    await patchAll(account.apiKey, path, data, [MiB + 7, 3 * MiB, Math.floor(4.5 * MiB), 333]);
    const state = (await uploadStub(path).view(account.accountId))!;
    expect(state).toMatchObject({ complete: true, kind: "mp4", offset: data.length });
    expect(state.parts.map((p) => p.partNumber)).toEqual([1, 2, 3]);
    expect(await storedKeys(path)).toEqual([`uploads/${uploadIdOf(path)}/data`]);
    const stored = await env.BUCKET.get(`uploads/${uploadIdOf(path)}/data`);
    expect(stored!.size).toBe(data.length);
    expect(stored!.httpMetadata?.contentType).toBe("video/mp4");
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(data);
  });

  it("a PATCH whose body breaks off keeps the bytes that arrived; HEAD tells where to resume, and the rest completes the file", LARGE, async () => {
    const account = await createAccount(1);
    const data = video(6 * MiB);
    const path = await createUpload(account.apiKey, data.length, "clip.mp4");
    let sent = 0;
    const breaking = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 5.5 * MiB) {
          controller.error(new Error("connection reset"));
          return;
        }
        controller.enqueue(data.slice(sent, sent + 512 * 1024));
        sent += 512 * 1024;
      },
    });
    await patch(account.apiKey, path, 0, breaking).catch(() => undefined);
    const probe = await head(account.apiKey, path);
    const offset = Number(probe.headers.get("Upload-Offset"));
    expect(offset).toBe(sent);
    await patchAll(account.apiKey, path, data, [MiB], offset);
    const stored = await env.BUCKET.get(`uploads/${uploadIdOf(path)}/data`);
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(data);
  });

  it("a PATCH with a matching Upload-Checksum (sha1, md5, sha256) is accepted", async () => {
    const account = await createAccount(1);
    const photo = jpeg(640, 480, 2_000);
    const path = await createUpload(account.apiKey, photo.length);
    const first = photo.slice(0, 1000);
    const res = await patch(account.apiKey, path, 0, first, { "Upload-Checksum": `sha1 ${await sha1Base64(first)}` });
    expect(res.status).toBe(204);
    const middle = photo.slice(1000, 1500);
    const md5 = btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest("MD5", middle))));
    expect((await patch(account.apiKey, path, 1000, middle, { "Upload-Checksum": `md5 ${md5}` })).status).toBe(204);
    const rest = photo.slice(1500);
    const sha256 = btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest("SHA-256", rest))));
    const done = await patch(account.apiKey, path, 1500, rest, { "Upload-Checksum": `sha256 ${sha256}` });
    expect(done.status).toBe(204);
    expect(done.headers.get("Upload-Offset")).toBe(String(photo.length));
  });

  it("DELETE terminates: 204, then 404, and nothing of it is left in R2 (parts, tail, state)", LARGE, async () => {
    const account = await createAccount(1);
    const data = video(7 * MiB);
    const path = await createUpload(account.apiKey, data.length, "long.mp4");
    await patchAll(account.apiKey, path, data.slice(0, 6 * MiB), [6 * MiB]);
    expect(await storedKeys(path)).toEqual([`uploads/${uploadIdOf(path)}/tail-1`]);
    const multipartId = (await uploadStub(path).view(account.accountId))!.multipart_id!;
    const res = await request(path, { method: "DELETE", headers: keyHeaders(account.apiKey, TUS) });
    expect(res.status).toBe(204);
    expect((await head(account.apiKey, path)).status).toBe(404);
    expect(await storedKeys(path)).toEqual([]);
    // The multipart upload was aborted: completing it now fails.
    const parts = [{ partNumber: 1, etag: "x" }];
    await expect(env.BUCKET.resumeMultipartUpload(`uploads/${uploadIdOf(path)}/data`, multipartId).complete(parts)).rejects.toThrow();
    expect(await runInDurableObject(uploadStub(path), (_o, state) => state.storage.get("state"))).toBeUndefined();
  });

  it("expiration: the alarm deletes an abandoned upload, its multipart upload and its tail", LARGE, async () => {
    const account = await createAccount(1);
    const data = video(6 * MiB);
    const path = await createUpload(account.apiKey, data.length, "abandoned.mp4");
    await patchAll(account.apiKey, path, data.slice(0, 5 * MiB + 10), [5 * MiB + 10]);
    expect(await storedKeys(path)).toHaveLength(1);
    const stub = uploadStub(path);
    // Not yet expired: the alarm only re-arms.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await head(account.apiKey, path)).status).toBe(200);
    await runInDurableObject(stub, async (_o, state) => {
      const stored = (await state.storage.get<UploadState>("state"))!;
      await state.storage.put("state", { ...stored, expires_at: Date.now() - 1 });
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    expect((await head(account.apiKey, path)).status).toBe(404);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await storedKeys(path)).toEqual([]);
    expect(await runInDurableObject(stub, (_o, state) => state.storage.get("state"))).toBeUndefined();
  });
});
