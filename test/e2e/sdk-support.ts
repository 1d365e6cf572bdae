/**
 * @module A scripted local HTTP server for the SDK's unit tests: each request gets the next
 * scripted answer (a status with body and headers, or a dropped connection), and every
 * request is recorded with its headers and complete body.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  at: number;
}

export type ScriptedAnswer =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** Read the whole body, then close the socket without an answer (a lost response). */
  | { drop: true };

export interface ScriptedServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function scriptedServer(answers: ScriptedAnswer[], fallback: ScriptedAnswer = { status: 500, body: { error: { code: "internal_error", message: "script exhausted", suggestion: "" } } }): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    requests.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks), at: Date.now() });
    const answer = answers.shift() ?? fallback;
    if ("drop" in answer) {
      req.socket.destroy();
      return;
    }
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    res.end(answer.body === undefined ? "" : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export const CREATED = {
  id: "rec_aaaaaaaaaaaaaaaaaaaaaaaa",
  status: "pending",
  created_at: "2026-11-25T10:00:00.000Z",
  estimated_completion: "2026-11-25T10:05:00.000Z",
  files_uploaded: 2,
  status_url: "http://127.0.0.1/v1/reconstruction/rec_aaaaaaaaaaaaaaaaaaaaaaaa/status",
};

export function errorBody(code: string, message = code): { error: { code: string; message: string; suggestion: string } } {
  return { error: { code, message, suggestion: "try again" } };
}

/** The files of a multipart body as the server would parse them (undici's own parser). */
export async function filesOf(request: RecordedRequest): Promise<Array<{ name: string; bytes: Buffer }>> {
  const form = await new Response(new Uint8Array(request.body), { headers: { "content-type": String(request.headers["content-type"]) } }).formData();
  const files = form.getAll("files") as File[];
  return Promise.all(files.map(async (f) => ({ name: f.name, bytes: Buffer.from(await f.arrayBuffer()) })));
}

export interface FaultyProxy {
  url: string;
  /** Idempotency-Key of every create that reached the proxy, dropped or forwarded. */
  createKeys: string[];
  close(): Promise<void>;
}

/**
 * A loopback proxy in front of the real edge that loses the first `dropCreates` creation
 * requests and forwards everything else untouched: `drop-request` reads the whole body and
 * closes the connection without forwarding; `drop-response` forwards, lets the server answer,
 * then closes the connection before the answer reaches the client.
 */
export async function faultyProxy(target: string, dropCreates: number, mode: "drop-request" | "drop-response" = "drop-request"): Promise<FaultyProxy> {
  const createKeys: string[] = [];
  const server = http.createServer((req, res) => {
    const isCreate = req.method === "POST" && req.url === "/v1/reconstruction";
    if (isCreate) createKeys.push(String(req.headers["idempotency-key"]));
    const dropThis = isCreate && dropCreates > 0;
    if (dropThis) dropCreates--;
    if (dropThis && mode === "drop-request") {
      req.resume();
      req.on("end", () => req.socket.destroy());
      return;
    }
    const upstream = http.request(new URL(req.url!, target), { method: req.method, headers: { ...req.headers, host: new URL(target).host } }, (answer) => {
      // The server did the work; its answer is lost on the way back.
      if (dropThis) return void answer.resume().on("end", () => req.socket.destroy());
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => req.socket.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    createKeys,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
