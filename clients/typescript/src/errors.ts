/** @module Typed errors: every failure the SDK throws says whether the API or the network spoke. */

/** The API's error codes (shared/errors.ts, docs/API.md); any other string is possible from a newer server. */
export type ApiErrorCode =
  | "invalid_file_format"
  | "no_files"
  | "invalid_request"
  | "unsupported_format"
  | "missing_api_key"
  | "invalid_api_key"
  | "insufficient_credits"
  | "forbidden"
  | "not_found"
  | "not_ready"
  | "reconstruction_failed"
  | "payload_too_large"
  | "range_not_satisfiable"
  | "rate_limited"
  | "internal_error"
  | "service_unavailable"
  | "already_terminal"
  | "idempotency_key_reused"
  | "idempotency_in_progress"
  | "offset_mismatch"
  | "upload_incomplete"
  | "upload_locked"
  | "unsupported_tus_version"
  | "unsupported_media_type"
  | "checksum_mismatch"
  | (string & {});

/** Base class, so `catch (e) { if (e instanceof PhotogrammetryError) ... }` catches all of ours. */
export class PhotogrammetryError extends Error {
  override name = "PhotogrammetryError";
}

/** The API answered with its error envelope (or a non-JSON error page, code `http_<status>`). */
export class ApiError extends PhotogrammetryError {
  override name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
    readonly suggestion: string | undefined,
    readonly requestId: string | undefined,
    /** Seconds the server asked us to wait (429, 503), when it said. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** No HTTP answer at all: connection refused or reset, DNS, a timeout. */
export class NetworkError extends PhotogrammetryError {
  override name = "NetworkError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A reconstruction ended `failed`; carries its failure code (e.g. `not_enough_overlap`). */
export class ReconstructionFailedError extends PhotogrammetryError {
  override name = "ReconstructionFailedError";
  constructor(
    readonly id: string,
    readonly code: string,
    message: string,
    readonly suggestion: string | undefined,
    readonly creditRefunded: boolean,
  ) {
    super(message);
  }
}

/** `waitFor` gave up before the reconstruction reached a terminal state. */
export class WaitTimeoutError extends PhotogrammetryError {
  override name = "WaitTimeoutError";
}

/** A webhook's signature, timestamp or headers did not verify. */
export class WebhookVerificationError extends PhotogrammetryError {
  override name = "WebhookVerificationError";
}

/** Parses an error response into an ApiError, whatever its body. */
export async function apiErrorFrom(res: Response): Promise<ApiError> {
  const retryAfter = parseRetryAfter(res.headers.get("retry-after"));
  const text = await res.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; suggestion?: unknown; request_id?: unknown } };
    const e = body.error;
    if (e && typeof e.code === "string") {
      return new ApiError(res.status, e.code, String(e.message ?? e.code), typeof e.suggestion === "string" ? e.suggestion : undefined, typeof e.request_id === "string" ? e.request_id : undefined, retryAfter);
    }
  } catch {
    // not JSON: fall through to a generic error (a proxy's HTML page, for instance)
  }
  return new ApiError(res.status, `http_${res.status}`, `HTTP ${res.status}: ${text.slice(0, 200)}`, undefined, undefined, retryAfter);
}

/** `Retry-After` is either delay-seconds or an HTTP-date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
