/**
 * @module The CDN route: serves model files behind signed, expiring links (edge/downloads/signing.ts).
 *
 * Paths are read relative to CDN_URL's own path, so the same handler serves `/cdn/<id>/<fmt>`
 * in local dev and `/<id>/<fmt>` when CDN_URL is a hostname of its own routed to this Worker.
 * Full GETs are served from `caches.default` under a key without the query string, so every
 * signed link to one file shares one cache entry; misses and ranges read R2. No API
 * rate-limit headers here: these are file downloads, not API calls.
 */
import { Hono, type Context } from "hono";
import type { AppEnv } from "../app-env.js";
import { configOf } from "../env.js";
import { ApiError } from "../errors.js";
import { parseRange } from "../downloads/range.js";
import { verify } from "../downloads/signing.js";
import { CONTENT_TYPES, downloadFileName, isFormat, type Format } from "../../shared/formats.js";
import { ReconstructionId } from "../../shared/records.js";
import { outputKey } from "../../shared/storage-keys.js";

export const cdnRoutes = new Hono<AppEnv>();

/** How long the edge cache keeps a model file; outputs never change once completed. */
const EDGE_CACHE_SECONDS = 86_400;

cdnRoutes.on(["GET", "HEAD"], "/*", (c) => serveCdn(c));

interface FileRef {
  reconstructionId: string;
  format: Format;
}

/** Answers a CDN request; exported so an app can route a dedicated CDN hostname here. */
export async function serveCdn(c: Context<AppEnv>): Promise<Response> {
  const config = configOf(c.env);
  const url = new URL(c.req.url);
  const file = parseCdnPath(url.pathname, new URL(config.CDN_URL).pathname);
  if (!file) throw new ApiError("not_found", "No such file.", "Ask the download endpoint for a fresh link.");
  await checkSignature(file, url.searchParams, config.SIGNING_SECRET);
  const cacheKey = new Request(`${url.origin}${url.pathname}`, { method: "GET" });
  const cache = (caches as unknown as { default: Cache }).default;
  const rangeHeader = c.req.header("range");
  const remainingSeconds = Math.max(0, Number(url.searchParams.get("expires")) - Math.floor(Date.now() / 1000));
  if (c.req.method === "GET" && !rangeHeader) {
    const cached = await cache.match(cacheKey);
    if (cached) return forClient(cached, remainingSeconds, c.req.header("if-none-match"));
  }
  const key = outputKey(file.reconstructionId, file.format);
  const head = await c.env.BUCKET.head(key);
  if (!head) throw new ApiError("not_found", "This file does not exist.", "Check the reconstruction's status and formats.");
  const headers = fileHeaders(file, head);
  if (c.req.method === "HEAD") return forClient(new Response(null, { headers }), remainingSeconds, c.req.header("if-none-match"));
  const range = parseRange(rangeHeader, head.size);
  if (range === "unsatisfiable") return rangeNotSatisfiable(head.size);
  const object = await c.env.BUCKET.get(key, range ? { range } : {});
  if (!object || !("body" in object)) throw new ApiError("not_found", "This file does not exist.", "Check the reconstruction's status and formats.");
  if (range) {
    headers.set("Content-Range", `bytes ${range.offset}-${range.offset + range.length - 1}/${head.size}`);
    headers.set("Content-Length", String(range.length));
    return forClient(new Response(object.body, { status: 206, headers }), remainingSeconds, undefined);
  }
  const response = new Response(object.body, { headers });
  c.executionCtx.waitUntil(cache.put(cacheKey, response.clone()));
  return forClient(response, remainingSeconds, c.req.header("if-none-match"));
}

/**
 * True when CDN_URL names a host of its own (not BASE_URL's) and the request was sent to it:
 * an app can then hand such requests to `serveCdn` whatever their path.
 */
export function isCdnHostRequest(requestUrl: string, cdnUrl: string, baseUrl: string): boolean {
  const cdnHost = new URL(cdnUrl).host;
  return cdnHost !== new URL(baseUrl).host && new URL(requestUrl).host === cdnHost;
}

/** `<cdn path>/<id>/<format>` → the file, or undefined for any other shape. */
export function parseCdnPath(pathname: string, cdnBasePath: string): FileRef | undefined {
  const base = cdnBasePath.replace(/\/+$/, "");
  if (!pathname.startsWith(`${base}/`)) return undefined;
  const segments = pathname.slice(base.length + 1).split("/");
  if (segments.length !== 2) return undefined;
  const [reconstructionId, format] = segments as [string, string];
  if (!ReconstructionId.safeParse(reconstructionId).success || !isFormat(format)) return undefined;
  return { reconstructionId, format };
}

async function checkSignature(file: FileRef, query: URLSearchParams, secret: string): Promise<void> {
  const expiresText = query.get("expires") ?? "";
  const sig = query.get("sig") ?? "";
  const forbidden = (why: string) => new ApiError("forbidden", `This download link is ${why}.`, "Ask the download endpoint for a fresh link.");
  if (!/^\d{1,12}$/.test(expiresText) || sig === "") throw forbidden("not signed");
  const expires = Number(expiresText);
  if (!(await verify({ reconstructionId: file.reconstructionId, format: file.format, expires }, sig, secret))) throw forbidden("not validly signed");
  if (expires <= Math.floor(Date.now() / 1000)) throw forbidden("expired");
}

function fileHeaders(file: FileRef, object: R2Object): Headers {
  return new Headers({
    "Content-Type": CONTENT_TYPES[file.format],
    "Content-Length": String(object.size),
    ETag: object.httpEtag,
    "Content-Disposition": `attachment; filename="${downloadFileName(file.reconstructionId, file.format)}"`,
    "Accept-Ranges": "bytes",
    // What the edge cache honours; the client copy is rewritten in forClient.
    "Cache-Control": `public, max-age=${EDGE_CACHE_SECONDS}, immutable`,
  });
}

/** Client-facing headers: cacheable privately only until the link expires; 304 on a matching ETag. */
function forClient(response: Response, remainingSeconds: number, ifNoneMatch: string | undefined): Response {
  const headers = new Headers(response.headers);
  headers.set("Cache-Control", `private, max-age=${remainingSeconds}`);
  const etag = headers.get("ETag");
  if (ifNoneMatch && etag && ifNoneMatch.split(",").some((tag) => tag.trim() === etag || tag.trim() === "*")) {
    response.body?.cancel().catch(() => undefined);
    headers.delete("Content-Length");
    return new Response(null, { status: 304, headers });
  }
  return new Response(response.body, { status: response.status, headers });
}

function rangeNotSatisfiable(size: number): Response {
  return new Response(
    JSON.stringify({ error: { code: "range_not_satisfiable", message: `The requested range is outside the file's ${size} bytes.`, suggestion: "Request a range within the file, or omit Range." } }),
    { status: 416, headers: { "Content-Type": "application/json", "Content-Range": `bytes */${size}` } },
  );
}
