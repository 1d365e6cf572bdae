/**
 * The internal task routes and work objects compute uses (edge/routes/internal-tasks.ts,
 * edge/routes/internal.ts): the secret, the work key rules, and the status codes of each verb.
 */
import { describe, expect, it } from "vitest";
import { workKey } from "../../shared/storage-keys.js";
import { env, request } from "./helpers.js";
import { createReconstruction, reconstructionStub } from "./reconstruction-support.js";
import { denseSpecs, processingReconstruction, recordTaskSends } from "./task-support.js";

const secret = { authorization: "Bearer test-compute-secret" };

function post(path: string, body: unknown, headers: Record<string, string> = secret) {
  return request(`/internal/reconstructions/${path}`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) });
}

function putObject(key: string, bytes: Uint8Array, headers: Record<string, string> = secret) {
  return request(`/internal/objects/${key}`, { method: "PUT", headers: { ...headers, "content-length": String(bytes.length) }, body: bytes });
}

describe("internal work objects", () => {
  it("writes and reads work keys of the reconstruction's attempts, and refuses keys outside them", async () => {
    const { id } = await processingReconstruction();
    const key = workKey(id, 1, "dense-000/payload.bin");
    const bytes = new Uint8Array([9, 8, 7, 6]);
    expect((await putObject(key, bytes)).status).toBe(201);
    const read = await request(`/internal/objects/${key}`, { headers: secret });
    expect(read.status).toBe(200);
    expect(new Uint8Array(await read.arrayBuffer())).toEqual(bytes);

    const refused = [
      `work/${id}/a1/..%2F..%2Finputs%2Fx`, // `..` segments, encoded so the URL parser keeps them
      `work/${id}/a1/dense-000%2F.%2Fx`,
      `work/${id}/b1/x`,
      `work/${id}/a01/x`,
      `work/${id}/a1/`,
      `work/${id}/x`,
      `work/acc_1/a1/x`,
      `scratch/${id}/a1/x`,
    ];
    for (const path of refused) {
      expect((await request(`/internal/objects/${path}`, { headers: secret })).status, path).toBe(404);
      expect((await putObject(path, bytes)).status, path).toBe(404);
    }
    expect((await env.BUCKET.list({ prefix: `work/${id}/` })).objects.map((o) => o.key)).toEqual([key]);
  });

  it("refuses work objects without the compute secret", async () => {
    const { id } = await processingReconstruction();
    const key = workKey(id, 1, "dense-000/payload.bin");
    await env.BUCKET.put(key, new Uint8Array(4));
    const callers: Array<Record<string, string>> = [{}, { authorization: "Bearer test-admin-token" }];
    for (const headers of callers) {
      expect((await request(`/internal/objects/${key}`, { headers })).status).toBe(401);
      expect((await putObject(key, new Uint8Array(2), headers)).status).toBe(401);
    }
    expect((await env.BUCKET.head(key))?.size).toBe(4);
  });

  it("stops accepting work objects once the job has ended", async () => {
    const { account, id } = await processingReconstruction();
    await reconstructionStub(id).cancel(account.accountId);
    const key = workKey(id, 1, "late.bin");
    expect((await putObject(key, new Uint8Array(3))).status).toBe(409);
    expect(await env.BUCKET.head(key)).toBeNull();
  });
});

