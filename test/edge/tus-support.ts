/** @module Test support for the tus routes: a minimal tus client over the Worker's fetch export. */
import { expect } from "vitest";
import { env, keyHeaders, request } from "./helpers.js";

export const TUS = { "Tus-Resumable": "1.0.0" };
export const OFFSET_TYPE = { "Content-Type": "application/offset+octet-stream" };

export function b64(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}

/** The path of an upload from its absolute Location. */
export function pathOf(location: string): string {
  return new URL(location).pathname;
}

/** POST /v1/uploads; returns the upload's path (`/v1/uploads/upl_…`). */
export async function createUpload(apiKey: string, length: number, filename = "photo.jpg"): Promise<string> {
  const res = await request("/v1/uploads", {
    method: "POST",
    headers: keyHeaders(apiKey, { ...TUS, "Upload-Length": String(length), "Upload-Metadata": `filename ${b64(filename)},filetype ${b64("image/jpeg")}` }),
  });
  expect(res.status).toBe(201);
  return pathOf(res.headers.get("Location")!);
}

export function patch(apiKey: string, path: string, offset: number, body: BodyInit, extra: Record<string, string> = {}): Promise<Response> {
  return request(path, { method: "PATCH", headers: keyHeaders(apiKey, { ...TUS, ...OFFSET_TYPE, "Upload-Offset": String(offset), ...extra }), body });
}

export function head(apiKey: string, path: string): Promise<Response> {
  return request(path, { method: "HEAD", headers: keyHeaders(apiKey, TUS) });
}

/** Sends `data` from `from` on in PATCHes of the given sizes (cycled); each must answer 204 at the right offset. */
export async function patchAll(apiKey: string, path: string, data: Uint8Array, sizes: number[], from = 0): Promise<void> {
  let offset = from;
  for (let turn = 0; offset < data.length; turn++) {
    const end = Math.min(data.length, offset + sizes[turn % sizes.length]!);
    const res = await patch(apiKey, path, offset, data.slice(offset, end));
    expect(res.status, await res.clone().text()).toBe(204);
    expect(res.headers.get("Upload-Offset")).toBe(String(end));
    offset = end;
  }
}

export function uploadIdOf(path: string): string {
  return path.split("/").pop()!;
}

export function uploadStub(path: string) {
  return env.UPLOADS.get(env.UPLOADS.idFromName(uploadIdOf(path)));
}

/** Every R2 key under the upload's prefix. */
export async function storedKeys(path: string): Promise<string[]> {
  const listing = await env.BUCKET.list({ prefix: `uploads/${uploadIdOf(path)}/` });
  return listing.objects.map((o) => o.key).sort();
}

export async function sha1Base64(data: Uint8Array): Promise<string> {
  return btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest("SHA-1", data))));
}
