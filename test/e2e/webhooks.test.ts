/**
 * Webhooks against the real edge (wrangler dev, its queues): a local receiver (node:http on a
 * free port) answers 500 to the first attempts of each event, then 200. Compute is played
 * through the edge's internal API, as in faults.test.ts. Each of `processing` and `completed`
 * must then be accepted exactly once, every attempt correctly signed (checked here with
 * node:crypto, independently of the edge's code), and the attempts listed by the API.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import sharp from "sharp";
import { createAccount, getJson, type Api } from "./client.js";
import { freePort, startSystem, type RunningSystem } from "./system.js";

interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  answered: number;
}

const FAILURES_PER_EVENT = 2;

/** Answers 500 to the first FAILURES_PER_EVENT attempts of each webhook-id, then 200. */
class Receiver {
  readonly received: Received[] = [];
  port = 0;
  private server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      const id = String(req.headers["webhook-id"]);
      const seen = this.received.filter((r) => r.id === id).length;
      const answered = seen < FAILURES_PER_EVENT ? 500 : 200;
      this.received.push({ id, timestamp: String(req.headers["webhook-timestamp"]), signature: String(req.headers["webhook-signature"]), body, answered });
      res.writeHead(answered).end();
    });
  });
  async listen(): Promise<void> {
    this.port = await freePort();
    await new Promise<void>((resolve) => this.server.listen(this.port, "127.0.0.1", resolve));
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Standard Webhooks verification, written from the spec with node:crypto. */
function verify(secret: string, r: Pick<Received, "id" | "timestamp" | "signature" | "body">, nowSeconds = Date.now() / 1000): boolean {
  if (Math.abs(nowSeconds - Number(r.timestamp)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${r.id}.${r.timestamp}.${r.body}`).digest();
  return r.signature.split(" ").some((entry) => {
    const [version, value] = entry.split(",");
    const given = Buffer.from(value ?? "", "base64");
    return version === "v1" && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

let receiver: Receiver;
let system: RunningSystem;

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.listen();
  system = await startSystem({ noCompute: true, vars: { WEBHOOK_RETRY_SCHEDULE_SECONDS: "1,1,2,2,2" } });
}, 180_000);

afterAll(async () => {
  await system?.stop();
  await receiver?.close();
});

async function report(id: string, verb: string, body: unknown): Promise<number> {
  const res = await fetch(`${system.baseUrl}/internal/reconstructions/${id}/${verb}`, {
    method: "POST",
    headers: { authorization: "Bearer e2e-compute-secret", "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  await res.body?.cancel();
  return res.status;
}

async function createJob(api: Api): Promise<string> {
  const form = new FormData();
  const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 10, g: 120, b: 200 } } }).jpeg().toBuffer();
  form.append("files", new Blob([photo]), "a.jpg");
  const res = await fetch(`${api.baseUrl}/v1/reconstruction`, { method: "POST", headers: { authorization: `Bearer ${api.apiKey}` }, body: form });
  expect(res.status, await res.clone().text()).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

async function waitFor(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; received ${JSON.stringify(receiver.received.map((r) => [r.id, r.answered]))}\n${system.logs().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("webhooks, end to end", () => {
  it("delivers processing and completed exactly once each after forced 500s, signed", async () => {
    const api = await createAccount(system.baseUrl, system.adminToken, 2);
    const created = await fetch(`${api.baseUrl}/v1/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${api.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ url: `http://127.0.0.1:${receiver.port}/hooks` }),
    });
    expect(created.status).toBe(201);
    const hook = (await created.json()) as { id: string; secret: string };

    const id = await createJob(api);
    expect(await report(id, "start", { attempt: 1 })).toBe(200);
    await report(id, "progress", { attempt: 1, stage: "features", progress: 30, files_processed: 1 });
    const ply = new Uint8Array([1, 2, 3]);
    const put = await fetch(`${system.baseUrl}/internal/objects/outputs/${id}/model.ply`, { method: "PUT", headers: { authorization: "Bearer e2e-compute-secret", "content-length": "3" }, body: ply });
    expect(put.status).toBe(201);
    expect(await report(id, "complete", { attempt: 1, formats: [{ format: "ply", file_size: 3 }] })).toBe(200);

    const accepted = () => receiver.received.filter((r) => r.answered === 200);
    await waitFor("both events accepted", () => accepted().length >= 2, 90_000);
    await new Promise((r) => setTimeout(r, 5000)); // anything extra would arrive within the schedule's delays

    const byType = new Map<string, Received[]>();
    for (const r of receiver.received) {
      const payload = JSON.parse(r.body) as { type: string; timestamp: string; data: { id: string; status: string } };
      expect(payload.data.id).toBe(id);
      byType.set(payload.type, [...(byType.get(payload.type) ?? []), r]);
    }
    expect([...byType.keys()].sort()).toEqual(["reconstruction.completed", "reconstruction.processing"]);
    for (const [type, attempts] of byType) {
      // FAILURES_PER_EVENT answers of 500, then exactly one 200; one webhook-id across the retries.
      expect(attempts.map((a) => a.answered), type).toEqual([...Array(FAILURES_PER_EVENT).fill(500), 200]);
      expect(new Set(attempts.map((a) => a.id)).size).toBe(1);
      expect(attempts[0]!.id).toMatch(/^msg_/);
      for (const a of attempts) expect(verify(hook.secret, a), `${type} signature`).toBe(true);
      expect(JSON.parse(attempts[0]!.body).data.status).toBe(type === "reconstruction.processing" ? "processing" : "completed");
    }
    expect(byType.get("reconstruction.processing")![0]!.id).not.toBe(byType.get("reconstruction.completed")![0]!.id);
    // The independent verifier refuses a tampered body, another secret, and a stale timestamp.
    const sample = accepted()[0]!;
    expect(verify(hook.secret, { ...sample, body: sample.body.replace("processing", "completed").replace("completed", "failed") })).toBe(false);
    expect(verify("whsec_" + Buffer.alloc(32, 7).toString("base64"), sample)).toBe(false);
    expect(verify(hook.secret, sample, Number(sample.timestamp) + 3600)).toBe(false);

    // The API lists each delivery with its three attempts.
    const { status, body } = await getJson<{ data: Array<{ event_type: string; status: string; attempts: Array<{ response_status: number }> }> }>(api, `/v1/webhooks/${hook.id}/deliveries`);
    expect(status).toBe(200);
    expect(body.data.map((d) => [d.event_type, d.status, d.attempts.map((a) => a.response_status)]).sort()).toEqual([
      ["reconstruction.completed", "succeeded", [500, 500, 200]],
      ["reconstruction.processing", "succeeded", [500, 500, 200]],
    ]);
  }, 240_000);
});
