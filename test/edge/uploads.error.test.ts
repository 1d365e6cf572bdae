import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { UploadState } from "../../edge/objects/upload-rpc.js";
import { createAccount, env, keyHeaders, request, requestWithVars } from "./helpers.js";
import { filler, jpeg, mp4, pdf } from "./upload-fixtures.js";
import { OFFSET_TYPE, TUS, createUpload, head, patch, sha1Base64, storedKeys, uploadIdOf, uploadStub } from "./tus-support.js";

const MiB = 1024 * 1024;

/** Status, envelope, Tus-Resumable and the rate-limit headers: what every tus error carries. */
async function expectError(res: Response, status: number, code: string): Promise<string> {
  expect(res.status).toBe(status);
  expect(res.headers.get("Tus-Resumable")).toBe("1.0.0");
  expect(res.headers.get("X-RateLimit-Limit")).toBeTruthy();
  expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
  const body = (await res.json()) as { error: { code: string; message: string; suggestion: string } };
  expect(body).toMatchObject({ error: { code } });
  expect(body.error.suggestion.length).toBeGreaterThan(0);
  return body.error.message;
}

function post(apiKey: string, headers: Record<string, string>): Promise<Response> {
  return request("/v1/uploads", { method: "POST", headers: keyHeaders(apiKey, headers) });
}

