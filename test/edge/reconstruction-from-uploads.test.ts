import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { UploadState } from "../../edge/objects/upload-rpc.js";
import type { CreationRecord } from "../../shared/records.js";
import { accountStub, createAccount, env, keyHeaders, request, requestWithVars } from "./helpers.js";
import { filler, jpeg, mp4 } from "./upload-fixtures.js";
import { createUpload, head, patchAll, storedKeys, uploadIdOf } from "./tus-support.js";

/** A finished upload of `data`; returns its path. */
async function finishedUpload(apiKey: string, data: Uint8Array, name: string): Promise<string> {
  const path = await createUpload(apiKey, data.length, name);
  await patchAll(apiKey, path, data, [Math.ceil(data.length / 2)]);
  return path;
}

function createFrom(apiKey: string, body: unknown, vars?: Record<string, string>): Promise<Response> {
  const init = { method: "POST", headers: keyHeaders(apiKey, { "Content-Type": "application/json" }), body: typeof body === "string" ? body : JSON.stringify(body) };
  return vars ? requestWithVars("/v1/reconstruction", vars, init) : request("/v1/reconstruction", init);
}

async function debits(accountId: string) {
  return (await accountStub(accountId).ledger()).filter((row) => row.kind === "debit");
}

async function inputKeys(): Promise<string[]> {
  return (await env.BUCKET.list({ prefix: "inputs/" })).objects.map((o) => o.key);
}

/** A refused creation: the envelope, no credit taken, no input stored, and the listed uploads still usable. */
async function expectRefused(res: Response, status: number, code: string, accountId: string, inputsBefore: string[]) {
  expect(res.status).toBe(status);
  expect(await res.json()).toMatchObject({ error: { code } });
  expect(await debits(accountId)).toEqual([]);
  expect(await inputKeys()).toEqual(inputsBefore);
}

