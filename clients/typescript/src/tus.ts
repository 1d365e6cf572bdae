/**
 * @module Resumable upload of each input through tus 1.0 at `/v1/uploads` (tus-js-client),
 * for captures too large to send in one request over a shaky connection.
 *
 * A path is read through a file stream, which tus-js-client can seek into, so an interrupted
 * PATCH resumes at the server's offset instead of starting over.
 */
import { Upload } from "tus-js-client";
import type { ResolvedSource } from "./sources.js";
import type { UploadProgress } from "./multipart.js";
import { NetworkError } from "./errors.js";

export interface TusOptions {
  endpoint: string;
  apiKey: string;
  /** Bytes per PATCH; R2 multipart parts must be at least 5 MiB (except the last). Default 8 MiB. */
  chunkSize?: number;
  /** Waits between tus-js-client's own retries of a failed PATCH, ms. */
  retryDelays?: number[];
}

export const TUS_CHUNK_BYTES = 8 * 1024 * 1024;

/** Uploads one file; resolves to its upload id (the last segment of the upload URL). */
function uploadOne(file: ResolvedSource, options: TusOptions, onBytes: (sent: number) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const upload = new Upload(file.openNode(), {
      endpoint: options.endpoint,
      headers: { authorization: `Bearer ${options.apiKey}` },
      chunkSize: options.chunkSize ?? TUS_CHUNK_BYTES,
      uploadSize: file.size,
      retryDelays: options.retryDelays ?? [0, 1000, 3000, 5000, 10000],
      metadata: { filename: file.name },
      onProgress: (sent) => onBytes(sent),
      onError: (error) => reject(new NetworkError(`tus upload of ${file.name}: ${error.message}`, { cause: error })),
      onSuccess: () => {
        const url = upload.url;
        if (!url) return reject(new NetworkError(`tus upload of ${file.name} finished without an upload URL`));
        resolve(new URL(url, options.endpoint).pathname.split("/").filter(Boolean).at(-1)!);
      },
    });
    upload.start();
  });
}

/** Uploads every file in turn, reporting bytes across all of them; resolves to the upload ids. */
export async function tusUploadAll(files: ResolvedSource[], options: TusOptions, onProgress?: (p: UploadProgress) => void): Promise<string[]> {
  const sizes = files.map((f) => f.size);
  const totalBytes = sizes.every((s) => s !== undefined) ? sizes.reduce<number>((a, s) => a + s!, 0) : undefined;
  const ids: string[] = [];
  let done = 0;
  for (const file of files) {
    ids.push(await uploadOne(file, options, (sent) => onProgress?.({ sentBytes: done + sent, totalBytes, file: file.name })));
    done += file.size ?? 0;
  }
  return ids;
}
