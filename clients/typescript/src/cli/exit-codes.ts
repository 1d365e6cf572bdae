/**
 * @module The CLI's exit codes, which scripts may rely on (documented in the README), and the
 * mapping from an error to its code.
 */
import { ApiError, NetworkError, ReconstructionFailedError, WaitTimeoutError } from "../errors.js";

export const EXIT = {
  /** Everything asked for was done. */
  ok: 0,
  /** The reconstruction ended `failed` (its reason is printed). */
  reconstructionFailed: 1,
  /** Bad command line: unknown command or option, no input files. */
  usage: 2,
  /** No API key, or the API refused it (401). */
  auth: 3,
  /** Network error, 429 or 5xx that outlasted the retries. */
  networkOrServer: 4,
  /** The API refused the request (another 4xx: no credits, not found, invalid file…). */
  refused: 5,
  /** `--timeout` passed before the reconstruction ended. */
  timeout: 6,
} as const;

export class UsageError extends Error {
  override name = "UsageError";
}

export class MissingKeyError extends Error {
  override name = "MissingKeyError";
}

export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof MissingKeyError) return EXIT.auth;
  if (error instanceof ReconstructionFailedError) return EXIT.reconstructionFailed;
  if (error instanceof WaitTimeoutError) return EXIT.timeout;
  if (error instanceof NetworkError) return EXIT.networkOrServer;
  if (error instanceof ApiError) {
    if (error.status === 401) return EXIT.auth;
    if (error.status === 429 || error.status >= 500) return EXIT.networkOrServer;
    return EXIT.refused;
  }
  return EXIT.networkOrServer;
}
