/**
 * @module PhotogrammetryClient: every call of the API, retried where that is safe.
 *
 * Safe means: GETs always; a create because it carries one `Idempotency-Key` for all its
 * attempts (the server answers a repeat with the first response, never a second debit);
 * cancel and delete because repeating them has the same effect as doing them once.
 */
import { randomUUID } from "node:crypto";
import { ReconstructionFailedError, WaitTimeoutError } from "./errors.js";
import { Transport, type TransportOptions } from "./http.js";
import { multipartBody, type UploadProgress } from "./multipart.js";
import { resolveSource, type InputSource } from "./sources.js";
import { streamToFile, type DownloadProgress } from "./download.js";
import { tusUploadAll, type TusOptions } from "./tus.js";
import { TERMINAL_STATUSES, type AccountRecord, type CreationRecord, type DownloadRecord, type Format, type Quality, type StatusRecord } from "./types.js";
import type { CreateFromUploadsBody, ListParams, ReconstructionList, ReportRecord, WebhookCreated, WebhookEvent } from "./types.js";

export type ClientOptions = TransportOptions;

export interface CreateOptions {
  quality?: Quality;
  /** Ground control as OpenDroneMap's gcp_list.txt (a path, Blob or named stream): the `gcp` part. */
  gcp?: InputSource;
  /** Names of points in `gcp` that are checkpoints: measured, never used to adjust. */
  checkpoints?: string[];
  /** The output coordinate system, `EPSG:<code>` (projected, metres); default: the control points'. */
  outputCrs?: string;
  /** `multipart` (one streamed request; the default) or `tus` (resumable, per file). */
  upload?: "multipart" | "tus";
  onUploadProgress?: (progress: UploadProgress) => void;
  /** Your own key, e.g. to make a create safe across process restarts. Default: a fresh UUID. */
  idempotencyKey?: string;
  tus?: Pick<TusOptions, "chunkSize" | "retryDelays">;
  signal?: AbortSignal;
}

export interface WaitOptions {
  /** Called on every poll with the status record (progress, stage, estimated_completion). */
  onProgress?: (status: StatusRecord) => void;
  /** Between polls, ms. Default 2000. */
  intervalMs?: number;
  /** Give up after, ms. Default: no limit. */
  timeoutMs?: number;
  /** Throw ReconstructionFailedError when it ends `failed` (default true). */
  throwOnFailure?: boolean;
  signal?: AbortSignal;
}

/** The form fields of the options, only those given. */
function surveyFields(options: CreateOptions): Record<string, string> {
  return {
    ...(options.quality ? { quality: options.quality } : {}),
    ...(options.checkpoints?.length ? { checkpoints: options.checkpoints.join(",") } : {}),
    ...(options.outputCrs ? { output_crs: options.outputCrs } : {}),
  };
}

const path = (id: string) => `/v1/reconstruction/${encodeURIComponent(id)}`;

