/**
 * The internal API compute calls (edge/routes/internal.ts): its secret, the R2 key rules, and
 * reports arriving repeated, late or out of order — with state and ledger re-read.
 */
import { describe, expect, it } from "vitest";
import { outputKey } from "../../shared/storage-keys.js";
import { accountStub, env, request } from "./helpers.js";
import { createReconstruction, reconstructionStub } from "./reconstruction-support.js";

const secret = { authorization: "Bearer test-compute-secret" };

function report(id: string, verb: string, body: unknown, headers: Record<string, string> = secret) {
  return request(`/internal/reconstructions/${id}/${verb}`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) });
}

describe("internal API", () => {
  it("refuses callers without the compute secret", async () => {
    const { id } = await createReconstruction();
    const attempts: Array<Record<string, string>> = [{}, { authorization: "Bearer test-admin-token" }, { authorization: "Bearer test-compute-secreT" }];
    for (const headers of attempts) {
      const res = await report(id, "start", { attempt: 1 }, headers);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: { code: "invalid_api_key" } });
    }
    expect(await reconstructionStub(id).history()).toHaveLength(1); // only "created": nothing moved
  });

  it("serves inputs, writes outputs only under outputs/, and refuses other keys", async () => {
    const { id } = await createReconstruction();
    const inputs = await env.BUCKET.list({ prefix: `inputs/${id}/` });
    expect(inputs.objects.length).toBe(2);
    const get = await request(`/internal/objects/${inputs.objects[0].key}`, { headers: secret });
    expect(get.status).toBe(200);
    expect((await get.arrayBuffer()).byteLength).toBe(inputs.objects[0].size);
    const body = new Uint8Array([1, 2, 3, 4, 5]);
    const put = await request(`/internal/objects/${outputKey(id, "ply")}`, { method: "PUT", headers: { ...secret, "content-length": "5" }, body });
    expect(put.status).toBe(201);
    expect((await env.BUCKET.head(outputKey(id, "ply")))?.size).toBe(5);
    const overwriteInput = await request(`/internal/objects/${inputs.objects[0].key}`, { method: "PUT", headers: { ...secret, "content-length": "5" }, body });
    expect(overwriteInput.status).toBe(400);
    expect((await env.BUCKET.head(inputs.objects[0].key))?.size).toBe(inputs.objects[0].size);
    const escape = await request(`/internal/objects/outputs/${id}/..%2F..%2Fsecret`, { headers: secret });
    expect(escape.status).toBe(404);
  });

  it("keeps the state machine right when reports repeat, arrive late or out of order", async () => {
    const { account, id } = await createReconstruction();
    // A progress report whose start was lost starts the job; a report of another attempt is refused.
    expect(await (await report(id, "progress", { attempt: 2, stage: "features", progress: 10, files_processed: 1 })).json()).toMatchObject({ accepted: false });
    expect(await (await report(id, "progress", { attempt: 1, stage: "features", progress: 10, files_processed: 1 })).json()).toMatchObject({ accepted: true, status: "processing" });
    expect((await report(id, "start", { attempt: 1 })).status).toBe(200); // a repeated start is harmless
    expect((await report(id, "progress", { attempt: 1, stage: "sfm", progress: 40, files_processed: 2 })).status).toBe(200);
    // An older progress value arriving late never moves progress back.
    await report(id, "progress", { attempt: 1, stage: "features", progress: 20, files_processed: 1 });
    let status = await reconstructionStub(id).status(account.accountId);
    expect(status).toMatchObject({ status: "processing", progress: 40 });
    await env.BUCKET.put(outputKey(id, "glb"), new Uint8Array(64));
    const complete = { attempt: 1, formats: [{ format: "glb", file_size: 64 }] };
    expect((await report(id, "complete", complete)).status).toBe(200);
    // A duplicate completion is answered "already completed" and changes nothing.
    expect(await (await report(id, "complete", complete)).json()).toMatchObject({ accepted: false, status: "completed" });
    // A failure or progress after completion is refused and changes nothing.
    const lateFail = await report(id, "fail", { attempt: 1, code: "processing_error", message: "late", suggestion: "" });
    expect(lateFail.status).toBe(409);
    expect((await report(id, "progress", { attempt: 1, stage: "mesh", progress: 90, files_processed: 2 })).status).toBe(409);
    status = await reconstructionStub(id).status(account.accountId);
    expect(status).toMatchObject({ status: "completed", progress: 100, credit_refunded: false });
    const rows = (await accountStub(account.accountId).ledger()).filter((r) => r.reconstruction_id === id);
    expect(rows.map((r) => r.kind)).toEqual(["debit"]);
  });

  it("ignores reports of a stale attempt and refunds a failure once", async () => {
    const { account, id } = await createReconstruction();
    expect((await report(id, "start", { attempt: 1 })).status).toBe(200);
    const failure = { attempt: 1, code: "not_enough_overlap", message: "Only 1 of 2 images could be placed.", suggestion: "Take more overlapping photos." };
    expect((await report(id, "fail", failure)).status).toBe(200);
    // The repeated failure is answered "already failed" and refunds nothing more.
    expect(await (await report(id, "fail", failure)).json()).toMatchObject({ accepted: false, status: "failed" });
    const status = await reconstructionStub(id).status(account.accountId);
    expect(status).toMatchObject({ status: "failed", credit_refunded: true, error: { code: "not_enough_overlap" } });
    const rows = (await accountStub(account.accountId).ledger()).filter((r) => r.reconstruction_id === id);
    expect(rows.map((r) => r.kind).sort()).toEqual(["debit", "refund"]);
    const bad = await report(id, "progress", { attempt: 1, stage: "nowhere", progress: 5, files_processed: 0 });
    expect(bad.status).toBe(400);
  });
});
