/**
 * Idempotent creation against the real edge (wrangler dev): the response to a creation is lost
 * on the way back (a proxy drops the connection after the edge answered), the client retries
 * with the same Idempotency-Key and a freshly built form (a new multipart boundary), and gets
 * the first reconstruction back, charged once.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import sharp from "sharp";
import { createAccount, getJson } from "./client.js";
import { freePort, startSystem, type RunningSystem } from "./system.js";

let system: RunningSystem;
let proxy: http.Server;
let proxyPort: number;
/** Bodies the edge answered but the client never received. */
const swallowed: string[] = [];

beforeAll(async () => {
  system = await startSystem({ noCompute: true });
  proxyPort = await freePort();
  const upstream = new URL(system.baseUrl);
  proxy = http.createServer((req, res) => {
    const forward = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: { ...req.headers, "accept-encoding": "identity" } }, (answer) => {
      let body = "";
      answer.on("data", (chunk: Buffer) => (body += chunk.toString()));
      answer.on("end", () => {
        swallowed.push(body);
        res.socket?.destroy(); // the network fails after the edge did the work
      });
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(proxyPort, "127.0.0.1", resolve));
}, 180_000);

afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((r) => proxy?.close(r));
  await system?.stop();
});

describe("Idempotency-Key, end to end", () => {
  it("a retry after a lost response returns the first reconstruction and charges once", async () => {
    const api = await createAccount(system.baseUrl, system.adminToken, 3);
    const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 40, b: 40 } } }).jpeg().toBuffer();
    const form = () => {
      const f = new FormData();
      f.append("files", new Blob([photo]), "red.jpg");
      f.append("quality", "preview");
      return f;
    };
    const key = crypto.randomUUID();
    const headers = { authorization: `Bearer ${api.apiKey}`, "idempotency-key": key };
    await expect(fetch(`http://127.0.0.1:${proxyPort}/v1/reconstruction`, { method: "POST", headers, body: form() })).rejects.toThrow();
    expect(swallowed).toHaveLength(1);
    const lost = JSON.parse(swallowed[0]!) as { id: string };
    expect(lost.id).toMatch(/^rec_/);

    const retry = await fetch(`${api.baseUrl}/v1/reconstruction`, { method: "POST", headers, body: form() });
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await retry.json()).toEqual(lost);
    const account = await getJson<{ balance: number; usage: { reconstructions: number } }>(api, "/v1/account");
    expect(account.body).toMatchObject({ balance: 2, usage: { reconstructions: 1 } });
    expect((await getJson(api, `/v1/reconstruction/${lost.id}/status`)).status).toBe(200);

    // The same key with other content is refused and charges nothing.
    const other = new FormData();
    other.append("files", new Blob([photo]), "renamed.jpg");
    other.append("quality", "preview");
    const reused = await fetch(`${api.baseUrl}/v1/reconstruction`, { method: "POST", headers, body: other });
    expect(reused.status).toBe(422);
    expect(await reused.json()).toMatchObject({ error: { code: "idempotency_key_reused" } });
    expect((await getJson<{ balance: number }>(api, "/v1/account")).body.balance).toBe(2);
  }, 120_000);
});
