import { describe, expect, it } from "vitest";
import { CreationRecord } from "../../shared/records.js";
import { accountStub, createAccount, env, keyHeaders, request, requestWithVars } from "./helpers.js";
import { BOUNDARY, chunkedStream, fileParts, filler, heic, isoBmff, jpeg, mov, mp4, multipartBody, multipartInit, pdf, png, type FormPart } from "./upload-fixtures.js";

async function inputKeys(prefix = "inputs/"): Promise<string[]> {
  const listing = await env.BUCKET.list({ prefix, limit: 1000 });
  return listing.objects.map((o) => o.key).sort();
}

async function sha256(data: ArrayBuffer | Uint8Array): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", data))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function debits(accountId: string) {
  return (await accountStub(accountId).ledger()).filter((row) => row.kind === "debit");
}

/** Asserts the error envelope, then that nothing was stored and no credit was taken. */
async function expectRejected(res: Response, status: number, code: string, accountId: string, keysBefore: string[], balanceBefore: number) {
  expect(res.status).toBe(status);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(body).toMatchObject({ error: { code } });
  expect(await inputKeys()).toEqual(keysBefore);
  expect(await debits(accountId)).toEqual([]);
  expect(await accountStub(accountId).balance()).toBe(balanceBefore);
  return body.error.message;
}