describe("tus at /v1/uploads: errors", () => {
  it("401 without a key or with a bad one, before anything else", async () => {
    await expectError(await request("/v1/uploads", { method: "POST", headers: { "Upload-Length": "10" } }), 401, "missing_api_key");
    await expectError(await request("/v1/uploads/upl_aaaaaaaaaaaaaaaaaaaaaaaa", { method: "PATCH", headers: { ...TUS, Authorization: "Bearer nope" } }), 401, "invalid_api_key");
  });

  it("412 without Tus-Resumable or with another version, on POST, HEAD, PATCH and DELETE, naming Tus-Version", async () => {
    const account = await createAccount(1);
    const path = await createUpload(account.apiKey, 100);
    const cases: [string, string, Record<string, string>][] = [
      ["/v1/uploads", "POST", { "Upload-Length": "10" }],
      [path, "PATCH", { ...OFFSET_TYPE, "Upload-Offset": "0", "Tus-Resumable": "0.2.2" }],
      [path, "DELETE", {}],
    ];
    for (const [where, method, headers] of cases) {
      const res = await request(where, { method, headers: keyHeaders(account.apiKey, headers) });
      await expectError(res, 412, "unsupported_tus_version");
      expect(res.headers.get("Tus-Version")).toBe("1.0.0");
    }
    const probe = await request(path, { method: "HEAD", headers: keyHeaders(account.apiKey) });
    expect(probe.status).toBe(412);
    expect(probe.headers.get("Tus-Version")).toBe("1.0.0");
    expect((await head(account.apiKey, path)).status).toBe(200);
  });

  it("400 on creation without Upload-Length, with a bad or zero one, a deferred one, or malformed metadata", async () => {
    const account = await createAccount(1);
    await expectError(await post(account.apiKey, TUS), 400, "invalid_request");
    for (const length of ["-1", "12abc", "1e6", "99999999999999999999", ""]) {
      await expectError(await post(account.apiKey, { ...TUS, "Upload-Length": length }), 400, "invalid_request");
    }
    expect(await expectError(await post(account.apiKey, { ...TUS, "Upload-Length": "0" }), 400, "invalid_request")).toMatch(/empty/);
    expect(await expectError(await post(account.apiKey, { ...TUS, "Upload-Defer-Length": "1" }), 400, "invalid_request")).toMatch(/Deferred/);
    expect(await expectError(await post(account.apiKey, { ...TUS, "Upload-Length": "1000", "Upload-Defer-Length": "1" }), 400, "invalid_request")).toMatch(/Deferred/);
    for (const metadata of ["filename", "filename !!notbase64", "filename YQ== extra", "filename YQ==,filename Yg==", "filename /w==", "x".repeat(5000)]) {
      const res = await post(account.apiKey, { ...TUS, "Upload-Length": "10", "Upload-Metadata": metadata });
      if (metadata === "filename") expect(res.status).toBe(201); // a key without a value is allowed by tus
      else await expectError(res, 400, "invalid_request");
    }
  });

  it("413 on creation over the per-video limit, stating it", async () => {
    const account = await createAccount(1);
    const tooLong = String(Number(env.MAX_VIDEO_BYTES) + 1);
    expect(await expectError(await post(account.apiKey, { ...TUS, "Upload-Length": tooLong }), 413, "payload_too_large")).toMatch(/500 MiB/);
  });

  it("413 and the upload deleted when its first bytes show an image over the per-image limit", async () => {
    const account = await createAccount(1);
    const path = await createUpload(account.apiKey, 60 * MiB);
    expect(await expectError(await patch(account.apiKey, path, 0, jpeg(100, 100, 100)), 413, "payload_too_large")).toMatch(/50 MiB per image/);
    expect((await head(account.apiKey, path)).status).toBe(404);
    expect(await storedKeys(path)).toEqual([]);
  });

  it("400 invalid_file_format and the upload deleted when the first bytes are not an accepted kind, whatever the name says", async () => {
    const account = await createAccount(1);
    const document = pdf();
    const path = await createUpload(account.apiKey, document.length + 1000, "photo.jpg");
    expect(await expectError(await patch(account.apiKey, path, 0, document), 400, "invalid_file_format")).toContain("photo.jpg");
    expect((await head(account.apiKey, path)).status).toBe(404);
    expect(await storedKeys(path)).toEqual([]);
    // A whole file shorter than the sniffing window is judged at its end.
    const tiny = await createUpload(account.apiKey, 5, "tiny.jpg");
    await expectError(await patch(account.apiKey, tiny, 0, new Uint8Array([1, 2, 3, 4, 5])), 400, "invalid_file_format");
    expect(await storedKeys(tiny)).toEqual([]);
  });

  it("415 for a PATCH that is not application/offset+octet-stream; 400 for a missing or bad Upload-Offset", async () => {
    const account = await createAccount(1);
    const path = await createUpload(account.apiKey, 1000);
    await expectError(await patch(account.apiKey, path, 0, "abc", { "Content-Type": "application/octet-stream" }), 415, "unsupported_media_type");
    await expectError(await request(path, { method: "PATCH", headers: keyHeaders(account.apiKey, { ...TUS, ...OFFSET_TYPE }), body: "abc" }), 400, "invalid_request");
    await expectError(await request(path, { method: "PATCH", headers: keyHeaders(account.apiKey, { ...TUS, ...OFFSET_TYPE, "Upload-Offset": "-5" }), body: "abc" }), 400, "invalid_request");
    expect((await head(account.apiKey, path)).headers.get("Upload-Offset")).toBe("0");
  });

  it("409 when Upload-Offset is not the stored offset, and nothing is written", async () => {
    const account = await createAccount(1);
    const photo = jpeg(640, 480, 2000);
    const path = await createUpload(account.apiKey, photo.length);
    expect((await patch(account.apiKey, path, 0, photo.slice(0, 100))).status).toBe(204);
    expect(await expectError(await patch(account.apiKey, path, 0, photo.slice(0, 100)), 409, "offset_mismatch")).toMatch(/at 100/);
    await expectError(await patch(account.apiKey, path, 150, photo.slice(150, 200)), 409, "offset_mismatch");
    expect((await head(account.apiKey, path)).headers.get("Upload-Offset")).toBe("100");
    // A finished upload: any further byte is a mismatch.
    expect((await patch(account.apiKey, path, 100, photo.slice(100))).status).toBe(204);
    await expectError(await patch(account.apiKey, path, 0, photo.slice(0, 10)), 409, "offset_mismatch");
  });

  it("460 on a checksum mismatch: the PATCH is discarded (no part, no tail), and the right bytes are accepted after", async () => {
    const account = await createAccount(1);
    const data = filler(6 * MiB, 3);
    data.set(mp4(0).subarray(0, 64), 0);
    const path = await createUpload(account.apiKey, data.length, "v.mp4");
    const wrong = await sha1Base64(data.slice(1, 10));
    await expectError(await patch(account.apiKey, path, 0, data.slice(0, 5 * MiB + 5), { "Upload-Checksum": `sha1 ${wrong}` }), 460, "checksum_mismatch");
    expect((await head(account.apiKey, path)).headers.get("Upload-Offset")).toBe("0");
    expect(await storedKeys(path)).toEqual([]);
    expect((await uploadStub(path).view(account.accountId))!.multipart_id).toBeNull();
    const right = await sha1Base64(data);
    expect((await patch(account.apiKey, path, 0, data, { "Upload-Checksum": `sha1 ${right}` })).status).toBe(204);
    expect(new Uint8Array(await (await env.BUCKET.get(`uploads/${uploadIdOf(path)}/data`))!.arrayBuffer())).toEqual(data);
  }, 60_000);

  it("400 for an unsupported checksum algorithm or a digest that is not base64", async () => {
    const account = await createAccount(1);
    const path = await createUpload(account.apiKey, 1000);
    await expectError(await patch(account.apiKey, path, 0, "abc", { "Upload-Checksum": "crc32 AAAA" }), 400, "invalid_request");
    await expectError(await patch(account.apiKey, path, 0, "abc", { "Upload-Checksum": "sha1 ***" }), 400, "invalid_request");
    await expectError(await patch(account.apiKey, path, 0, "abc", { "Upload-Checksum": "sha1" }), 400, "invalid_request");
  });

  it("413 for a PATCH past Upload-Length, declared or streamed, and nothing of it is kept", async () => {
    const account = await createAccount(1);
    const photo = jpeg(640, 480, 500);
    const path = await createUpload(account.apiKey, photo.length);
    const longer = new Uint8Array(photo.length + 10);
    longer.set(photo);
    await expectError(await patch(account.apiKey, path, 0, longer), 413, "payload_too_large");
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(longer.slice(0, 300));
        controller.enqueue(longer.slice(300));
        controller.close();
      },
    });
    await expectError(await patch(account.apiKey, path, 0, stream), 413, "payload_too_large");
    expect((await head(account.apiKey, path)).headers.get("Upload-Offset")).toBe("0");
    expect(await storedKeys(path)).toEqual([]);
  });

  it("423 while another PATCH holds the upload's lease", async () => {
    const account = await createAccount(1);
    const path = await createUpload(account.apiKey, 1000);
    const lease = await uploadStub(path).lock(account.accountId, 0);
    expect(lease.ok).toBe(true);
    await expectError(await patch(account.apiKey, path, 0, jpeg(10, 10, 10)), 423, "upload_locked");
  });

  it("404 for unknown and malformed ids on every method", async () => {
    const account = await createAccount(1);
    for (const id of ["upl_aaaaaaaaaaaaaaaaaaaaaaaa", "nope", "rec_aaaaaaaaaaaaaaaaaaaaaaaa"]) {
      await expectError(await patch(account.apiKey, `/v1/uploads/${id}`, 0, "abc"), 404, "not_found");
      await expectError(await request(`/v1/uploads/${id}`, { method: "DELETE", headers: keyHeaders(account.apiKey, TUS) }), 404, "not_found");
      await expectError(await request(`/v1/uploads/${id}`, { headers: keyHeaders(account.apiKey, TUS) }), 404, "not_found");
      expect((await head(account.apiKey, `/v1/uploads/${id}`)).status).toBe(404);
    }
  });

  it("429 with Retry-After once over the request budget, as the rest of the API", async () => {
    const account = await createAccount(1);
    const init = { method: "POST", headers: keyHeaders(account.apiKey, { ...TUS, "Upload-Length": "100" }) };
    expect((await requestWithVars("/v1/uploads", { RATE_LIMIT_REQUESTS: "1" }, init)).status).toBe(201);
    const limited = await requestWithVars("/v1/uploads", { RATE_LIMIT_REQUESTS: "1" }, init);
    await expectError(limited, 429, "rate_limited");
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
  });
});