describe("POST /v1/reconstruction with {uploads}", () => {
  it("takes finished uploads as inputs (copied byte for byte, in order, named as uploaded), debits one credit and removes the uploads", async () => {
    const account = await createAccount(2);
    const photo = jpeg(1600, 1200, 20_000);
    const clip = filler(6 * 1024 * 1024, 9);
    clip.set(mp4(0).subarray(0, 64), 0);
    const photoPath = await finishedUpload(account.apiKey, photo, "front.jpg");
    const clipPath = await finishedUpload(account.apiKey, clip, "walk around.mp4");
    const res = await createFrom(account.apiKey, { uploads: [uploadIdOf(clipPath), uploadIdOf(photoPath)], quality: "preview" });
    expect(res.status).toBe(202);
    const record = (await res.json()) as CreationRecord;
    expect(record).toMatchObject({ status: "pending", files_uploaded: 2 });
    const stored = await env.BUCKET.list({ prefix: `inputs/${record.id}/`, include: ["httpMetadata"] });
    expect(stored.objects.map((o) => [o.key.split("/").pop(), o.size, o.httpMetadata?.contentType])).toEqual([
      ["0000-walk_around.mp4", clip.length, "video/mp4"],
      ["0001-front.jpg", photo.length, "image/jpeg"],
    ]);
    expect(new Uint8Array(await (await env.BUCKET.get(stored.objects[0]!.key))!.arrayBuffer())).toEqual(clip);
    expect((await debits(account.accountId)).map((row) => row.reconstruction_id)).toEqual([record.id]);
    for (const path of [photoPath, clipPath]) {
      expect((await head(account.apiKey, path)).status).toBe(404);
      expect(await storedKeys(path)).toEqual([]);
    }
    const status = await request(`/v1/reconstruction/${record.id}/status`, { headers: keyHeaders(account.apiKey) });
    expect(await status.json()).toMatchObject({ status: "pending", total_files: 2 });
  }, 60_000);

  it("an upload used once cannot be used again (404)", async () => {
    const account = await createAccount(2);
    const path = await finishedUpload(account.apiKey, jpeg(800, 600, 500), "a.jpg");
    expect((await createFrom(account.apiKey, { uploads: [uploadIdOf(path)] })).status).toBe(202);
    const again = await createFrom(account.apiKey, { uploads: [uploadIdOf(path)] });
    expect(again.status).toBe(404);
    expect(await again.json()).toMatchObject({ error: { code: "not_found" } });
  });

  it("409 upload_incomplete for an unfinished upload; the other uploads are released and stay usable", async () => {
    const account = await createAccount(1);
    const done = await finishedUpload(account.apiKey, jpeg(800, 600, 500), "done.jpg");
    const photo = jpeg(800, 600, 500);
    const partial = await createUpload(account.apiKey, photo.length, "partial.jpg");
    await patchAll(account.apiKey, partial, photo.slice(0, 100), [100]);
    const before = await inputKeys();
    await expectRefused(await createFrom(account.apiKey, { uploads: [uploadIdOf(done), uploadIdOf(partial)] }), 409, "upload_incomplete", account.accountId, before);
    expect((await head(account.apiKey, partial)).headers.get("Upload-Offset")).toBe("100");
    expect((await createFrom(account.apiKey, { uploads: [uploadIdOf(done)] })).status).toBe(202);
  });

  it("404 for another account's upload, which stays untouched, and for unknown ids", async () => {
    const owner = await createAccount(1, { email: "owner@example.com" });
    const thief = await createAccount(1, { email: "thief@example.com" });
    const path = await finishedUpload(owner.apiKey, jpeg(800, 600, 500), "mine.jpg");
    const before = await inputKeys();
    await expectRefused(await createFrom(thief.apiKey, { uploads: [uploadIdOf(path)] }), 404, "not_found", thief.accountId, before);
    await expectRefused(await createFrom(thief.apiKey, { uploads: ["upl_aaaaaaaaaaaaaaaaaaaaaaaa"] }), 404, "not_found", thief.accountId, before);
    expect(await storedKeys(path)).toEqual([`uploads/${uploadIdOf(path)}/data`]);
    expect((await createFrom(owner.apiKey, { uploads: [uploadIdOf(path)] })).status).toBe(202);
  });

  it("400 no_files without any upload id, whatever else the body carries; 400 invalid_request for malformed bodies", async () => {
    const account = await createAccount(1);
    const before = await inputKeys();
    for (const body of [{}, { uploads: [] }, { quality: "high" }]) await expectRefused(await createFrom(account.apiKey, body), 400, "no_files", account.accountId, before);
    const path = await finishedUpload(account.apiKey, jpeg(800, 600, 500), "a.jpg");
    const id = uploadIdOf(path);
    for (const body of ["{not json", "[]", { uploads: "x" }, { uploads: ["nope"] }, { uploads: [id], quality: "ultra" }, { uploads: [id], extra: 1 }, { uploads: [id, id] }]) {
      await expectRefused(await createFrom(account.apiKey, body), 400, "invalid_request", account.accountId, before);
    }
    expect(await storedKeys(path)).toHaveLength(1);
  });

  it("402 at a zero balance, before the uploads are touched", async () => {
    const account = await createAccount(0);
    const path = await finishedUpload(account.apiKey, jpeg(800, 600, 500), "a.jpg");
    const res = await createFrom(account.apiKey, { uploads: [uploadIdOf(path)] });
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ error: { code: "insufficient_credits" } });
    expect((await head(account.apiKey, path)).status).toBe(200);
  });

  it("413 over the file-count or per-request limit, and nothing is kept", async () => {
    const account = await createAccount(2);
    const a = await finishedUpload(account.apiKey, jpeg(800, 600, 500), "a.jpg");
    const b = await finishedUpload(account.apiKey, jpeg(800, 600, 600), "b.jpg");
    const ids = [uploadIdOf(a), uploadIdOf(b)];
    const before = await inputKeys();
    await expectRefused(await createFrom(account.apiKey, { uploads: ids }, { MAX_FILES_PER_REQUEST: "1" }), 413, "payload_too_large", account.accountId, before);
    await expectRefused(await createFrom(account.apiKey, { uploads: ids }, { MAX_REQUEST_BYTES: "1000" }), 413, "payload_too_large", account.accountId, before);
    expect((await createFrom(account.apiKey, { uploads: ids })).status).toBe(202);
  });
});

describe("POST /v1/reconstruction with {uploads}: claims", () => {
  it("an upload held by a creation in progress is 423 for another; a claim whose creation died lapses and the upload is usable again", async () => {
    const account = await createAccount(2);
    const path = await finishedUpload(account.apiKey, jpeg(800, 600, 500), "a.jpg");
    const stub = env.UPLOADS.get(env.UPLOADS.idFromName(uploadIdOf(path)));
    const held = await stub.claim(account.accountId, "rec_ZZZZZZZZZZZZZZZZZZZZZZZZ");
    expect(held.ok).toBe(true);
    const before = await inputKeys();
    await expectRefused(await createFrom(account.apiKey, { uploads: [uploadIdOf(path)] }), 423, "upload_locked", account.accountId, before);
    expect((await head(account.apiKey, path)).status).toBe(404);
    await runInDurableObject(stub, async (_o, state) => {
      const stored = (await state.storage.get<UploadState>("state"))!;
      await state.storage.put("state", { ...stored, claimed_until: Date.now() - 1 });
    });
    expect((await head(account.apiKey, path)).status).toBe(200);
    expect((await createFrom(account.apiKey, { uploads: [uploadIdOf(path)] })).status).toBe(202);
    // The dead creation's late consume no longer touches it (nothing to check beyond no error).
    await stub.consume("rec_ZZZZZZZZZZZZZZZZZZZZZZZZ");
  });
});
