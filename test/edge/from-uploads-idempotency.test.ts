/**
 * Creation from tus uploads meets the Idempotency-Key (on the JSON creation) and DELETE (of a
 * reconstruction made from uploads).
 */
import { describe, expect, it } from "vitest";
import type { CreationRecord } from "../../shared/records.js";
import { accountStub, createAccount, env, keyHeaders, request } from "./helpers.js";
import { jpeg } from "./upload-fixtures.js";
import { createUpload, head, patchAll, storedKeys, uploadIdOf } from "./tus-support.js";

async function finishedUpload(apiKey: string, data: Uint8Array, name: string): Promise<string> {
  const path = await createUpload(apiKey, data.length, name);
  await patchAll(apiKey, path, data, [data.length]);
  return path;
}

function createFrom(apiKey: string, body: unknown, key: string): Promise<Response> {
  return request("/v1/reconstruction", {
    method: "POST",
    headers: keyHeaders(apiKey, { "Content-Type": "application/json", "Idempotency-Key": key }),
    body: JSON.stringify(body),
  });
}

async function debits(accountId: string) {
  return (await accountStub(accountId).ledger()).filter((row) => row.kind === "debit");
}

describe("creation from uploads with Idempotency-Key and DELETE", () => {
  it("an Idempotency-Key covers the JSON creation from uploads: the same body replays the 202 (one debit, uploads consumed once), another body is 422", async () => {
    const account = await createAccount(3);
    const path = await finishedUpload(account.apiKey, jpeg(800, 600, 5_000), "front.jpg");
    const body = { uploads: [uploadIdOf(path)], quality: "preview" };
    const first = await createFrom(account.apiKey, body, "json-create-1");
    expect(first.status, await first.clone().text()).toBe(202);
    const record = (await first.json()) as CreationRecord;
    // The upload is consumed now, yet the retry of the same request answers the first 202 again.
    expect((await head(account.apiKey, path)).status).toBe(404);
    const again = await createFrom(account.apiKey, body, "json-create-1");
    expect(again.status).toBe(202);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(((await again.json()) as CreationRecord).id).toBe(record.id);
    const other = await createFrom(account.apiKey, { ...body, quality: "high" }, "json-create-1");
    expect(other.status).toBe(422);
    expect(await other.json()).toMatchObject({ error: { code: "idempotency_key_reused" } });
    expect((await debits(account.accountId)).map((row) => row.reconstruction_id)).toEqual([record.id]);
    expect(await accountStub(account.accountId).balance()).toBe(2);
  });

  it("a refused JSON creation (unfinished upload) does not keep the key: the corrected retry with it succeeds", async () => {
    const account = await createAccount(2);
    const photo = jpeg(800, 600, 5_000);
    const path = await createUpload(account.apiKey, photo.length, "late.jpg");
    const body = { uploads: [uploadIdOf(path)] };
    const early = await createFrom(account.apiKey, body, "json-create-2");
    expect(early.status).toBe(409);
    expect(await early.json()).toMatchObject({ error: { code: "upload_incomplete" } });
    await patchAll(account.apiKey, path, photo, [photo.length]);
    const done = await createFrom(account.apiKey, body, "json-create-2");
    expect(done.status, await done.clone().text()).toBe(202);
    expect(await debits(account.accountId)).toHaveLength(1);
  });

  it("DELETE of a reconstruction created from uploads leaves nothing of it or of its uploads in R2", async () => {
    const account = await createAccount(2);
    const path = await finishedUpload(account.apiKey, jpeg(800, 600, 5_000), "front.jpg");
    const res = await createFrom(account.apiKey, { uploads: [uploadIdOf(path)] }, "json-create-3");
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as CreationRecord;
    expect((await env.BUCKET.list({ prefix: `inputs/${id}/` })).objects).toHaveLength(1);
    const deleted = await request(`/v1/reconstruction/${id}`, { method: "DELETE", headers: keyHeaders(account.apiKey) });
    expect(deleted.status).toBe(204);
    expect((await env.BUCKET.list({ prefix: `inputs/${id}/` })).objects).toEqual([]);
    expect(await storedKeys(path)).toEqual([]);
    expect((await request(`/v1/reconstruction/${id}/status`, { headers: keyHeaders(account.apiKey) })).status).toBe(404);
  });
});
