/**
 * Cancel and delete against the real stack (wrangler dev + the compute process): a job
 * cancelled while compute runs it stops (compute's running list empties, no output reaches
 * R2, it never completes), its credit comes back once; DELETE then leaves no object behind.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FORMATS } from "../../shared/formats.js";
import { inputKey, outputKey, reportKey } from "../../shared/storage-keys.js";
import { renderScene, writeViewsAsImages } from "../support/render.js";
import { createAccount, getJson, upload, type Api, type StatusBody } from "./client.js";
import { startSystem, type RunningSystem } from "./system.js";

let system: RunningSystem;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "e2e-cancel-"));
  system = await startSystem();
}, 180_000);

afterAll(async () => {
  await system?.stop();
  await rm(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether R2 holds `key`, asked through the edge's internal API (the way compute reads). */
async function stored(key: string): Promise<boolean> {
  const res = await fetch(`${system.baseUrl}/internal/objects/${key}`, { headers: { authorization: "Bearer e2e-compute-secret" } });
  await res.body?.cancel();
  if (res.status !== 200 && res.status !== 404) throw new Error(`internal GET ${key}: HTTP ${res.status}`);
  return res.status === 200;
}

async function runningJobs(): Promise<string[]> {
  const health = (await (await fetch(`${system.computeUrl}/healthz`)).json()) as { running_jobs: Array<{ id: string }> };
  return health.running_jobs.map((j) => j.id);
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${system.logs().slice(-3000)}`);
    await sleep(250);
  }
}

async function balance(api: Api): Promise<number> {
  return (await getJson<{ balance: number }>(api, "/v1/account")).body.balance;
}

describe("cancel and delete, end to end", () => {
  it("stops a processing job at its next checkpoint, refunds once, then deletes every object", async () => {
    const scene = renderScene({ scene: "object", views: 10, width: 400, height: 300, seed: 3, stepDegrees: 12 });
    const files = await writeViewsAsImages(scene.views, path.join(dir, "photos"));
    const api = await createAccount(system.baseUrl, system.adminToken, 2);
    const res = await upload(api, files, { quality: "preview" });
    expect(res.status, await res.clone().text()).toBe(202);
    const { id } = (await res.json()) as { id: string };
    expect(await balance(api)).toBe(1);

    // Cancel once the pipeline itself runs (past downloading the inputs).
    await waitUntil("a pipeline stage after ingest", async () => {
      const { body } = await getJson<StatusBody>(api, `/v1/reconstruction/${id}/status`);
      if (body.status === "completed" || body.status === "failed") throw new Error(`ended before the cancel: ${JSON.stringify(body)}`);
      return body.status === "processing" && body.stage !== null && body.stage !== "ingest";
    }, 300_000);
    expect(await runningJobs()).toContain(id);
    const cancelled = await fetch(`${api.baseUrl}/v1/reconstruction/${id}/cancel`, { method: "POST", headers: { authorization: `Bearer ${api.apiKey}` } });
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toMatchObject({ id, status: "failed", error: { code: "cancelled" }, credit_refunded: true });
    expect(await balance(api)).toBe(2);

    // Compute hears it from its next heartbeat (every 2 s here) and drops the job.
    await waitUntil("compute to drop the job", async () => !(await runningJobs()).includes(id), 30_000);
    expect(system.logs()).toMatch(new RegExp(`"job":"${id}","event":"cancelled"`));
    await sleep(3000);
    const after = (await getJson<StatusBody>(api, `/v1/reconstruction/${id}/status`)).body;
    expect(after).toMatchObject({ status: "failed", error: { code: "cancelled" }, credit_refunded: true });
    for (const format of FORMATS) expect(await stored(outputKey(id, format)), format).toBe(false);
    expect(await stored(reportKey(id))).toBe(false);
    expect(await balance(api)).toBe(2);

    // A second cancel is refused; the refund stays single.
    const again = await fetch(`${api.baseUrl}/v1/reconstruction/${id}/cancel`, { method: "POST", headers: { authorization: `Bearer ${api.apiKey}` } });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: { code: "already_terminal" } });
    expect(await balance(api)).toBe(2);

    // DELETE: inputs gone from R2, the id answers 404 to its owner.
    const names = files.map((f) => path.basename(f));
    expect(await stored(inputKey(id, 0, names[0]!))).toBe(true);
    const deleted = await fetch(`${api.baseUrl}/v1/reconstruction/${id}`, { method: "DELETE", headers: { authorization: `Bearer ${api.apiKey}` } });
    expect(deleted.status).toBe(204);
    for (const [index, name] of names.entries()) expect(await stored(inputKey(id, index, name))).toBe(false);
    expect((await getJson(api, `/v1/reconstruction/${id}/status`)).status).toBe(404);
    expect(await balance(api)).toBe(2);
  }, 600_000);
});
