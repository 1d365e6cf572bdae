/** @module The one error envelope and the error codes of docs/API.md ("Errors"), mapped to HTTP statuses. */
import { z } from "zod";

export const ERROR_CODES = [
  "invalid_file_format",
  "no_files",
  "invalid_request",
  "unsupported_format",
  "missing_api_key",
  "invalid_api_key",
  "insufficient_credits",
  "forbidden",
  "not_found",
  "not_ready",
  "reconstruction_failed",
  "already_terminal",
  "idempotency_in_progress",
  "idempotency_key_reused",
  "payload_too_large",
  "range_not_satisfiable",
  "rate_limited",
  "internal_error",
  "service_unavailable",
  // tus uploads (/v1/uploads)
  "offset_mismatch",
  "upload_incomplete",
  "upload_locked",
  "unsupported_tus_version",
  "unsupported_media_type",
  "checksum_mismatch",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Pipeline failure reasons a failed reconstruction can carry in its `error.code`. */
export const FAILURE_CODES = [
  "no_usable_images",
  "not_enough_images",
  "not_enough_overlap",
  "reconstruction_too_small",
  "processing_timeout",
  "processing_error",
  "dispatch_failed",
  "cancelled",
] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];

export function statusOf(code: ErrorCode): number {
  switch (code) {
    case "invalid_file_format":
    case "no_files":
    case "invalid_request":
    case "unsupported_format":
      return 400;
    case "missing_api_key":
    case "invalid_api_key":
      return 401;
    case "insufficient_credits":
      return 402;
    case "forbidden":
      return 403;
    case "not_found":
      return 404;
    case "not_ready":
    case "reconstruction_failed":
    case "already_terminal":
    case "idempotency_in_progress":
      return 409;
    case "idempotency_key_reused":
      return 422;
    case "payload_too_large":
      return 413;
    case "range_not_satisfiable":
      return 416;
    case "rate_limited":
      return 429;
    case "internal_error":
      return 500;
    case "service_unavailable":
      return 503;
    case "offset_mismatch":
    case "upload_incomplete":
      return 409;
    case "unsupported_tus_version":
      return 412;
    case "unsupported_media_type":
      return 415;
    case "upload_locked":
      return 423;
    case "checksum_mismatch":
      return 460; // tus checksum extension: "460 Checksum Mismatch"
  }
}

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().meta({ description: "Machine-readable error code", example: "invalid_api_key" }),
      message: z.string().meta({ description: "What went wrong, for a person" }),
      suggestion: z.string().meta({ description: "What to do about it" }),
      request_id: z.string().optional().meta({ description: "Present on 500s; also in the logs" }),
    }),
  })
  .meta({ id: "Error" });
export type ErrorBody = z.infer<typeof ErrorBody>;
