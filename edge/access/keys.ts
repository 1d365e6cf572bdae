/**
 * @module API keys and account ids: generation, parsing, hashing, constant-time comparison.
 *
 * A key is `pk_live_<account>_<key>_<secret>` (base62 parts of fixed length). Carrying the
 * account and key ids inside the key lets the edge route a request to the one AccountObject
 * that can check it, with no global key table on the request path; a key that does not match
 * the pattern is rejected before any Durable Object is touched.
 */

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const ACCOUNT_PART_LENGTH = 22; // ~131 bits: ids are unguessable, not merely unique
const KEY_PART_LENGTH = 16;
const SECRET_PART_LENGTH = 32; // ~190 bits, so a plain SHA-256 of the key is a safe stored form

const ACCOUNT_ID_PATTERN = new RegExp(`^acc_[0-9A-Za-z]{${ACCOUNT_PART_LENGTH}}$`);
const KEY_ID_PATTERN = new RegExp(`^key_[0-9A-Za-z]{${KEY_PART_LENGTH}}$`);
const API_KEY_PATTERN = new RegExp(
  `^pk_live_([0-9A-Za-z]{${ACCOUNT_PART_LENGTH}})_([0-9A-Za-z]{${KEY_PART_LENGTH}})_[0-9A-Za-z]{${SECRET_PART_LENGTH}}$`,
);

/** Uniform base62 string; rejection sampling avoids the modulo bias of `byte % 62`. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
    for (const byte of bytes) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function newAccountId(): string {
  return `acc_${randomBase62(ACCOUNT_PART_LENGTH)}`;
}

export function newKeyId(): string {
  return `key_${randomBase62(KEY_PART_LENGTH)}`;
}

export function isAccountId(value: string): boolean {
  return ACCOUNT_ID_PATTERN.test(value);
}

export function isKeyId(value: string): boolean {
  return KEY_ID_PATTERN.test(value);
}

/** A fresh key for an account; the caller shows `apiKey` once and stores only `hash`. */
export async function issueApiKey(accountId: string): Promise<{ apiKey: string; keyId: string; hash: string }> {
  const keyId = newKeyId();
  const apiKey = `pk_live_${accountId.slice(4)}_${keyId.slice(4)}_${randomBase62(SECRET_PART_LENGTH)}`;
  return { apiKey, keyId, hash: await sha256Hex(apiKey) };
}

/** The account and key a well-formed key names, or null for anything malformed. */
export function parseApiKey(apiKey: string): { accountId: string; keyId: string } | null {
  const match = API_KEY_PATTERN.exec(apiKey);
  if (!match) return null;
  return { accountId: `acc_${match[1]}`, keyId: `key_${match[2]}` };
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Compares two strings without a data-dependent early exit. Both sides are hashed first so
 * inputs of different lengths compare in constant time too (timingSafeEqual needs equal lengths).
 */
export async function constantTimeEqual(a: string, b: string): Promise<boolean> {
  const encoder = new TextEncoder();
  const [digestA, digestB] = await Promise.all([
    crypto.subtle.digest("SHA-256", encoder.encode(a)),
    crypto.subtle.digest("SHA-256", encoder.encode(b)),
  ]);
  return crypto.subtle.timingSafeEqual(digestA, digestB);
}
