/**
 * @module The building blocks every part of the OpenAPI document uses: its settings, schema
 * references, the rate-limit headers, the error responses with an example per code, and the
 * merge of path groups. The parts (reconstructions.ts, uploads.ts, webhooks.ts, …) import them;
 * document.ts puts the parts together.
 */
import { z } from "zod";
import { statusOf, type ErrorCode } from "../../shared/errors.js";
import { FORMATS } from "../../shared/formats.js";
import { ReconstructionId } from "../../shared/records.js";

export type Json = Record<string, unknown>;

export interface OpenApiSettings {
  /** Largest tus Upload-Length (the per-video limit); defaults to 500 MiB. */
  maxVideoBytes?: number;
  baseUrl: string;
  cdnUrl: string;
  requestLimit: number;
  createLimit: number;
  windowSeconds: number;
  trialCredits: number;
  downloadTtlSeconds: number;
}

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const RATE_LIMIT_HEADER_NAMES = ["RateLimit-Policy", "RateLimit", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"];

export function headerComponents(s: OpenApiSettings): Json {
  const header = (description: string, schema: Json, example: unknown) => ({ description, schema, example });
  return {
    "RateLimit-Policy": header("IETF structured field: the request budget (`default`) and, on creation, the `create` budget.", { type: "string" }, `"default";q=${s.requestLimit};w=${s.windowSeconds}`),
    RateLimit: header("IETF structured field: remaining requests `r` and seconds to the window's reset `t`, per policy.", { type: "string" }, `"default";r=${s.requestLimit - 1};t=42`),
    "X-RateLimit-Limit": header("Limit of the tightest budget in this window.", { type: "integer" }, s.requestLimit),
    "X-RateLimit-Remaining": header("Requests left in the tightest budget.", { type: "integer" }, s.requestLimit - 1),
    "X-RateLimit-Reset": header("Unix time (seconds) at which the window resets.", { type: "integer" }, 1795860000),
    "Retry-After": header("Seconds to wait before retrying (on 429 only).", { type: "integer" }, 42),
  };
}

export const rateLimitHeaders = (): Json =>
  Object.fromEntries(RATE_LIMIT_HEADER_NAMES.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/** One response per HTTP status, each listing the error codes it can carry, with an example each. */
export function errorResponses(codes: ErrorCode[]): Json {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(statusOf(code), [...(byStatus.get(statusOf(code)) ?? []), code]);
  const responses: Json = {};
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers: Json = { ...rateLimitHeaders(), ...(status === 429 ? { "Retry-After": { $ref: "#/components/headers/Retry-After" } } : {}) };
    responses[String(status)] = {
      description: `Error; \`error.code\` is one of: ${group.map((code) => `\`${code}\``).join(", ")}.`,
      headers,
      content: {
        "application/json": {
          schema: ref("Error"),
          examples: Object.fromEntries(group.map((code) => [code, { value: { error: { code, message: ERROR_MESSAGES[code], suggestion: "…" } } }])),
        },
      },
    };
  }
  return responses;
}

const ERROR_MESSAGES: Record<ErrorCode, string> = {
  invalid_file_format: 'The file "notes.txt" is not JPEG, PNG, HEIC, MP4 or MOV (judged by its bytes).',
  no_files: "The request has no file part.",
  invalid_request: "The request or its body is malformed.",
  unsupported_format: `The file type must be one of ${FORMATS.join(", ")}.`,
  missing_api_key: 'No API key: send "Authorization: Bearer <API_KEY>".',
  invalid_api_key: "The API key is not valid (unknown, revoked or malformed).",
  insufficient_credits: "The balance is 0 credits; a reconstruction costs 1.",
  forbidden: "Not allowed.",
  not_found: "No such reconstruction.",
  not_ready: "The reconstruction is still processing.",
  reconstruction_failed: "The reconstruction failed; see its status for the reason.",
  already_terminal: "The reconstruction is already completed or failed; there is nothing to cancel.",
  idempotency_in_progress: "A request with this Idempotency-Key is still being processed.",
  idempotency_key_reused: "This Idempotency-Key was used with a different request.",
  payload_too_large: "The file exceeds the per-file limit.",
  range_not_satisfiable: "The requested range is outside the file.",
  rate_limited: "Too many requests; retry after the number of seconds in Retry-After.",
  internal_error: "Something went wrong on our side.",
  service_unavailable: "The service is temporarily unavailable.",
  offset_mismatch: "Upload-Offset is 0 but the upload is at 5242880.",
  upload_incomplete: 'The upload "upl_…" has 1048576 of 5242880 bytes; finish it first.',
  upload_locked: "Another request is writing this upload.",
  unsupported_tus_version: "The Tus-Resumable header is missing.",
  unsupported_media_type: "A PATCH body must be application/offset+octet-stream.",
  checksum_mismatch: "The PATCH body does not match its Upload-Checksum; nothing of it was stored.",
};

/** A JSON success response with the rate-limit headers. */
export function ok(description: string, schemaName: string): Json {
  return { description, headers: rateLimitHeaders(), content: { "application/json": { schema: ref(schemaName) } } };
}

export const AUTH: ErrorCode[] = ["missing_api_key", "invalid_api_key", "rate_limited", "internal_error"];
export const ID_PARAM = { name: "id", in: "path", required: true, schema: z.toJSONSchema(ReconstructionId), description: "Reconstruction id" };

export function jsonBody(schemaName: string): Json {
  return { required: true, content: { "application/json": { schema: ref(schemaName) } } };
}


/** Paths from several builders; a path present in more than one gets all their methods. */
export function mergePaths(...groups: Json[]): Json {
  const merged: Record<string, Json> = {};
  for (const group of groups) for (const [path, methods] of Object.entries(group)) merged[path] = { ...(merged[path] ?? {}), ...(methods as Json) };
  return merged;
}
