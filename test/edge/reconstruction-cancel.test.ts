/**
 * POST /v1/reconstruction/{id}/cancel and DELETE /v1/reconstruction/{id}: state, ledger and R2
 * re-read after each call; compute's next report is refused; other accounts see a 404.
 */
import { describe, expect, it } from "vitest";
import { outputKey, reportKey } from "../../shared/storage-keys.js";
import type { StatusRecord } from "../../shared/records.js";
import { accountStub, createAccount, env, keyHeaders, request } from "./helpers.js";
import { completeWithOutputs, createReconstruction, reconstructionStub } from "./reconstruction-support.js";

const compute = { authorization: "Bearer test-compute-secret", "content-type": "application/json" };

function cancel(id: string, apiKey: string) {
  return request(`/v1/reconstruction/${id}/cancel`, { method: "POST", headers: keyHeaders(apiKey) });
}
function remove(id: string, apiKey: string) {
  return request(`/v1/reconstruction/${id}`, { method: "DELETE", headers: keyHeaders(apiKey) });
}
function status(id: string, apiKey: string) {
  return request(`/v1/reconstruction/${id}/status`, { headers: keyHeaders(apiKey) });
}
async function refunds(accountId: string) {
  return (await accountStub(accountId).ledger()).filter((row) => row.kind === "refund");
}
async function storedKeys(id: string): Promise<string[]> {
  const [inputs, outputs] = await Promise.all([env.BUCKET.list({ prefix: `inputs/${id}/` }), env.BUCKET.list({ prefix: `outputs/${id}/` })]);
  return [...inputs.objects, ...outputs.objects].map((o) => o.key);
}
async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/application\/json/);
  expect(await res.json()).toMatchObject({ error: { code } });
}

describe("POST /v1/reconstruction/{id}/cancel", () => {
  it("cancels a pending reconstruction: failed with code cancelled, one refund row, balance back", async () => {
    const { account, id } = await createReconstruction();
    expect(await accountStub(account.accountId).balance()).toBe(2);
    const res = await cancel(id, account.apiKey);
    expect(res.status).toBe(200);
    const record = (await res.json()) as StatusRecord;
    expect(record).toMatchObject({ id, status: "failed", stage: null, credit_refunded: true, error: { code: "cancelled" } });
    expect(record.completed_at).toBe(record.estimated_completion);
    expect((await refunds(account.accountId)).map((r) => [r.amount, r.reconstruction_id, r.reason])).toEqual([[1, id, "cancelled"]]);
    expect(await accountStub(account.accountId).balance()).toBe(3);
    // The status endpoint tells the same story.
    expect(await (await status(id, account.apiKey)).json()).toMatchObject({ status: "failed", error: { code: "cancelled" }, credit_refunded: true });
  });

  it("cancels a processing job; compute's next heartbeat, progress and output write are refused", async () => {
    const { account, id } = await createReconstruction();
    expect((await reconstructionStub(id).start(1)).accepted).toBe(true);
    expect((await cancel(id, account.apiKey)).status).toBe(200);
    for (const [verb, body] of [["heartbeat", { attempt: 1 }], ["progress", { attempt: 1, stage: "features", progress: 30, files_processed: 1 }]] as const) {
      const res = await request(`/internal/reconstructions/${id}/${verb}`, { method: "POST", headers: compute, body: JSON.stringify(body) });
      expect(res.status, verb).toBe(409);
      expect(await res.json()).toMatchObject({ accepted: false, status: "failed", stop: true });
    }
    const put = await request(`/internal/objects/${outputKey(id, "ply")}`, { method: "PUT", headers: { ...compute, "content-length": "3" }, body: new Uint8Array([1, 2, 3]) });
    expect(put.status).toBe(409);
    expect(await env.BUCKET.head(outputKey(id, "ply"))).toBeNull();
    const complete = await request(`/internal/reconstructions/${id}/complete`, { method: "POST", headers: compute, body: JSON.stringify({ attempt: 1, formats: [{ format: "ply", file_size: 3 }] }) });
    expect(complete.status).toBe(409);
    expect(await (await status(id, account.apiKey)).json()).toMatchObject({ status: "failed", error: { code: "cancelled" } });
    expect(await refunds(account.accountId)).toHaveLength(1);
  });

  it("removes an output whose upload was streaming when the job was cancelled", async () => {
    const { account, id } = await createReconstruction();
    expect((await reconstructionStub(id).start(1)).accepted).toBe(true);
    // A body of known length (R2 needs one) that the test releases in two halves.
    const { readable, writable } = new FixedLengthStream(8);
    const writer = writable.getWriter();
    const headers = { ...compute, "content-type": "application/octet-stream", "content-length": "8" };
    const put = request(`/internal/objects/${outputKey(id, "glb")}`, { method: "PUT", headers, body: readable, duplex: "half" } as RequestInit);
    void writer.write(new Uint8Array([1, 2, 3, 4]));
    await new Promise((r) => setTimeout(r, 50));
    expect((await cancel(id, account.apiKey)).status).toBe(200);
    void writer.write(new Uint8Array([5, 6, 7, 8]));
    void writer.close();
    expect((await put).status).toBe(409);
    expect(await env.BUCKET.head(outputKey(id, "glb"))).toBeNull();
  });

  it("answers 409 already_terminal for a failed or completed one, and refunds nothing more", async () => {
    const { account, id } = await createReconstruction();
    expect((await cancel(id, account.apiKey)).status).toBe(200);
    await expectError(await cancel(id, account.apiKey), 409, "already_terminal");
    expect(await refunds(account.accountId)).toHaveLength(1);

    const done = await createReconstruction(account);
    await completeWithOutputs(done.id, { glb: 10 });
    await expectError(await cancel(done.id, account.apiKey), 409, "already_terminal");
    expect(await (await status(done.id, account.apiKey)).json()).toMatchObject({ status: "completed" });
    expect(await refunds(account.accountId)).toHaveLength(1);
  });

  it("answers 404 for another account's job, an unknown id and a malformed id, and changes nothing", async () => {
    const { account, id } = await createReconstruction();
    const stranger = await createAccount(1);
    await expectError(await cancel(id, stranger.apiKey), 404, "not_found");
    await expectError(await cancel("rec_AAAAAAAAAAAAAAAAAAAAAAAA", account.apiKey), 404, "not_found");
    await expectError(await cancel("nope", account.apiKey), 404, "not_found");
    expect(await (await status(id, account.apiKey)).json()).toMatchObject({ status: "pending" });
    expect(await refunds(account.accountId)).toEqual([]);
  });

  it("needs an API key (401) and carries the rate-limit headers", async () => {
    const { id } = await createReconstruction();
    const res = await request(`/v1/reconstruction/${id}/cancel`, { method: "POST" });
    await expectError(res, 401, "missing_api_key");
    expect(res.headers.get("RateLimit-Policy")).toBeTruthy();
    await expectError(await cancel(id, "pk_live_notakey"), 401, "invalid_api_key");
  });
});