describe("POST /v1/reconstruction: happy path", () => {
  it("stores every file under inputs/<id>/, debits one credit and answers the creation record", async () => {
    const account = await createAccount(3);
    const files = [
      { fileName: "a.jpg", data: jpeg(4000, 3000, 4000) },
      { fileName: "b.png", data: png(640, 480) },
      { fileName: "c.heic", data: heic() },
      { fileName: "d.mp4", data: mp4(3000) },
      { fileName: "e.mov", data: mov() },
    ];
    const res = await request("/v1/reconstruction", multipartInit(account.apiKey, [{ name: "quality", data: "high" }, ...fileParts(files)]));
    expect(res.status).toBe(202);
    const body = (await res.json()) as CreationRecord;
    expect(Object.keys(body).sort()).toEqual(["created_at", "estimated_completion", "files_uploaded", "id", "status", "status_url"]);
    expect(CreationRecord.parse(body)).toEqual(body);
    expect(body.id).toMatch(/^rec_[A-Za-z0-9_-]{24}$/);
    expect(body).toMatchObject({ status: "pending", files_uploaded: 5, status_url: `${env.BASE_URL}/v1/reconstruction/${body.id}/status` });
    expect(body.created_at).toMatch(/Z$/);
    expect(Date.parse(body.estimated_completion)).toBeGreaterThan(Date.parse(body.created_at));

    const stored = await env.BUCKET.list({ prefix: `inputs/${body.id}/`, include: ["httpMetadata"] });
    expect(stored.objects.map((o) => [o.key.split("/").pop(), o.size, o.httpMetadata?.contentType])).toEqual([
      ["0000-a.jpg", files[0]!.data.length, "image/jpeg"],
      ["0001-b.png", files[1]!.data.length, "image/png"],
      ["0002-c.heic", files[2]!.data.length, "image/heic"],
      ["0003-d.mp4", files[3]!.data.length, "video/mp4"],
      ["0004-e.mov", files[4]!.data.length, "video/quicktime"],
    ]);
    const first = await env.BUCKET.get(`inputs/${body.id}/0000-a.jpg`);
    expect(new Uint8Array(await first!.arrayBuffer())).toEqual(files[0]!.data);

    expect((await debits(account.accountId)).map((row) => [row.amount, row.reconstruction_id])).toEqual([[-1, body.id]]);
    expect(await accountStub(account.accountId).balance()).toBe(2);

    const status = await request(`/v1/reconstruction/${body.id}/status`, { headers: keyHeaders(account.apiKey) });
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ id: body.id, status: "pending", total_files: 5, progress: 0, started_at: null });
  });

  it("streams a file larger than one R2 part through a multipart upload, byte for byte, without Content-Length", async () => {
    const account = await createAccount(1);
    const video = new Uint8Array(5 * 1024 * 1024 + 100_123);
    video.set(mp4(0), 0);
    video.set(filler(video.length - 64, 5), 64);
    const body = multipartBody(fileParts([{ fileName: "walk.mp4", data: video }]));
    const res = await request("/v1/reconstruction", {
      method: "POST",
      headers: keyHeaders(account.apiKey, { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` }),
      body: chunkedStream(body, [65_536, 1_000, 300_001]),
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as CreationRecord;
    const object = await env.BUCKET.get(`inputs/${id}/0000-walk.mp4`);
    expect(object!.size).toBe(video.length);
    // Digests rather than a deep equal: comparing megabytes element by element takes seconds.
    expect(await sha256(await object!.arrayBuffer())).toBe(await sha256(video));
  }, 30_000);

  it("gives exactly one 202 to five simultaneous creations on an account with one credit", async () => {
    const account = await createAccount(1);
    const keysBefore = await inputKeys();
    const responses = await Promise.all(
      Array.from({ length: 5 }, (_, i) => request("/v1/reconstruction", multipartInit(account.apiKey, fileParts([{ fileName: `p${i}.jpg`, data: jpeg(100, 100, 2000) }])))),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([202, 402, 402, 402, 402]);
    const winner = (await responses.find((r) => r.status === 202)!.json()) as CreationRecord;
    for (const r of responses.filter((r) => r.status === 402)) expect(await r.json()).toMatchObject({ error: { code: "insufficient_credits" } });
    expect(await accountStub(account.accountId).balance()).toBe(0);
    expect((await debits(account.accountId)).map((row) => row.reconstruction_id)).toEqual([winner.id]);
    const added = (await inputKeys()).filter((k) => !keysBefore.includes(k));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(new RegExp(`^inputs/${winner.id}/0000-p[0-4]\\.jpg$`));
  });
});

describe("POST /v1/reconstruction: rejections take no credit and leave nothing behind", () => {
  const validJpeg = { fileName: "ok.jpg", data: jpeg(64, 48, 3000) };
  const cases: [string, FormPart[], number, string, string?][] = [
    ["a file named photo.jpg holding a PDF", fileParts([validJpeg, { fileName: "photo.jpg", data: pdf(), contentType: "image/jpeg" }]), 400, "invalid_file_format", "photo.jpg"],
    ["a truncated JPEG header", fileParts([validJpeg, { fileName: "cut.jpg", data: new Uint8Array([0xff, 0xd8]) }]), 400, "invalid_file_format", "cut.jpg"],
    ["an empty part", fileParts([validJpeg, { fileName: "empty.jpg", data: new Uint8Array(0) }]), 400, "invalid_request", "empty.jpg"],
    ["a zero-file request", [{ name: "quality", data: "preview" }], 400, "no_files"],
    ["a zero-file request with an unknown quality", [{ name: "quality", data: "ultra" }], 400, "no_files"],
    ["a zero-file request with a repeated quality and a files part without a filename", [{ name: "quality", data: "preview" }, { name: "quality", data: "high" }, { name: "files", data: "x" }], 400, "no_files"],
    ["a zero-file request with unknown text fields", [{ name: "colour", data: "red" }, { name: "quality", data: "preview" }, { name: "note", data: "x" }], 400, "no_files"],
    ["a file under another field name", [...fileParts([validJpeg]), { name: "file", fileName: "x.jpg", data: jpeg(8, 8) }], 400, "invalid_request", "file"],
    ["an unknown form field", [...fileParts([validJpeg]), { name: "colour", data: "red" }], 400, "invalid_request", "colour"],
    ["an unknown quality", [{ name: "quality", data: "ultra" }, ...fileParts([validJpeg])], 400, "invalid_request", "quality"],
    ["AVIF bytes", fileParts([validJpeg, { fileName: "x.heic", data: isoBmff("avif", ["mif1", "avif"]) }]), 400, "invalid_file_format", "x.heic"],
  ];
  it.each(cases)("%s", async (_label, parts, status, code, mentioned) => {
    const account = await createAccount(2);
    const keysBefore = await inputKeys();
    const res = await request("/v1/reconstruction", multipartInit(account.apiKey, parts));
    const message = await expectRejected(res, status, code, account.accountId, keysBefore, 2);
    if (mentioned) expect(message).toContain(mentioned);
  });

  it("a body neither multipart nor JSON", async () => {
    // JSON is the creation from tus uploads (reconstruction-from-uploads.test.ts: `{}` is no_files there).
    const account = await createAccount(2);
    const keysBefore = await inputKeys();
    const res = await request("/v1/reconstruction", { method: "POST", headers: keyHeaders(account.apiKey, { "Content-Type": "text/plain" }), body: "{}" });
    await expectRejected(res, 400, "invalid_request", account.accountId, keysBefore, 2);
  });

  it("a multipart body that ends without its closing boundary", async () => {
    const account = await createAccount(2);
    const keysBefore = await inputKeys();
    const full = multipartBody(fileParts([validJpeg, { fileName: "b.jpg", data: jpeg(8, 8, 5000) }]));
    const res = await request("/v1/reconstruction", {
      method: "POST",
      headers: keyHeaders(account.apiKey, { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` }),
      body: full.subarray(0, full.length - 2000),
    });
    await expectRejected(res, 400, "invalid_request", account.accountId, keysBefore, 2);
  });

  it("401 before anything else, without storing", async () => {
    const keysBefore = await inputKeys();
    const res = await request("/v1/reconstruction", { method: "POST", body: multipartBody(fileParts([validJpeg])), headers: { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: "missing_api_key" } });
    expect(await inputKeys()).toEqual(keysBefore);
  });

  it("402 at balance 0, before the body is judged (a broken body still gets 402)", async () => {
    const account = await createAccount(0);
    const keysBefore = await inputKeys();
    const res = await request("/v1/reconstruction", { method: "POST", headers: keyHeaders(account.apiKey, { "Content-Type": "text/plain" }), body: "not multipart" });
    await expectRejected(res, 402, "insufficient_credits", account.accountId, keysBefore, 0);
  });

  it("429 when the creation budget is spent, before the credit check", async () => {
    const account = await createAccount(0);
    const init = () => multipartInit(account.apiKey, fileParts([validJpeg]));
    expect((await requestWithVars("/v1/reconstruction", { RATE_LIMIT_CREATES: "1" }, init())).status).toBe(402);
    const res = await requestWithVars("/v1/reconstruction", { RATE_LIMIT_CREATES: "1" }, init());
    expect(res.status).toBe(429);
    expect(await res.json()).toMatchObject({ error: { code: "rate_limited" } });
  });
});