describe("tus at /v1/uploads: concurrent PATCHes", () => {
  it("a second PATCH while one is streaming is 423; the first completes; a lease whose Worker died lapses", async () => {
    const account = await createAccount(1);
    const photo = jpeg(640, 480, 3000);
    const path = await createUpload(account.apiKey, photo.length);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let step = 0;
    const slow = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (step === 0) controller.enqueue(photo.slice(0, 1000));
        else if (step === 1) {
          await gate;
          controller.enqueue(photo.slice(1000));
        } else controller.close();
        step++;
      },
    });
    const first = patch(account.apiKey, path, 0, slow);
    // Wait until the first PATCH holds the lease.
    for (let i = 0; i < 100 && !(await uploadStub(path).view(account.accountId))?.lock; i++) await new Promise((r) => setTimeout(r, 20));
    await expectError(await patch(account.apiKey, path, 0, photo), 423, "upload_locked");
    release();
    const done = await first;
    expect(done.status).toBe(204);
    expect(done.headers.get("Upload-Offset")).toBe(String(photo.length));

    // A lease left by a Worker that died mid-PATCH stops blocking once it lapses.
    const other = await createUpload(account.apiKey, photo.length);
    const stub = uploadStub(other);
    expect((await stub.lock(account.accountId, 0)).ok).toBe(true);
    await expectError(await patch(account.apiKey, other, 0, photo), 423, "upload_locked");
    await runInDurableObject(stub, async (_o, state) => {
      const stored = (await state.storage.get<UploadState>("state"))!;
      await state.storage.put("state", { ...stored, lock: { ...stored.lock!, until: Date.now() - 1 } });
    });
    expect((await patch(account.apiKey, other, 0, photo)).status).toBe(204);
  });
});
