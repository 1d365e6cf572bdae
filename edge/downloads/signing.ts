/**
 * @module Signed, time-limited download links.
 *
 * A link is `{CDN_URL}/<id>/<format>?expires=<unix s>&sig=<hex>`, where `sig` is
 * HMAC-SHA256 (RFC 2104) with SIGNING_SECRET over `v1\n<id>\n<format>\n<expires>`. The
 * signed message carries the id and the format, so a signature cannot be moved to another
 * reconstruction or file, and the expiry, so it cannot be extended. Verification goes
 * through `crypto.subtle.verify`, which compares in constant time.
 */
import type { Format } from "../../shared/formats.js";

export interface SignedPath {
  reconstructionId: string;
  format: Format;
  /** Unix seconds after which the link is refused. */
  expires: number;
}

const keyCache = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keyCache.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    keyCache.set(secret, key);
  }
  return key;
}

function message(path: SignedPath): Uint8Array {
  return new TextEncoder().encode(`v1\n${path.reconstructionId}\n${path.format}\n${path.expires}`);
}

export async function sign(path: SignedPath, secret: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret), message(path));
  return toHex(new Uint8Array(mac));
}

/** True when `signatureHex` is the signature of `path`; expiry is checked separately. */
export async function verify(path: SignedPath, signatureHex: string, secret: string): Promise<boolean> {
  const signature = fromHex(signatureHex);
  if (!signature || signature.length !== 32) return false;
  return crypto.subtle.verify("HMAC", await hmacKey(secret), signature, message(path));
}

/** The absolute download URL for `path` under `cdnUrl` (no trailing slash). */
export async function signedUrl(cdnUrl: string, path: SignedPath, secret: string): Promise<string> {
  const sig = await sign(path, secret);
  return `${cdnUrl}/${path.reconstructionId}/${path.format}?expires=${path.expires}&sig=${sig}`;
}

function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

function fromHex(hex: string): Uint8Array | undefined {
  if (!/^(?:[0-9a-f]{2})+$/i.test(hex)) return undefined;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}
