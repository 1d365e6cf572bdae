/**
 * The SDK's retries against a scripted local server: a dropped connection, 429 with
 * Retry-After, 5xx, and errors that must not be retried; one Idempotency-Key per logical create,
 * the same on every attempt, and the same complete body each time.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ApiError, NetworkError, PhotogrammetryClient, type UploadProgress } from "../../clients/typescript/src/index.js";
import { CREATED, errorBody, filesOf, scriptedServer, type ScriptedServer } from "./sdk-support.js";

let dir: string;
let files: string[];
let server: ScriptedServer | undefined;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "sdk-retry-"));
  files = [path.join(dir, "a.jpg"), path.join(dir, "b.jpg")];
  await writeFile(files[0], Buffer.alloc(300_000, 1));
  await writeFile(files[1], Buffer.alloc(70_000, 2));
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function clientFor(url: string, maxAttempts = 4): PhotogrammetryClient {
  return new PhotogrammetryClient({ apiKey: "pk_test", baseUrl: url, retry: { maxAttempts, baseDelayMs: 20, maxDelayMs: 5000 } });
}

describe("SDK retries", () => {
  it("resends a create after a dropped connection with the same Idempotency-Key and the same bytes", async () => {
    server = await scriptedServer([{ drop: true }, { status: 202, body: CREATED }]);
    const created = await clientFor(server.url).createReconstruction(files, { quality: "preview" });
    expect(created.id).toBe(CREATED.id);
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    expect(first.headers["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.headers["idempotency-key"]).toBe(first.headers["idempotency-key"]);
    expect(second.headers.authorization).toBe("Bearer pk_test");
    for (const request of server.requests) {
      expect(Number(request.headers["content-length"])).toBe(request.body.length);
      const parts = await filesOf(request);
      expect(parts.map((p) => [p.name, p.bytes.length])).toEqual([["a.jpg", 300_000], ["b.jpg", 70_000]]);
    }
  });

  it("gives each logical create its own key", async () => {
    server = await scriptedServer([{ status: 202, body: CREATED }, { status: 202, body: CREATED }]);
    const client = clientFor(server.url);
    await client.createReconstruction([files[1]]);
    await client.createReconstruction([files[1]]);
    expect(server.requests[0].headers["idempotency-key"]).not.toBe(server.requests[1].headers["idempotency-key"]);
  });

  it("waits what Retry-After says on 429, then retries", async () => {
    server = await scriptedServer([{ status: 429, body: errorBody("rate_limited"), headers: { "retry-after": "1" } }, { status: 202, body: CREATED }]);
    await clientFor(server.url).createReconstruction([files[1]]);
    const [first, second] = server.requests;
    expect(second.at - first.at).toBeGreaterThanOrEqual(950);
    expect(second.headers["idempotency-key"]).toBe(first.headers["idempotency-key"]);
  });

  it("retries 5xx with back-off on GETs", async () => {
    server = await scriptedServer([{ status: 503, body: errorBody("service_unavailable") }, { status: 502, body: "bad gateway" }, { status: 200, body: { ...CREATED, status: "processing" } }]);
    const status = await clientFor(server.url).get(CREATED.id);
    expect(status.status).toBe("processing");
    expect(server.requests.map((r) => r.url)).toEqual(Array(3).fill(`/v1/reconstruction/${CREATED.id}/status`));
  });

  it("does not retry a 4xx and throws the API's code", async () => {
    server = await scriptedServer([{ status: 402, body: errorBody("insufficient_credits", "balance is 0") }]);
    const error = await clientFor(server.url).createReconstruction([files[1]]).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 402, code: "insufficient_credits", message: "balance is 0", suggestion: "try again" });
    expect(server.requests).toHaveLength(1);
  });

  it("gives up after maxAttempts with the last error", async () => {
    server = await scriptedServer([]);
    const error = await clientFor(server.url, 3).get(CREATED.id).catch((e) => e);
    expect(error).toMatchObject({ status: 500, code: "internal_error" });
    expect(server.requests).toHaveLength(3);
  });

  it("throws NetworkError when nothing listens", async () => {
    server = await scriptedServer([]);
    const url = server.url;
    await server.close();
    server = undefined;
    const error = await clientFor(url, 2).get(CREATED.id).catch((e) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toContain("ECONNREFUSED");
  });

  it("does not resend a one-shot stream it has already sent", async () => {
    server = await scriptedServer([{ drop: true }, { status: 202, body: CREATED }]);
    const stream = Readable.from([Buffer.alloc(1000, 7)]);
    const error = await clientFor(server.url).createReconstruction([{ name: "c.jpg", stream }]).catch((e) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(server.requests).toHaveLength(1);
    // Without a size, the body goes out chunked.
    expect(server.requests[0].headers["transfer-encoding"]).toBe("chunked");
  });

  it("reports upload progress up to the total bytes", async () => {
    server = await scriptedServer([{ status: 202, body: CREATED }]);
    const seen: UploadProgress[] = [];
    await clientFor(server.url).createReconstruction(files, { onUploadProgress: (p) => seen.push(p) });
    expect(seen.at(-1)).toEqual({ sentBytes: 370_000, totalBytes: 370_000, file: "b.jpg" });
    for (let i = 1; i < seen.length; i++) expect(seen[i].sentBytes).toBeGreaterThan(seen[i - 1].sentBytes);
  });
});
