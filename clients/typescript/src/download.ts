/**
 * @module Streams a model file from its signed link into a file: written to a temporary name
 * beside the target and renamed only once complete and of the announced size, so a broken
 * download never leaves a truncated file under the real name.
 */
import { createWriteStream } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { NetworkError, apiErrorFrom } from "./errors.js";

export interface DownloadProgress {
  receivedBytes: number;
  totalBytes: number;
}

export async function streamToFile(url: string, target: string, expectedBytes: number, fetchImpl: typeof fetch, onProgress?: (p: DownloadProgress) => void): Promise<void> {
  let res: Response;
  try {
    res = await fetchImpl(url);
  } catch (error) {
    throw new NetworkError(`download ${path.basename(target)}: ${(error as Error).message}`, { cause: error });
  }
  if (!res.ok || !res.body) throw await apiErrorFrom(res);
  await mkdir(path.dirname(target), { recursive: true });
  const partial = `${target}.part-${process.pid}`;
  let receivedBytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      receivedBytes += chunk.length;
      onProgress?.({ receivedBytes, totalBytes: expectedBytes });
      done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(res.body as never), counter, createWriteStream(partial));
    if (receivedBytes !== expectedBytes) throw new NetworkError(`download ${path.basename(target)}: got ${receivedBytes} bytes, expected ${expectedBytes}`);
    await rename(partial, target);
  } catch (error) {
    await rm(partial, { force: true });
    if (error instanceof NetworkError) throw error;
    throw new NetworkError(`download ${path.basename(target)}: ${(error as Error).message}`, { cause: error });
  }
}
