/**
 * @module Parsing and writing the tus 1.0 request and response headers (tus.io/protocols/resumable-upload).
 * Every parser throws the API's own 400/412/415 errors, so a malformed header never reaches storage.
 */
import { ApiError } from "../../errors.js";
import { TUS_CHECKSUM_ALGORITHMS, TUS_EXTENSIONS, TUS_VERSION } from "../../../shared/uploads.js";
import type { Checksum } from "./receive-patch.js";

export const OFFSET_CONTENT_TYPE = "application/offset+octet-stream";
/** Bounds the Upload-Metadata header we keep and echo (a file name and a type need far less). */
export const MAX_METADATA_CHARS = 4096;
const DEFAULT_FILENAME = "upload";

/** Headers every tus response carries, errors included. */
export function tusHeaders(): Record<string, string> {
  return { "Tus-Resumable": TUS_VERSION };
}

/** What OPTIONS tells a client about this server. */
export function discoveryHeaders(maxSize: number): Record<string, string> {
  return {
    "Tus-Resumable": TUS_VERSION,
    "Tus-Version": TUS_VERSION,
    "Tus-Extension": TUS_EXTENSIONS.join(","),
    "Tus-Max-Size": String(maxSize),
    "Tus-Checksum-Algorithm": Object.keys(TUS_CHECKSUM_ALGORITHMS).join(","),
  };
}

/** tus: a request in another protocol version (or none) is refused with 412 and Tus-Version. */
export function requireTusVersion(header: string | undefined): void {
  if (header?.trim() === TUS_VERSION) return;
  throw new ApiError(
    "unsupported_tus_version",
    header ? `tus version "${header.slice(0, 32)}" is not supported.` : "The Tus-Resumable header is missing.",
    `Send "Tus-Resumable: ${TUS_VERSION}" (tus-js-client and Uppy do).`,
    { "Tus-Version": TUS_VERSION },
  );
}

/** A non-negative integer header (Upload-Length, Upload-Offset); `what` names it in the message. */
export function parseByteCount(header: string | undefined, what: string): number {
  const value = header?.trim() ?? "";
  if (!/^\d{1,16}$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new ApiError("invalid_request", header === undefined ? `The ${what} header is missing.` : `${what} must be a non-negative integer.`, `Send ${what} as a number of bytes.`);
  }
  return Number(value);
}

export interface UploadMetadata {
  raw: string;
  filename: string;
  filetype: string | undefined;
}

/** `Upload-Metadata: key base64,key2 base64` (values optional); keeps filename and filetype. */
export function parseMetadata(header: string | undefined): UploadMetadata {
  const raw = header?.trim() ?? "";
  if (raw.length > MAX_METADATA_CHARS) {
    throw new ApiError("invalid_request", `Upload-Metadata is longer than ${MAX_METADATA_CHARS} characters.`, "Send only a filename and a filetype.");
  }
  const values = new Map<string, string>();
  for (const pair of raw === "" ? [] : raw.split(",")) {
    const [key, value, extra] = pair.trim().split(" ");
    if (!key || extra !== undefined || values.has(key)) throw badMetadata(`"${pair.trim().slice(0, 40)}" is not a "key base64value" pair, or the key repeats`);
    values.set(key, value === undefined ? "" : decodeBase64Text(value, key));
  }
  const filename = (values.get("filename") ?? values.get("name") ?? "").replace(/[\u0000-\u001f\u007f]/g, "").trim().slice(0, 255);
  return { raw, filename: filename || DEFAULT_FILENAME, filetype: values.get("filetype") ?? values.get("type") };
}

/** `Upload-Checksum: <algorithm> <base64 digest>`; undefined when absent. */
export function parseChecksum(header: string | undefined): Checksum | undefined {
  if (header === undefined) return undefined;
  const [name, digest, extra] = header.trim().split(" ");
  const algorithm = TUS_CHECKSUM_ALGORITHMS[name as keyof typeof TUS_CHECKSUM_ALGORITHMS];
  if (!algorithm || !digest || extra !== undefined) {
    throw new ApiError("invalid_request", `Upload-Checksum must be "<algorithm> <base64 digest>" with an algorithm among ${Object.keys(TUS_CHECKSUM_ALGORITHMS).join(", ")}.`, "See Tus-Checksum-Algorithm in the OPTIONS answer.");
  }
  const expected = decodeBase64(digest);
  if (!expected) throw new ApiError("invalid_request", "The Upload-Checksum digest is not valid base64.", "Send the digest's bytes in base64.");
  return { algorithm, expected };
}

/** tus expiration: `Upload-Expires` in the RFC 9110 date format. */
export function expiresHeader(expiresAtMs: number): Record<string, string> {
  return { "Upload-Expires": new Date(expiresAtMs).toUTCString() };
}

function decodeBase64(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) return undefined;
  try {
    return Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));
  } catch {
    return undefined;
  }
}

function decodeBase64Text(value: string, key: string): string {
  const bytes = decodeBase64(value);
  if (!bytes) throw badMetadata(`the value of "${key.slice(0, 40)}" is not base64`);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw badMetadata(`the value of "${key.slice(0, 40)}" is not UTF-8`);
  }
}

function badMetadata(detail: string): ApiError {
  return new ApiError("invalid_request", `Malformed Upload-Metadata: ${detail}.`, "Send comma-separated `key base64value` pairs, e.g. `filename <base64 of the name>`.");
}
