/**
 * The SDK's resumable mode (`upload: "tus"`, tus-js-client) against a minimal tus 1.0 server
 * written here from the protocol (creation, HEAD, PATCH with offsets): a PATCH whose connection
 * drops is resumed from the server's offset, every byte arrives once, and the creation then
 * posts `{uploads: [ids]}` with an Idempotency-Key. The edge serves tus itself (/v1/uploads).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PhotogrammetryClient, type UploadProgress } from "../../clients/typescript/src/index.js";
import { CREATED } from "./sdk-support.js";

interface TusUpload {
  length: number;
  chunks: Buffer[];
  offset: number;
}

function tusServer() {
  const uploads = new Map<string, TusUpload>();
  const log: string[] = [];
  let creation: { headers: http.IncomingHttpHeaders; body: unknown } | undefined;
  let patchesToDrop = 1;
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const url = req.url!;
    log.push(`${req.method} ${url} ${req.headers["upload-offset"] ?? ""}`.trim());
    if (req.headers.authorization !== "Bearer pk_test") return void res.writeHead(401).end();
    const tus = { "Tus-Resumable": "1.0.0" };
    if (req.method === "POST" && url === "/v1/uploads") {
      if (req.headers["tus-resumable"] !== "1.0.0") return void res.writeHead(412).end();
      const id = `up_${uploads.size + 1}`;
      uploads.set(id, { length: Number(req.headers["upload-length"]), chunks: [], offset: 0 });
      return void res.writeHead(201, { ...tus, Location: `/v1/uploads/${id}` }).end();
    }
    if (req.method === "POST" && url === "/v1/reconstruction") {
      creation = { headers: req.headers, body: JSON.parse(body.toString()) };
      return void res.writeHead(202, { "content-type": "application/json" }).end(JSON.stringify(CREATED));
    }
    const upload = uploads.get(url.split("/").pop()!);
    if (!upload) return void res.writeHead(404).end();
    if (req.method === "HEAD") return void res.writeHead(200, { ...tus, "Upload-Offset": String(upload.offset), "Upload-Length": String(upload.length), "Cache-Control": "no-store" }).end();
    if (req.method === "PATCH") {
      if (req.headers["content-type"] !== "application/offset+octet-stream") return void res.writeHead(415).end();
      if (Number(req.headers["upload-offset"]) !== upload.offset) return void res.writeHead(409).end();
      // The second PATCH overall is lost on the way: nothing stored, no answer.
      if (log.filter((l) => l.startsWith("PATCH")).length === 2 && patchesToDrop-- > 0) return void req.socket.destroy();
      upload.chunks.push(body);
      upload.offset += body.length;
      return void res.writeHead(204, { ...tus, "Upload-Offset": String(upload.offset) }).end();
    }
    res.writeHead(405).end();
  });
  return { server, uploads, log, creation: () => creation };
}

let dir: string;
let files: string[];
let tus: ReturnType<typeof tusServer>;
let url: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "sdk-tus-"));
  files = [path.join(dir, "big.mp4"), path.join(dir, "small.jpg")];
  await writeFile(files[0], Buffer.from(Array.from({ length: 250_000 }, (_, i) => (i * 31) & 255)));
  await writeFile(files[1], Buffer.alloc(40_000, 9));
  tus = tusServer();
  await new Promise<void>((resolve) => tus.server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(tus.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  tus.server.closeAllConnections();
  await new Promise((resolve) => tus.server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

describe("SDK tus uploads", () => {
  it("resumes a dropped PATCH from the server's offset and creates from the upload ids", async () => {
    const client = new PhotogrammetryClient({ apiKey: "pk_test", baseUrl: url });
    const progress: UploadProgress[] = [];
    const created = await client.createReconstruction(files, { upload: "tus", quality: "preview", tus: { chunkSize: 64 * 1024, retryDelays: [0, 50, 100] }, onUploadProgress: (p) => progress.push(p) });
    expect(created.id).toBe(CREATED.id);
    for (const [i, file] of files.entries()) {
      const stored = tus.uploads.get(`up_${i + 1}`)!;
      expect(Buffer.concat(stored.chunks).equals(await readFile(file))).toBe(true);
    }
    // After the lost PATCH, tus-js-client asked the server where to resume.
    const lost = tus.log.findIndex((l, i) => l.startsWith("PATCH") && tus.log.slice(0, i).filter((x) => x.startsWith("PATCH")).length === 1);
    expect(tus.log[lost + 1]).toMatch(/^HEAD \/v1\/uploads\/up_1/);
    expect(tus.creation()!.body).toEqual({ uploads: ["up_1", "up_2"], quality: "preview" });
    expect(tus.creation()!.headers["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(tus.creation()!.headers["content-type"]).toBe("application/json");
    expect(progress.at(-1)).toMatchObject({ sentBytes: 290_000, totalBytes: 290_000 });
  });
});