export class PhotogrammetryClient {
  readonly transport: Transport;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: ClientOptions) {
    this.transport = new Transport(options);
    this.fetchImpl = options.fetch ?? globalThis.fetch;
  }

  /** Creates a reconstruction from paths, Blobs or named streams; 1 credit. */
  async createReconstruction(inputs: InputSource[], options: CreateOptions = {}): Promise<CreationRecord> {
    if (inputs.length === 0) throw new TypeError("createReconstruction needs at least one file");
    const files = await Promise.all(inputs.map((input, i) => resolveSource(input, i)));
    const idempotencyKey = options.idempotencyKey ?? randomUUID();
    if (options.upload === "tus") {
      const uploads = await tusUploadAll(files, { endpoint: `${this.transport.baseUrl}/v1/uploads`, apiKey: this.options.apiKey, ...options.tus }, options.onUploadProgress);
      // A resumable creation sends the control points' file as text in its body (docs/API.md "Control points").
      const gcp = options.gcp === undefined ? {} : { gcp: await new Response((await resolveSource(options.gcp, files.length)).open()).text() };
      const body: CreateFromUploadsBody = {
        uploads,
        ...(options.quality ? { quality: options.quality } : {}),
        ...gcp,
        ...(options.checkpoints?.length ? { checkpoints: options.checkpoints } : {}),
        ...(options.outputCrs ? { output_crs: options.outputCrs } : {}),
      };
      return this.transport.json<CreationRecord>("/v1/reconstruction", {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": idempotencyKey },
        body: () => JSON.stringify(body),
        signal: options.signal,
      });
    }
    const gcp = options.gcp === undefined ? [] : [{ field: "gcp", source: await resolveSource(options.gcp, files.length) }];
    const form = multipartBody(files, surveyFields(options), gcp);
    const reopenable = files.every((f) => f.reopenable) && gcp.every((p) => p.source.reopenable);
    const headers: Record<string, string> = { "content-type": form.contentType, "idempotency-key": idempotencyKey };
    if (form.contentLength !== undefined) headers["content-length"] = String(form.contentLength);
    return this.transport.json<CreationRecord>("/v1/reconstruction", {
      method: "POST",
      headers,
      body: () => form.stream(options.onUploadProgress),
      canRetry: () => reopenable,
      signal: options.signal,
    });
  }

  get(id: string): Promise<StatusRecord> {
    return this.transport.json<StatusRecord>(`${path(id)}/status`);
  }

  /**
   * The report of an ended reconstruction: per input and per stage, and for a survey its
   * georeference and quality figures. 409 `not_ready` before it ends.
   */
  report(id: string): Promise<ReportRecord> {
    return this.transport.json<ReportRecord>(`${path(id)}/report`);
  }

  /** Newest first. */
  list(params: ListParams = {}): Promise<ReconstructionList> {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) if (value !== undefined) query.set(key, String(value));
    const suffix = query.size ? `?${query}` : "";
    return this.transport.json<ReconstructionList>(`/v1/reconstructions${suffix}`);
  }

  /** Every reconstruction, following `next_cursor`. */
  async *listAll(params: Omit<ListParams, "cursor"> = {}): AsyncGenerator<StatusRecord> {
    let cursor: string | undefined;
    do {
      const page = await this.list({ ...params, cursor });
      yield* page.data;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /** Pending or processing → failed (`cancelled`), credit refunded. */
  cancel(id: string): Promise<StatusRecord> {
    return this.transport.json<StatusRecord>(`${path(id)}/cancel`, { method: "POST" });
  }

  /** Cancels if needed and deletes every stored file; the id then answers 404. */
  async delete(id: string): Promise<void> {
    await this.transport.send(path(id), { method: "DELETE" });
  }

  account(): Promise<AccountRecord> {
    return this.transport.json<AccountRecord>("/v1/account");
  }

  /** Polls the status until `completed` or `failed`. */
  async waitFor(id: string, options: WaitOptions = {}): Promise<StatusRecord> {
    const interval = options.intervalMs ?? 2000;
    const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
    for (;;) {
      options.signal?.throwIfAborted();
      const status = await this.get(id);
      options.onProgress?.(status);
      if (TERMINAL_STATUSES.includes(status.status)) {
        if (status.status === "failed" && options.throwOnFailure !== false) {
          const e = status.error;
          throw new ReconstructionFailedError(id, e?.code ?? "unknown", e?.message ?? "the reconstruction failed", e?.suggestion, status.credit_refunded);
        }
        return status;
      }
      if (Date.now() + interval > deadline) throw new WaitTimeoutError(`${id} is still ${status.status} (${status.progress}%) after ${options.timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, interval));
    }
  }

  /** The signed, time-limited link of one format. */
  downloadRecord(id: string, format: Format): Promise<DownloadRecord> {
    return this.transport.json<DownloadRecord>(`${path(id)}/download/${encodeURIComponent(format)}`);
  }

  /** Streams one format into `target` (a file path); returns its download record. */
  async download(id: string, format: Format, target: string, onProgress?: (p: DownloadProgress) => void): Promise<DownloadRecord> {
    const record = await this.downloadRecord(id, format);
    await streamToFile(record.download_url, target, record.file_size, this.fetchImpl, onProgress);
    return record;
  }

  /** Registers a webhook endpoint; keep the returned `secret`, it is shown once. */
  createWebhook(url: string, events?: WebhookEvent[]): Promise<WebhookCreated> {
    return this.transport.json<WebhookCreated>("/v1/webhooks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: () => JSON.stringify({ url, ...(events ? { events } : {}) }),
    });
  }
}

/** The file name a format is saved under by default (obj and colmap are zips). */
export function defaultFileName(id: string, format: Format): string {
  switch (format) {
    case "obj":
    case "colmap":
      return `${id}-${format}.zip`;
    case "transforms":
      return `${id}-transforms.json`;
    case "ortho":
    case "dsm":
      return `${id}-${format}.tif`;
    case "report":
      return `${id}-report.html`;
    default:
      return `${id}.${format}`;
  }
}