describe("internal task routes", () => {
  it("registers tasks, lists them, and runs one through lease, heartbeat and completion", async () => {
    const { id } = await processingReconstruction();
    const sent = await recordTaskSends(id);
    const add = await post(`${id}/tasks`, { attempt: 1, tasks: denseSpecs(id, 2) });
    expect(add.status).toBe(200);
    expect(await add.json()).toEqual({ accepted: true, added: 2, reused: 0 });
    expect(await (await post(`${id}/tasks`, { attempt: 1, tasks: denseSpecs(id, 2) })).json()).toEqual({ accepted: true, added: 0, reused: 0 });
    expect(sent.messages.map((m) => m.key)).toEqual(["dense-000", "dense-001"]);

    const lease = await post(`${id}/tasks/dense-000/lease`, { attempt: 1, worker: "compute-a" });
    expect(lease.status).toBe(200);
    const granted = (await lease.json()) as { granted: boolean; lease_id: string; payload_key: string; delivery: number; lease_seconds: number };
    expect(granted).toMatchObject({ granted: true, payload_key: workKey(id, 1, "dense-000/payload.bin"), delivery: 1, lease_seconds: 60 });
    const second = await post(`${id}/tasks/dense-000/lease`, { attempt: 1, worker: "compute-b" });
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({ granted: false, reason: expect.stringMatching(/^held by compute-a/), stop: true });

    expect((await post(`${id}/tasks/dense-000/heartbeat`, { attempt: 1, lease_id: granted.lease_id, progress: 0.4 })).status).toBe(200);
    const wrongLease = await post(`${id}/tasks/dense-000/heartbeat`, { attempt: 1, lease_id: "someone-else", progress: 0.4 });
    expect(wrongLease.status).toBe(409);
    expect(await wrongLease.json()).toMatchObject({ accepted: false, stop: true, reason: expect.any(String) });
    const result_key = workKey(id, 1, "dense-000/result.bin");
    expect((await post(`${id}/tasks/dense-000/complete`, { attempt: 1, lease_id: granted.lease_id, result_key })).status).toBe(200);

    const list = await request(`/internal/reconstructions/${id}/tasks?attempt=1`, { headers: secret });
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({
      tasks: [
        { key: "dense-000", kind: "dense-cluster", state: "done", deliveries: 1, progress: 1, result_key, error: null, worker: "compute-a", reused_from_attempt: null },
        { key: "dense-001", kind: "dense-cluster", state: "pending", deliveries: 1, progress: 0, result_key: null, error: null, worker: null, reused_from_attempt: null },
      ],
    });
  });

  it("fails a task through the route: retryable failures come back pending with the next delivery", async () => {
    const { id } = await processingReconstruction();
    await recordTaskSends(id);
    await post(`${id}/tasks`, { attempt: 1, tasks: denseSpecs(id, 1) });
    const { lease_id } = (await (await post(`${id}/tasks/dense-000/lease`, { attempt: 1, worker: "compute-a" })).json()) as { lease_id: string };
    const failure = { attempt: 1, lease_id, code: "out_of_memory", message: "heap", retryable: true };
    expect((await post(`${id}/tasks/dense-000/fail`, failure)).status).toBe(200);
    expect((await post(`${id}/tasks/dense-000/fail`, failure)).status).toBe(409);
    expect(await reconstructionStub(id).tasks(1)).toMatchObject([{ state: "pending", deliveries: 2 }]);
  });

  it("answers 409 with stop for a stale attempt or a finished job, 400 for malformed bodies, 404 for unknown paths", async () => {
    const { account, id } = await createReconstruction();
    await recordTaskSends(id);
    const stale = await post(`${id}/tasks`, { attempt: 2, tasks: denseSpecs(id, 1, 2) });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ accepted: false, stop: true, reason: expect.stringMatching(/not the current attempt/) });

    expect((await post(`${id}/tasks`, { attempt: 1, tasks: [] })).status).toBe(400);
    expect((await post(`${id}/tasks`, { attempt: 1, tasks: [{ ...denseSpecs(id, 1)[0]!, payload_key: workKey(id, 2, "p.bin") }] })).status).toBe(400);
    expect((await post(`${id}/tasks`, { attempt: 1, tasks: [{ ...denseSpecs(id, 1)[0]!, payload_key: `work/${id}/a1/../p.bin` }] })).status).toBe(400);
    expect((await post(`${id}/tasks/dense-000/lease`, { attempt: 1 })).status).toBe(400);
    expect((await post(`${id}/tasks/dense-000/complete`, { attempt: 1, lease_id: "x", result_key: `outputs/${id}/model.glb` })).status).toBe(400);
    expect((await request(`/internal/reconstructions/${id}/tasks`, { headers: secret })).status).toBe(400);
    expect((await request(`/internal/reconstructions/${id}/tasks?attempt=0`, { headers: secret })).status).toBe(400);
    expect((await post(`${id}/tasks/Dense_000/lease`, { attempt: 1, worker: "w" })).status).toBe(404);
    expect((await post(`${id}/tasks/dense-000/steal`, { attempt: 1, worker: "w" })).status).toBe(404);
    expect((await post(`not-an-id/tasks`, { attempt: 1, tasks: denseSpecs(id, 1) })).status).toBe(404);

    // A registration is a sign of a running job: it starts a pending one.
    expect((await post(`${id}/tasks`, { attempt: 1, tasks: denseSpecs(id, 1) })).status).toBe(200);
    await reconstructionStub(id).cancel(account.accountId);
    const late = await post(`${id}/tasks/dense-000/lease`, { attempt: 1, worker: "compute-a" });
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({ granted: false, stop: true, reason: "the reconstruction is already failed" });
  });

  it("refuses every task route without the compute secret", async () => {
    const { id } = await processingReconstruction();
    await recordTaskSends(id);
    const callers: Array<Record<string, string>> = [{}, { authorization: "Bearer test-admin-token" }, { authorization: "Bearer test-compute-secreT" }];
    for (const headers of callers) {
      expect((await post(`${id}/tasks`, { attempt: 1, tasks: denseSpecs(id, 1) }, headers)).status).toBe(401);
      expect((await post(`${id}/tasks/dense-000/lease`, { attempt: 1, worker: "w" }, headers)).status).toBe(401);
      expect((await request(`/internal/reconstructions/${id}/tasks?attempt=1`, { headers })).status).toBe(401);
    }
    expect(await reconstructionStub(id).tasks(1)).toEqual([]);
  });

  it("keeps the job verbs working beside the task routes", async () => {
    const { id } = await processingReconstruction();
    expect((await post(`${id}/heartbeat`, { attempt: 1 })).status).toBe(200);
    expect((await post(`${id}/tasks-and-more`, { attempt: 1 })).status).toBe(404);
  });
});

describe("deleting a reconstruction", () => {
  it("removes its work objects with its inputs and outputs", async () => {
    const { account, id } = await processingReconstruction();
    await env.BUCKET.put(workKey(id, 1, "dense-000/payload.bin"), new Uint8Array(4));
    await env.BUCKET.put(workKey(id, 2, "dense-000/payload.bin"), new Uint8Array(4));
    const res = await request(`/v1/reconstruction/${id}`, { method: "DELETE", headers: { authorization: `Bearer ${account.apiKey}` } });
    expect(res.status).toBe(204);
    expect((await env.BUCKET.list({ prefix: `work/${id}/` })).objects).toEqual([]);
  });
});
