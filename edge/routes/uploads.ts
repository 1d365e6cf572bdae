/**
 * @module tus 1.0 at /v1/uploads: core (HEAD, PATCH), creation (POST), termination (DELETE),
 * checksum and expiration; OPTIONS for discovery. GET answers the same facts as HEAD in JSON.
 *
 * Order of checks, as for the rest of the API: 401, 429, then the tus version (412), then the
 * request's own headers (400/415; a creation's Upload-Length over the limit, 413), then the
 * upload (404 for unknown and foreign ids alike), then for a PATCH a body that would run past
 * the upload's length (413, which needs the upload, so it comes after the 404), then its offset
 * (409) and lease (423). Every answer, errors included, carries Tus-Resumable
 * and the error envelope. The upload's state lives in its UploadObject; the bytes in R2
 * (edge/uploads/tus/receive-patch.ts).
 */
import { Hono, type Context } from "hono";
import type { AppEnv } from "../app-env.js";
import { requireApiKey } from "../access/auth.js";
import { configOf, type Config } from "../env.js";
import { ApiError } from "../errors.js";
import { rateLimit } from "../access/rate-limit.js";
import { isClaimed } from "../objects/upload.js";
import type { UploadState } from "../objects/upload-rpc.js";
import { mib } from "../uploads/ingest.js";
import {
  OFFSET_CONTENT_TYPE, discoveryHeaders, expiresHeader, parseByteCount, parseChecksum, parseMetadata, requireTusVersion, tusHeaders,
} from "../uploads/tus/headers.js";
import { UploadRejected, receivePatch, type Checksum, type PatchResult } from "../uploads/tus/receive-patch.js";
import { UploadId, UploadRecord } from "../../shared/uploads.js";
import { uploadDataKey, uploadTailKey } from "../../shared/storage-keys.js";

export const uploadsRoutes = new Hono<AppEnv>();

const ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** `upl_` + 24 URL-safe characters (144 random bits). */
export function newUploadId(): string {
  let id = "upl_";
  for (const b of crypto.getRandomValues(new Uint8Array(24))) id += ID_ALPHABET[b & 63];
  return id;
}

export function uploadStub(c: Context<AppEnv>, id: string) {
  return c.env.UPLOADS.get(c.env.UPLOADS.idFromName(id));
}

// Tus-Resumable on every answer, errors included (they are c.res by the time next() returns).
uploadsRoutes.use("*", async function tusResumableHeader(c, next) {
  await next();
  for (const [name, value] of Object.entries(tusHeaders())) c.header(name, value);
});

uploadsRoutes.options("*", function discover(c) {
  return c.body(null, 204, discoveryHeaders(configOf(c.env).MAX_VIDEO_BYTES));
});

uploadsRoutes.use("*", requireApiKey(), rateLimit("request"));

uploadsRoutes.post("/", async function createUpload(c) {
  const config = configOf(c.env);
  requireTusVersion(c.req.header("Tus-Resumable"));
  // creation-defer-length is not offered; with Upload-Length too the request is ambiguous (tus
  // says one of the two; tusd answers 400 to both together), so any Upload-Defer-Length is refused.
  if (c.req.header("Upload-Defer-Length") !== undefined) {
    throw new ApiError("invalid_request", "Deferred upload lengths are not supported.", "Send only Upload-Length with the file's size.");
  }
  const length = parseByteCount(c.req.header("Upload-Length"), "Upload-Length");
  if (length === 0) throw new ApiError("invalid_request", "Upload-Length is 0; an empty file cannot be reconstructed.", "Upload files with content.");
  if (length > config.MAX_VIDEO_BYTES) {
    throw new ApiError("payload_too_large", `Upload-Length is larger than the limit of ${mib(config.MAX_VIDEO_BYTES)} per file (${mib(config.MAX_IMAGE_BYTES)} per image).`, "Send a smaller file.");
  }
  const metadata = parseMetadata(c.req.header("Upload-Metadata"));
  const id = newUploadId();
  // Recorded first: an account deletion must find every upload that may hold bytes.
  await c.env.ACCOUNTS.get(c.env.ACCOUNTS.idFromName(c.get("accountId")!)).recordUpload(id);
  const state = await uploadStub(c, id).create({ id, account_id: c.get("accountId")!, length, metadata: metadata.raw, filename: metadata.filename });
  const url = uploadUrl(c, id);
  return c.json(toRecord(state, url), 201, { Location: url, "Upload-Offset": "0", ...expiresHeader(state.expires_at) });
});

// HEAD is served by this GET route (Hono answers HEAD with a GET route's headers, no body).
uploadsRoutes.get("/:id", async function headUpload(c) {
  if (c.req.method === "HEAD") requireTusVersion(c.req.header("Tus-Resumable"));
  const state = await ownedUpload(c);
  const headers: Record<string, string> = {
    "Upload-Offset": String(state.offset),
    "Upload-Length": String(state.length),
    "Cache-Control": "no-store",
    ...expiresHeader(state.expires_at),
  };
  if (state.metadata) headers["Upload-Metadata"] = state.metadata;
  return c.json(toRecord(state, uploadUrl(c, state.id)), 200, headers);
});

