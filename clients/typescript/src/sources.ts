/**
 * @module The inputs a reconstruction can be created from: file paths, Blobs (File included),
 * Node Readables and web ReadableStreams. Paths and Blobs can be read again (so a create with
 * them can be retried); a stream can be read once.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";

/** A stream needs a name (the API wants a filename per part); size is optional. */
export interface NamedStream {
  name: string;
  stream: Readable | ReadableStream<Uint8Array>;
  /** Bytes, when known: enables a Content-Length and upload percentages. */
  size?: number;
}

export type InputSource = string | Blob | NamedStream;

export interface ResolvedSource {
  name: string;
  size: number | undefined;
  /** True when `open` may be called more than once. */
  reopenable: boolean;
  /** A fresh web stream of the bytes. */
  open(): ReadableStream<Uint8Array>;
  /** A Node Readable (tus-js-client wants one): a file stream for paths, so tus can seek. */
  openNode(): Readable;
}

export async function resolveSource(source: InputSource, index: number): Promise<ResolvedSource> {
  if (typeof source === "string") {
    const info = await stat(source);
    if (!info.isFile()) throw new TypeError(`${source} is not a file`);
    return {
      name: path.basename(source),
      size: info.size,
      reopenable: true,
      open: () => Readable.toWeb(createReadStream(source)) as ReadableStream<Uint8Array>,
      openNode: () => createReadStream(source),
    };
  }
  if (source instanceof Blob) {
    const name = "name" in source && typeof source.name === "string" && source.name ? source.name : `file-${index + 1}`;
    return { name, size: source.size, reopenable: true, open: () => source.stream(), openNode: () => Readable.fromWeb(source.stream() as never) };
  }
  let used = false;
  const once = <T>(make: () => T): T => {
    if (used) throw new Error(`the stream of ${source.name} was already read; pass a path or a Blob to allow retries`);
    used = true;
    return make();
  };
  const { stream } = source;
  return {
    name: source.name,
    size: source.size,
    reopenable: false,
    open: () => once(() => (stream instanceof Readable ? (Readable.toWeb(stream) as ReadableStream<Uint8Array>) : stream)),
    openNode: () => once(() => (stream instanceof Readable ? stream : Readable.fromWeb(stream as never))),
  };
}
