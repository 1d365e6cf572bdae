/**
 * @module When and how long to wait before sending a request again.
 *
 * Retried: no answer at all (network error), 429 (waiting what `Retry-After` says), and
 * 500/502/503/504. Never retried: other 4xx, which would fail the same way again. Back-off is
 * exponential with full jitter (AWS Architecture Blog, "Exponential Backoff and Jitter"), so a
 * fleet of clients does not retry in lock-step.
 */
import { ApiError, NetworkError } from "./errors.js";

export interface RetryOptions {
  /** Attempts in all, the first included. 1 turns retries off. Default 5. */
  maxAttempts?: number;
  /** Back-off before the second attempt, ms; doubles each time. Default 500. */
  baseDelayMs?: number;
  /** Cap on one back-off, and on a `Retry-After` we are willing to honour, ms. Default 30 000. */
  maxDelayMs?: number;
  /** Called before each wait, e.g. to log. */
  onRetry?: (info: { attempt: number; delayMs: number; error: Error }) => void;
}

export const RETRY_DEFAULTS: Required<Omit<RetryOptions, "onRetry">> = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 30_000 };

const RETRIED_STATUSES = new Set([429, 500, 502, 503, 504]);

export function isRetryable(error: unknown): error is ApiError | NetworkError {
  if (error instanceof NetworkError) return true;
  return error instanceof ApiError && RETRIED_STATUSES.has(error.status);
}

/** Delay before attempt `attempt + 1` (attempt counts from 1). */
export function retryDelayMs(error: Error, attempt: number, options: Required<Omit<RetryOptions, "onRetry">>): number {
  if (error instanceof ApiError && error.retryAfterSeconds !== undefined) {
    return Math.min(error.retryAfterSeconds * 1000, options.maxDelayMs);
  }
  const ceiling = Math.min(options.baseDelayMs * 2 ** (attempt - 1), options.maxDelayMs);
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/**
 * Runs `attempt` until it succeeds, fails with a non-retryable error, or attempts run out.
 * `canRetry` lets a caller refuse a retry it cannot make (a one-shot stream already read).
 */
export async function withRetries<T>(run: (attempt: number) => Promise<T>, options: RetryOptions = {}, canRetry: () => boolean = () => true): Promise<T> {
  const settings = { ...RETRY_DEFAULTS, ...options };
  for (let attempt = 1; ; attempt++) {
    try {
      return await run(attempt);
    } catch (error) {
      if (!isRetryable(error) || attempt >= settings.maxAttempts || !canRetry()) throw error;
      const delayMs = retryDelayMs(error, attempt, settings);
      options.onRetry?.({ attempt, delayMs, error });
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}
