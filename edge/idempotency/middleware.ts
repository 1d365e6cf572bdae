/**
 * @module `Idempotency-Key` on creation (docs/API.md "Idempotency"; IETF draft "The
 * Idempotency-Key HTTP Header Field", and Stripe's behaviour).
 *
 * Order of checks: 401 and 429 come first (the middleware before this one); then the key is
 * claimed in the account's object before any body byte is read, so a retry while the first
 * request still uploads answers 409 `idempotency_in_progress` at once, and a retry of a
 * request that succeeded replays its 202 even when the balance is 0 now. A replay reads the
 * retry's body only to fingerprint it: the same form gives the first response again (no
 * second credit, no second job), another form 422 `idempotency_key_reused`. A new request
 * runs the create handler with a fingerprinting multipart reader; a 202 is stored for 24 h,
 * anything else releases the key.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.js";
import { configOf } from "../env.js";
import { ApiError } from "../errors.js";
import { boundaryOf, MultipartError } from "../uploads/multipart.js";
import { FingerprintingReader, fingerprintOnly, fingerprintText } from "./fingerprint.js";

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
/** Bodies that are not multipart (JSON) are small; a larger one is not fingerprinted whole. */
const MAX_TEXT_BODY_BYTES = 1024 * 1024;

/**
 * The key from the header: an RFC 8941 sf-string (`"…"`, as the IETF draft writes it) or, as
 * Stripe clients send it, the bare value. 1–255 visible ASCII characters.
 */
export function parseIdempotencyKey(header: string): string | null {
  let value = header.trim();
  if (value.startsWith('"')) {
    if (!/^"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*"$/.test(value)) return null;
    value = value.slice(1, -1).replace(/\\(["\\])/g, "$1");
  }
  return /^[\x20-\x7e]{1,255}$/.test(value) && value.trim() === value ? value : null;
}

export function idempotentCreate(): MiddlewareHandler<AppEnv> {
  return async function idempotency(c, next) {
    const header = c.req.header(IDEMPOTENCY_HEADER);
    if (header === undefined) return next();
    const key = parseIdempotencyKey(header);
    if (!key) throw new ApiError("invalid_request", "The Idempotency-Key header must be 1 to 255 visible ASCII characters.", "Send a fresh UUID per logical request, e.g. Idempotency-Key: \"5f0c…\".");
    const account = c.env.ACCOUNTS.get(c.env.ACCOUNTS.idFromName(c.get("accountId")!));
    const claim = await account.claimIdempotencyKey(key);
    if (!claim) throw new ApiError("invalid_api_key", "The API key's account no longer exists.", "Ask the operator for a new key.");
    if (claim.kind === "in_progress") {
      throw new ApiError("idempotency_in_progress", "A request with this Idempotency-Key is still being processed.", "Wait for the first request to finish, then retry with the same key to get its response.", { "Retry-After": "5" });
    }
    if (claim.kind === "completed") {
      if ((await fingerprintOf(c)) !== claim.fingerprint) {
        throw new ApiError("idempotency_key_reused", "This Idempotency-Key was already used with a different request.", "Use a new Idempotency-Key for a new request; reuse a key only to retry the very same request.");
      }
      return c.body(claim.body, claim.status as 202, { "content-type": "application/json", "Idempotent-Replayed": "true" });
    }
    await runAndRemember(c, next, key, account);
  };
}

type AccountStub = ReturnType<AppEnv["Bindings"]["ACCOUNTS"]["get"]>;

/** Runs the create handler with a fingerprinting reader; keeps a 202, releases the key otherwise. */
async function runAndRemember(c: Context<AppEnv>, next: () => Promise<void>, key: string, account: AccountStub): Promise<void> {
  let reader: FingerprintingReader | undefined;
  const boundary = boundaryOf(c.req.header("content-type"));
  // A non-multipart body is read here before the handler (it is small and must be fingerprinted whole).
  const textFingerprint = boundary ? undefined : await fingerprintOf(c).catch(() => undefined);
  c.set("multipartReader", (body, partBoundary) => (reader = new FingerprintingReader(body, partBoundary)));
  try {
    await next();
  } finally {
    const fingerprint = c.res.status === 202 ? (textFingerprint ?? (await reader?.digest())) : undefined;
    if (fingerprint) {
      const body = await c.res.clone().text();
      // The reconstruction exists whatever happens here: a failure to remember is logged, not turned into an error.
      await account.completeIdempotencyKey(key, fingerprint, 202, body).catch((err: unknown) =>
        console.error(JSON.stringify({ level: "error", request_id: c.get("requestId"), msg: "idempotency key not stored", error: String(err) })),
      );
    } else {
      await account.releaseIdempotencyKey(key).catch((err: unknown) =>
        console.error(JSON.stringify({ level: "error", request_id: c.get("requestId"), msg: "idempotency key not released", error: String(err) })),
      );
    }
  }
}

/** The fingerprint of this request's body, read to its end but not stored. */
async function fingerprintOf(c: Context<AppEnv>): Promise<string> {
  const contentType = c.req.header("content-type") ?? "";
  const boundary = boundaryOf(contentType);
  const body = c.req.raw.body;
  if (!body) return fingerprintText(contentType, "");
  if (!boundary) {
    const declared = Number(c.req.header("content-length"));
    if (Number.isFinite(declared) && declared > MAX_TEXT_BODY_BYTES) throw new ApiError("payload_too_large", "A JSON creation body must be under 1 MiB.", "Send the files as multipart/form-data.");
    return fingerprintText(contentType, await readCapped(c.req.raw.clone().body!, MAX_TEXT_BODY_BYTES));
  }
  try {
    return await fingerprintOnly(body, boundary, configOf(c.env).MAX_REQUEST_BYTES);
  } catch (err) {
    if (err instanceof MultipartError) throw new ApiError("invalid_request", `Malformed multipart body: ${err.message}.`, "Send multipart/form-data with one `files` part per file.");
    if (err instanceof RangeError) throw new ApiError("payload_too_large", "The request is larger than the per-request limit.", "Split the upload or send smaller files.");
    throw err;
  }
}

/** The text of a small body; a body over `maxBytes` (even without Content-Length) is refused, never buffered. */
async function readCapped(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel();
      throw new ApiError("payload_too_large", "A JSON creation body must be under 1 MiB.", "Send the files as multipart/form-data.");
    }
    text += decoder.decode(value, { stream: true });
  }
}
