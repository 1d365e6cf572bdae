/**
 * tus-js-client (the Node build, unchanged) as a client app drives it against the real Worker:
 * small chunks, a file-backed URL store, an upload aborted halfway, and a fresh client that finds
 * the stored URL (`findPreviousUploads`) and resumes from the server's offset.
 */
import * as tus from "tus-js-client";
import type { Api } from "./client.js";

/** The Node build's file-backed URL store; tus-js-client's type declarations leave it out. */
const { FileUrlStorage } = tus as unknown as { FileUrlStorage: new (file: string) => NonNullable<tus.UploadOptions["urlStorage"]> };

/** Options for `size` bytes of `filename` in eight chunks, remembered in `storagePath` for resuming. */
export function tusOptions(api: Api, storagePath: string, size: number, metadata: { filename: string; filetype: string }): tus.UploadOptions {
  return {
    endpoint: `${api.baseUrl}/v1/uploads`,
    headers: { Authorization: `Bearer ${api.apiKey}` },
    chunkSize: Math.ceil(size / 8),
    metadata,
    urlStorage: new FileUrlStorage(storagePath),
    storeFingerprintForResuming: true,
    removeFingerprintOnSuccess: false,
    retryDelays: [],
  };
}

/** Starts an upload and aborts it (no termination) once at least half of it has been sent; returns its URL. */
export function uploadHalf(data: Buffer, options: tus.UploadOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const upload = new tus.Upload(data, {
      ...options,
      onProgress(sent, total) {
        if (sent < total / 2 || !upload.url) return;
        const url = upload.url;
        upload.abort(false).then(() => resolve(url), reject);
      },
      onError: reject,
      onSuccess: () => reject(new Error("the upload finished before it could be interrupted")),
    });
    upload.start();
  });
}

/** A fresh client, as after a restart: finds the stored URL and resumes from the server's offset. */
export function resume(data: Buffer, options: tus.UploadOptions): Promise<{ url: string; resumedFrom: number }> {
  return new Promise((resolve, reject) => {
    let resumedFrom = -1;
    const upload = new tus.Upload(data, {
      ...options,
      onProgress(sent) {
        if (resumedFrom < 0) resumedFrom = sent;
      },
      onError: reject,
      onSuccess: () => resolve({ url: upload.url!, resumedFrom }),
    });
    upload.findPreviousUploads().then((previous) => {
      if (previous.length !== 1) return reject(new Error(`expected one stored upload, found ${previous.length}`));
      upload.resumeFromPreviousUpload(previous[0]!);
      upload.start();
    }, reject);
  });
}
