/**
 * Faults at the edge ↔ compute seam, through the real edge (wrangler dev): compute answering
 * 503, 500 or not answering, and its reports repeated or out of order. Compute is played by a
 * small HTTP server the test controls, which reports through the edge's real internal API.
 * Afterwards the state machine and the account are re-read: one debit, the right end state.
 */
import http from "node:http";
import path from "node:path";
import os from "node:os";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, getJson, pollUntilDone, upload, type Api, type StatusBody } from "./client.js";
import { freePort, startSystem, type RunningSystem } from "./system.js";

type Behaviour = "503" | "500" | "hang" | "202";

/** A stand-in for compute: answers each delivery with the next scripted behaviour. */
class ScriptedCompute {
  readonly deliveries: Array<{ id: string; attempt: number; answered: Behaviour }> = [];
  private scripts = new Map<string, Behaviour[]>();
  /** Taken by the first delivery of a reconstruction not seen before. */
  nextScript: Behaviour[] = ["202"];
  private server = http.createServer((req, res) => this.handle(req, res));
  port = 0;

  async listen(): Promise<void> {
    this.port = await freePort();
    await new Promise<void>((resolve) => this.server.listen(this.port, "127.0.0.1", resolve));
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const job = JSON.parse(body) as { reconstruction_id: string; attempt: number };
      if (!this.scripts.has(job.reconstruction_id)) this.scripts.set(job.reconstruction_id, [...this.nextScript]);
      const script = this.scripts.get(job.reconstruction_id)!;
      const behaviour = script.length > 1 ? script.shift()! : (script[0] ?? "202");
      this.deliveries.push({ id: job.reconstruction_id, attempt: job.attempt, answered: behaviour });
      if (behaviour === "hang") return; // never answers; the edge's dispatch timeout fires
      res.writeHead(Number(behaviour), behaviour === "503" ? { "retry-after": "1" } : {});
      res.end(JSON.stringify({ behaviour }));
    });
  }
}

let compute: ScriptedCompute;
let system: RunningSystem;
let dir: string;
let photos: string[];

beforeAll(async () => {
  compute = new ScriptedCompute();
  await compute.listen();
  system = await startSystem({
    noCompute: true,
    vars: { COMPUTE_URL: `http://127.0.0.1:${compute.port}`, DISPATCH_TIMEOUT_SECONDS: "2", DISPATCH_MAX_BACKOFF_SECONDS: "1", DISPATCH_UNREACHABLE_SECONDS: "20" },
  });
  dir = await mkdtemp(path.join(os.tmpdir(), "e2e-faults-"));
  photos = [];
  for (const [i, colour] of [[200, 30, 30], [30, 200, 30]].entries()) {
    const file = path.join(dir, `photo${i}.jpg`);
    await writeFile(file, await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: colour[0], g: colour[1], b: colour[2] } } }).jpeg().toBuffer());
    photos.push(file);
  }
}, 180_000);

afterAll(async () => {
  await system?.stop();
  await compute?.close();
  await rm(dir, { recursive: true, force: true });
});

async function createJob(api: Api): Promise<string> {
  const res = await upload(api, photos);
  expect(res.status, await res.clone().text()).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

async function waitForDeliveries(id: string, count: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (compute.deliveries.filter((d) => d.id === id).length < count) {
    if (Date.now() > deadline) throw new Error(`only ${compute.deliveries.filter((d) => d.id === id).length} deliveries of ${id}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Reports as compute would, through the edge's internal API. */
async function report(id: string, verb: string, body: unknown): Promise<{ status: number; body: { accepted: boolean; status?: string } }> {
  const res = await fetch(`${system.baseUrl}/internal/reconstructions/${id}/${verb}`, {
    method: "POST",
    headers: { authorization: "Bearer e2e-compute-secret", "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { accepted: boolean; status?: string } };
}

async function putOutput(id: string, format: string, bytes: Uint8Array<ArrayBuffer>): Promise<void> {
  const res = await fetch(`${system.baseUrl}/internal/objects/outputs/${id}/model.${format}`, {
    method: "PUT",
    headers: { authorization: "Bearer e2e-compute-secret", "content-length": String(bytes.byteLength) },
    body: new Blob([bytes]),
  });
  expect(res.status).toBe(201);
}

async function balance(api: Api): Promise<number> {
  return (await getJson<{ balance: number }>(api, "/v1/account")).body.balance;
}

describe("edge ↔ compute faults", () => {
  it("retries while compute answers 503, then 500, then times out, and completes once it accepts", async () => {
    const api = await createAccount(system.baseUrl, system.adminToken, 2);
    compute.nextScript = ["503", "500", "hang", "202"];
    const id = await createJob(api);
    await waitForDeliveries(id, 4, 90_000);
    const answered = compute.deliveries.filter((d) => d.id === id).map((d) => d.answered);
    expect(answered).toEqual(["503", "500", "hang", "202"]);
    expect((await getJson<StatusBody>(api, `/v1/reconstruction/${id}/status`)).body.status).toBe("pending");
    // Compute reports: start twice, progress out of order, completion twice.
    expect((await report(id, "start", { attempt: 1 })).body.accepted).toBe(true);
    expect((await report(id, "start", { attempt: 1 })).body.accepted).toBe(true);
    await report(id, "progress", { attempt: 1, stage: "sfm", progress: 40, files_processed: 2 });
    await report(id, "progress", { attempt: 1, stage: "features", progress: 20, files_processed: 1 });
    const mid = (await getJson<StatusBody>(api, `/v1/reconstruction/${id}/status`)).body;
    expect(mid).toMatchObject({ status: "processing", progress: 40 });
    await putOutput(id, "ply", new Uint8Array([1, 2, 3]));
    const completion = { attempt: 1, formats: [{ format: "ply", file_size: 3 }] };
    expect((await report(id, "complete", completion)).body).toMatchObject({ accepted: true, status: "completed" });
    expect((await report(id, "complete", completion)).body).toMatchObject({ accepted: false, status: "completed" });
    expect((await report(id, "fail", { attempt: 1, code: "processing_error", message: "late", suggestion: "" })).body.accepted).toBe(false);
    const last = (await getJson<StatusBody>(api, `/v1/reconstruction/${id}/status`)).body;
    expect(last).toMatchObject({ status: "completed", progress: 100, credit_refunded: false });
    expect(await balance(api)).toBe(1);
  }, 150_000);

  it("fails with a reason and refunds once when compute keeps answering 500 for DISPATCH_UNREACHABLE_SECONDS", async () => {
    const api = await createAccount(system.baseUrl, system.adminToken, 1);
    compute.nextScript = ["500"];
    const id = await createJob(api);
    const seen = await pollUntilDone(api, id, 120_000, 500);
    const last = seen.at(-1)!;
    expect(last.status).toBe("failed");
    expect(last.error?.code).toBe("dispatch_failed");
    expect(last.credit_refunded).toBe(true);
    expect(await balance(api)).toBe(1);
    expect(last.error?.message).toMatch(/unreachable/);
    // The line tried again with growing delays (2, 4, 8, 16 s) until the 20-s window had passed.
    expect(compute.deliveries.filter((d) => d.id === id).length).toBeGreaterThanOrEqual(4);
  }, 150_000);
});
