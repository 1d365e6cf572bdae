/**
 * @module A thin typed fetch: base URL, the API key, JSON, error envelopes to ApiError,
 * transport failures to NetworkError, and retries (retry.ts) around all of it.
 */
import { NetworkError, apiErrorFrom } from "./errors.js";
import { withRetries, type RetryOptions } from "./retry.js";

export interface TransportOptions {
  apiKey: string;
  baseUrl: string;
  retry?: RetryOptions;
  /** Replaces the global fetch (tests, proxies, instrumentation). */
  fetch?: typeof fetch;
  /** Sent as User-Agent. */
  userAgent?: string;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** A factory, so every attempt sends a fresh body (a stream can be read only once). */
  body?: () => BodyInit;
  /** False when the body is a one-shot stream that is already being read. */
  canRetry?: () => boolean;
  signal?: AbortSignal;
}

export class Transport {
  readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.fetchImpl = options.fetch ?? globalThis.fetch;
  }

  /** One request with retries; resolves to the successful Response (2xx), else throws. */
  async send(path: string, request: RequestOptions = {}): Promise<Response> {
    return withRetries(() => this.sendOnce(path, request), this.options.retry, request.canRetry);
  }

  async json<T>(path: string, request: RequestOptions = {}): Promise<T> {
    const res = await this.send(path, request);
    return (await res.json()) as T;
  }

  private async sendOnce(path: string, request: RequestOptions): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.apiKey}`, accept: "application/json", ...request.headers };
    if (this.options.userAgent) headers["user-agent"] = this.options.userAgent;
    const body = request.body?.();
    let res: Response;
    try {
      res = await this.fetchImpl(`${this.baseUrl}${path}`, {
        method: request.method ?? "GET",
        headers,
        body,
        signal: request.signal,
        // Node's fetch needs this to send a ReadableStream body (streamed upload).
        ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
      } as RequestInit);
    } catch (error) {
      if (request.signal?.aborted) throw error;
      throw new NetworkError(`${request.method ?? "GET"} ${path}: ${describe(error)}`, { cause: error });
    }
    if (res.ok) return res;
    throw await apiErrorFrom(res);
  }
}

/** undici hides the real reason (ECONNRESET, ECONNREFUSED) in `cause`. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${(error.cause as NodeJS.ErrnoException).code ?? error.cause.message}` : "";
  return `${error.message}${cause}`;
}
