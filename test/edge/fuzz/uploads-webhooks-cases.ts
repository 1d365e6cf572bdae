/**
 * @module Malformed requests against tus 1.0 at `/v1/uploads` (creation, PATCH with wrong
 * offsets, lengths, types and checksums, HEAD/DELETE of unknown uploads), the JSON creation from
 * uploads, and the webhook endpoints of docs/API.md; fuzz-uploads-webhooks.test.ts runs them.
 */
import { jpeg } from "../upload-fixtures.js";
import { ODD_FILENAMES, type CaseGenerator, type FuzzCase, type FuzzContext, type Rng } from "./generator.js";

const TUS = { "Tus-Resumable": "1.0.0" };
const b64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));
const auth = (ctx: FuzzContext) => ({ Authorization: `Bearer ${ctx.apiKey}` });
const unknownUpload = (rng: Rng) => `/v1/uploads/${rng.pick(["up_doesnotexist000000000000", "..%2f..%2fadmin", "x".repeat(300), "%00", "rec_aaaaaaaaaaaaaaaaaaaaaaaa"])}`;
const someUpload = (rng: Rng, ctx: FuzzContext) => (ctx.uploadPaths?.length ? rng.pick(ctx.uploadPaths) : unknownUpload(rng));

function tusCreation(rng: Rng, ctx: FuzzContext): FuzzCase {
  const variant = rng.int(0, 6);
  const headers: Record<string, string> = { ...auth(ctx), ...TUS, "Upload-Length": "1000", "Upload-Metadata": `filename ${b64(rng.pick(ODD_FILENAMES))}` };
  const label = ["no Tus-Resumable", "Tus-Resumable 0.2.2", "Upload-Length not a number", "negative Upload-Length", "Upload-Length over the video limit", "Upload-Length and Upload-Defer-Length", "Upload-Metadata not base64"][variant]!;
  if (variant === 0) delete headers["Tus-Resumable"];
  if (variant === 1) headers["Tus-Resumable"] = "0.2.2";
  if (variant === 2) headers["Upload-Length"] = rng.pick(["abc", "1e3", "", "0x10", "١٢٣"]);
  if (variant === 3) headers["Upload-Length"] = String(-rng.int(1, 1e9));
  if (variant === 4) headers["Upload-Length"] = String(2 ** rng.int(40, 52));
  if (variant === 5) headers["Upload-Defer-Length"] = "1";
  if (variant === 6) headers["Upload-Metadata"] = rng.pick(["filename ***", "filename a b", ",,,", `filename ${"A".repeat(20000)}=`]);
  return { label: `tus creation: ${label}`, path: "/v1/uploads", init: { method: "POST", headers } };
}

function tusPatch(rng: Rng, ctx: FuzzContext): FuzzCase {
  const variant = rng.int(0, 6);
  const body = jpeg(64, 64, rng.int(10, 900));
  const headers: Record<string, string> = { ...auth(ctx), ...TUS, "Content-Type": "application/offset+octet-stream", "Upload-Offset": "0" };
  const label = ["offset ahead of the server's", "negative offset", "offset not a number", "wrong Content-Type", "no Upload-Offset", "checksum mismatch", "unsupported checksum algorithm"][variant]!;
  if (variant === 0) headers["Upload-Offset"] = String(rng.int(1, 10_000_000));
  if (variant === 1) headers["Upload-Offset"] = String(-rng.int(1, 1000));
  if (variant === 2) headers["Upload-Offset"] = rng.pick(["x", "1.5", "", "NaN"]);
  if (variant === 3) headers["Content-Type"] = rng.pick(["application/octet-stream", "image/jpeg", "multipart/form-data; boundary=x"]);
  if (variant === 4) delete headers["Upload-Offset"];
  if (variant === 5) headers["Upload-Checksum"] = `sha1 ${btoa("not the right digest")}`;
  if (variant === 6) headers["Upload-Checksum"] = `crc99 ${btoa("x")}`;
  return { label: `tus PATCH: ${label}`, path: someUpload(rng, ctx), init: { method: "PATCH", headers, body } };
}

function tusUnknownUpload(rng: Rng, ctx: FuzzContext): FuzzCase {
  const method = rng.pick(["HEAD", "PATCH", "DELETE"]);
  const headers: Record<string, string> = { ...auth(ctx), ...TUS, "Content-Type": "application/offset+octet-stream", "Upload-Offset": "0" };
  return { label: `tus ${method} of an unknown upload`, path: unknownUpload(rng), init: { method, headers, body: method === "PATCH" ? jpeg(32, 32) : undefined } };
}

function createFromUploads(rng: Rng, ctx: FuzzContext): FuzzCase {
  const body = rng.pick([
    "{}",
    '{"uploads": []}',
    '{"uploads": "up_1"}',
    '{"uploads": [1, 2]}',
    '{"uploads": ["up_doesnotexist000000000000"]}',
    `{"uploads": [${JSON.stringify(ctx.uploadPaths?.[0]?.split("/").pop() ?? "up_x")}]}`, // exists but unfinished
    '{"uploads": ["up_x"], "quality": "ultra"}',
    '{"uploads": [',
    "not json",
    JSON.stringify({ uploads: Array.from({ length: 2000 }, (_, i) => `up_${i}`) }),
  ]);
  return { label: `JSON create ${body.slice(0, 50)}`, path: "/v1/reconstruction", init: { method: "POST", headers: { ...auth(ctx), "Content-Type": "application/json" }, body } };
}

function webhookEndpoint(rng: Rng, ctx: FuzzContext): FuzzCase {
  const body = rng.pick([
    "{}",
    '{"url": ""}',
    '{"url": "not a url"}',
    '{"url": "ftp://example.com/hook"}',
    '{"url": "javascript:alert(1)"}',
    `{"url": "https://example.com/${"a".repeat(10000)}"}`,
    '{"url": "https://example.com/hook", "events": ["reconstruction.exploded"]}',
    '{"url": "https://example.com/hook", "events": "reconstruction.completed"}',
    '{"url": 42}',
    "[",
  ]);
  return { label: `webhook create ${body.slice(0, 50)}`, path: "/v1/webhooks", init: { method: "POST", headers: { ...auth(ctx), "Content-Type": rng.chance(0.8) ? "application/json" : "text/plain" }, body } };
}

function webhookUnknown(rng: Rng, ctx: FuzzContext): FuzzCase {
  const id = rng.pick(["wh_doesnotexist000000000000", "..", "%2e%2e", "x".repeat(500)]);
  const [method, suffix] = rng.pick([["DELETE", ""], ["GET", "/deliveries"]] as const);
  return { label: `webhook ${method} of an unknown endpoint`, path: `/v1/webhooks/${id}${suffix}`, init: { method, headers: auth(ctx) } };
}

export const UPLOAD_AND_WEBHOOK_GENERATORS: CaseGenerator[] = [tusCreation, tusPatch, tusUnknownUpload, createFromUploads, webhookEndpoint, webhookUnknown];
