/**
 * @module Binary formats written as a sequence of chunks, so a file of a 30-million-point cloud
 * (1.1 GB of LAS) never stands whole in memory: the export stage appends each chunk to the file
 * as it is made, and only the tests and small callers join them.
 */
import { open } from "node:fs/promises";

/** Bytes a writer aims at per chunk: large enough that the write calls cost nothing, small beside any model. */
export const CHUNK_BYTES = 8 << 20;

/** Records of `recordBytes` that fit in one chunk (at least one). */
export function recordsPerChunk(recordBytes: number, chunkBytes = CHUNK_BYTES): number {
  return Math.max(1, Math.floor(chunkBytes / recordBytes));
}

/** The chunks joined into one buffer. */
export function joinChunks(chunks: Iterable<Uint8Array>): Uint8Array {
  const parts = [...chunks];
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** The chunks of an asynchronous writer joined into one buffer. */
export async function joinChunksAsync(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const part of chunks) parts.push(part);
  return joinChunks(parts);
}

/** Writes the chunks to `filePath` in order (replacing the file) and returns the bytes written. */
export async function writeChunks(filePath: string, chunks: Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<number> {
  const handle = await open(filePath, "w");
  let bytes = 0;
  try {
    for await (const chunk of chunks) {
      let written = 0;
      // A write may take fewer bytes than given (large buffers on some file systems).
      while (written < chunk.byteLength) written += (await handle.write(chunk, written, chunk.byteLength - written)).bytesWritten;
      bytes += chunk.byteLength;
    }
  } finally {
    await handle.close();
  }
  return bytes;
}