describe("DELETE /v1/reconstruction/{id}", () => {
  it("removes every input and output object of a completed job; the id then answers 404 to its owner", async () => {
    const { account, id } = await createReconstruction();
    await completeWithOutputs(id, { glb: 100, ply: 50 });
    await env.BUCKET.put(reportKey(id), "{}");
    expect((await storedKeys(id)).length).toBe(5); // 2 inputs, 2 models, the report
    const res = await remove(id, account.apiKey);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect(await storedKeys(id)).toEqual([]);
    await expectError(await status(id, account.apiKey), 404, "not_found");
    await expectError(await request(`/v1/reconstruction/${id}/download/glb`, { headers: keyHeaders(account.apiKey) }), 404, "not_found");
    await expectError(await cancel(id, account.apiKey), 404, "not_found");
    await expectError(await remove(id, account.apiKey), 404, "not_found");
    expect(await refunds(account.accountId)).toEqual([]); // a completed job stays paid for
  });

  it("cancels a processing job first (one refund) and leaves nothing in R2", async () => {
    const { account, id } = await createReconstruction();
    expect((await reconstructionStub(id).start(1)).accepted).toBe(true);
    await env.BUCKET.put(outputKey(id, "ply"), new Uint8Array([1, 2]));
    expect((await remove(id, account.apiKey)).status).toBe(204);
    expect(await storedKeys(id)).toEqual([]);
    expect((await refunds(account.accountId)).map((r) => r.reason)).toEqual(["cancelled"]);
    expect(await accountStub(account.accountId).balance()).toBe(3);
    const heartbeat = await request(`/internal/reconstructions/${id}/heartbeat`, { method: "POST", headers: compute, body: JSON.stringify({ attempt: 1 }) });
    expect(heartbeat.status).toBe(409);
  });

  it("answers 404 for another account's job and leaves its objects and state alone", async () => {
    const { account, id } = await createReconstruction();
    const stranger = await createAccount(1);
    const before = await storedKeys(id);
    await expectError(await remove(id, stranger.apiKey), 404, "not_found");
    await expectError(await remove("rec_AAAAAAAAAAAAAAAAAAAAAAAB", account.apiKey), 404, "not_found");
    await expectError(await request(`/v1/reconstruction/${id}`, { method: "DELETE" }), 401, "missing_api_key");
    expect(await storedKeys(id)).toEqual(before);
    expect(await (await status(id, account.apiKey)).json()).toMatchObject({ status: "pending" });
  });
});