describe("POST /v1/reconstruction: 413 limits", () => {
  async function rejectedWith(vars: Record<string, string>, init: RequestInit, accountId: string, balance: number): Promise<string> {
    const keysBefore = await inputKeys();
    const res = await requestWithVars("/v1/reconstruction", vars, init);
    return expectRejected(res, 413, "payload_too_large", accountId, keysBefore, balance);
  }

  it("per image, stating the limit", async () => {
    const account = await createAccount(1);
    const init = multipartInit(account.apiKey, fileParts([{ fileName: "small.jpg", data: jpeg(8, 8, 100) }, { fileName: "big.jpg", data: jpeg(8, 8, 3 * 1024 * 1024) }]));
    const message = await rejectedWith({ MAX_IMAGE_BYTES: String(2 * 1024 * 1024) }, init, account.accountId, 1);
    expect(message).toContain("2 MiB");
    expect(message).toContain("big.jpg");
  });

  it("per video, with its own limit (an image of the same size passes)", async () => {
    const account = await createAccount(1);
    const init = multipartInit(account.apiKey, fileParts([{ fileName: "v.mov", data: mov(6000) }]));
    const message = await rejectedWith({ MAX_VIDEO_BYTES: "5000" }, init, account.accountId, 1);
    expect(message).toContain("video");
  });

  it("per request, counted while streaming when no Content-Length is sent", async () => {
    const account = await createAccount(1);
    const body = multipartBody(fileParts([1, 2, 3, 4].map((i) => ({ fileName: `${i}.jpg`, data: jpeg(8, 8, 40_000) }))));
    const init: RequestInit = {
      method: "POST",
      headers: keyHeaders(account.apiKey, { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` }),
      body: chunkedStream(body, [4096]),
    };
    const message = await rejectedWith({ MAX_REQUEST_BYTES: "100000" }, init, account.accountId, 1);
    expect(message).toContain("per request");
  });

  it("per request, from the declared Content-Length", async () => {
    const account = await createAccount(1);
    const init = multipartInit(account.apiKey, fileParts([{ fileName: "a.jpg", data: jpeg(8, 8, 20_000) }]));
    await rejectedWith({ MAX_REQUEST_BYTES: "10000" }, init, account.accountId, 1);
  });

  it("file count", async () => {
    const account = await createAccount(1);
    const init = multipartInit(account.apiKey, fileParts([1, 2, 3].map((i) => ({ fileName: `${i}.jpg`, data: jpeg(8, 8) }))));
    const message = await rejectedWith({ MAX_FILES_PER_REQUEST: "2" }, init, account.accountId, 1);
    expect(message).toContain("2 files");
  });
});