uploadsRoutes.patch("/:id", async function patchUpload(c) {
  const config = configOf(c.env);
  requireTusVersion(c.req.header("Tus-Resumable"));
  const contentType = c.req.header("Content-Type")?.split(";")[0]?.trim().toLowerCase();
  if (contentType !== OFFSET_CONTENT_TYPE) {
    throw new ApiError("unsupported_media_type", `A PATCH body must be ${OFFSET_CONTENT_TYPE}.`, `Send Content-Type: ${OFFSET_CONTENT_TYPE}.`);
  }
  const offset = parseByteCount(c.req.header("Upload-Offset"), "Upload-Offset");
  const checksum = parseChecksum(c.req.header("Upload-Checksum"));
  const state = await ownedUpload(c);
  const declared = c.req.header("Content-Length");
  if (declared !== undefined && offset + Number(declared) > state.length) {
    throw new ApiError("payload_too_large", `The PATCH would end at byte ${offset + Number(declared)}, after Upload-Length (${state.length}).`, "Send at most Upload-Length minus Upload-Offset bytes.");
  }
  const stub = uploadStub(c, state.id);
  const lease = await stub.lock(c.get("accountId")!, offset);
  if (!lease.ok) {
    if (lease.reason === "not_found") throw notFound();
    if (lease.reason === "locked") throw new ApiError("upload_locked", "Another request is writing this upload.", "Retry in a few seconds, after asking HEAD for the offset.");
    if (lease.reason === "complete" && lease.state?.complete && offset === lease.state.offset && Number(declared ?? 0) === 0) return progressAnswer(c, lease.state);
    throw new ApiError("offset_mismatch", `Upload-Offset is ${offset} but the upload is at ${lease.state?.offset}${lease.state?.complete ? " (finished)" : ""}.`, "Ask HEAD for Upload-Offset and resume from there.");
  }
  // In waitUntil: a client that drops the connection must not cancel the bookkeeping of the
  // bytes that did arrive (they are what the client resumes from).
  const work = writePatch(c, lease.token, lease.state, checksum, config);
  try {
    c.executionCtx.waitUntil(work.catch(() => undefined));
  } catch {
    // No execution context (app.request in unit tests): awaiting below is enough.
  }
  return progressAnswer(c, await work);
});

uploadsRoutes.delete("/:id", async function terminateUpload(c) {
  requireTusVersion(c.req.header("Tus-Resumable"));
  const id = UploadId.safeParse(c.req.param("id"));
  if (!id.success || !(await uploadStub(c, id.data).terminate(c.get("accountId")!))) throw notFound();
  return c.body(null, 204);
});

/** Streams the body into R2 under the lease, then commits the new offset; the lease is given back (or lapses if this Worker dies). */
async function writePatch(c: Context<AppEnv>, token: string, state: UploadState, checksum: Checksum | undefined, config: Config): Promise<UploadState> {
  const stub = uploadStub(c, state.id);
  let result: PatchResult;
  try {
    result = await receivePatch({
      bucket: c.env.BUCKET,
      state,
      body: c.req.raw.body,
      checksum,
      limits: { maxImageBytes: config.MAX_IMAGE_BYTES, maxVideoBytes: config.MAX_VIDEO_BYTES },
      renew: () => stub.renew(token),
    });
  } catch (err) {
    // A file that can never be accepted is deleted at once; any other failure keeps the upload resumable.
    if (err instanceof UploadRejected) await stub.terminate(state.account_id);
    else await stub.unlock(token);
    throw err;
  }
  const committed = await stub.commit(token, result.update);
  if (!committed) {
    await discardOrphans(c, state, result);
    throw new ApiError("upload_locked", "The upload changed while this PATCH was written (terminated or taken over); this PATCH was not kept.", "Ask HEAD for the upload's state.");
  }
  if (result.staleTailKey) await c.env.BUCKET.delete(result.staleTailKey).catch(() => undefined);
  return committed;
}

/** A PATCH whose commit was refused wrote objects nobody refers to: remove them. */
async function discardOrphans(c: Context<AppEnv>, state: UploadState, result: PatchResult): Promise<void> {
  const stillThere = await uploadStub(c, state.id).view(state.account_id);
  if (result.newTailKey) await c.env.BUCKET.delete(result.newTailKey);
  if (stillThere) return;
  // Terminated meanwhile: everything this PATCH wrote goes too.
  await c.env.BUCKET.delete([uploadDataKey(state.id), uploadTailKey(state.id, state.tail_generation)]);
  if (result.update.multipart_id && !result.update.complete) {
    await c.env.BUCKET.resumeMultipartUpload(uploadDataKey(state.id), result.update.multipart_id).abort().catch(() => undefined);
  }
}

function progressAnswer(c: Context<AppEnv>, state: UploadState): Response {
  return c.body(null, 204, { "Upload-Offset": String(state.offset), ...expiresHeader(state.expires_at) });
}

async function ownedUpload(c: Context<AppEnv>): Promise<UploadState> {
  const id = UploadId.safeParse(c.req.param("id"));
  const state = id.success ? await uploadStub(c, id.data).view(c.get("accountId")!) : null;
  if (!state || isClaimed(state)) throw notFound();
  return state;
}

function notFound(): ApiError {
  return new ApiError("not_found", "No upload with this id (it may have expired, been terminated or used by a reconstruction).", "Create a new upload with POST /v1/uploads.");
}

function uploadUrl(c: Context<AppEnv>, id: string): string {
  return `${configOf(c.env).BASE_URL}/v1/uploads/${id}`;
}

function toRecord(state: UploadState, url: string): UploadRecord {
  return UploadRecord.parse({
    id: state.id,
    upload_url: url,
    upload_length: state.length,
    upload_offset: state.offset,
    complete: state.complete,
    filename: state.filename,
    kind: state.kind,
    expires_at: new Date(state.expires_at).toISOString(),
  });
}
