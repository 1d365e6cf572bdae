/**
 * @module Standard Webhooks symmetric signatures: the secret is `whsec_` + base64 of 32 random
 * bytes (the spec asks for 24 to 64), and `webhook-signature` is `v1,<base64 HMAC-SHA256>` of
 * `<webhook-id>.<webhook-timestamp>.<body>`, keyed by the secret's decoded bytes.
 */
const SECRET_PREFIX = "whsec_";
const SECRET_BYTES = 32;

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));
}

export function newWebhookSecret(): string {
  return SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

/** The `webhook-signature` header value for one attempt. */
export async function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): Promise<string> {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error("webhook secret without the whsec_ prefix");
  const key = await crypto.subtle.importKey("raw", fromBase64(secret.slice(SECRET_PREFIX.length)), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestampSeconds}.${body}`));
  return `v1,${toBase64(new Uint8Array(mac))}`;
}

/** `msg_` / `wh_` + 24 URL-safe random characters (no `.`: ids are part of the signed content). */
export function randomId(prefix: string): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  let id = prefix;
  for (const b of crypto.getRandomValues(new Uint8Array(24))) id += alphabet[b & 63];
  return id;
}
