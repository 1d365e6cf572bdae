/**
 * @module A streamed `multipart/form-data` body (RFC 7578) with byte-level upload progress.
 *
 * FormData would buffer Blobs built from paths and tells nothing about progress; this writes
 * each part's header, then pipes its bytes, counting them as fetch pulls them. When every size
 * is known the total length is known too, and so is Content-Length.
 */
import { randomBytes } from "node:crypto";
import type { ResolvedSource } from "./sources.js";

export interface UploadProgress {
  /** Bytes of file content sent so far (part headers excluded). */
  sentBytes: number;
  /** Sum of the files' sizes, when every size is known. */
  totalBytes: number | undefined;
  /** The file being sent now. */
  file: string;
}

export interface MultipartBody {
  contentType: string;
  /** Exact body length, when every size is known. */
  contentLength: number | undefined;
  /** A fresh body stream per call. */
  stream(onProgress?: (p: UploadProgress) => void): ReadableStream<Uint8Array>;
}

const encoder = new TextEncoder();

/** Quotes a filename for Content-Disposition: escape `"` and `\`, strip line breaks (RFC 7578 §4.2). */
function quoted(name: string): string {
  return `"${name.replace(/[\r\n]/g, " ").replace(/(["\\])/g, "\\$1")}"`;
}

/** A file under another part name than `files` (the control points' `gcp`), sent before the photos so the server has it first. */
export interface NamedPart {
  field: string;
  source: ResolvedSource;
}

export function multipartBody(photos: ResolvedSource[], fields: Record<string, string>, parts: NamedPart[] = []): MultipartBody {
  const boundary = `----photogrammetry-${randomBytes(12).toString("hex")}`;
  const fieldBytes = Object.entries(fields).map(([name, value]) => encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name=${quoted(name)}\r\n\r\n${value}\r\n`));
  const named = [...parts, ...photos.map((source) => ({ field: "files", source }))];
  const files = named.map((p) => p.source);
  const headers = named.map((p) => encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name=${quoted(p.field)}; filename=${quoted(p.source.name)}\r\nContent-Type: application/octet-stream\r\n\r\n`));
  const crlf = encoder.encode("\r\n");
  const closing = encoder.encode(`--${boundary}--\r\n`);
  const sizes = files.map((f) => f.size);
  const totalBytes = sizes.every((s) => s !== undefined) ? sizes.reduce<number>((a, s) => a + s!, 0) : undefined;
  const framing = fieldBytes.reduce((a, b) => a + b.byteLength, 0) + headers.reduce((a, b) => a + b.byteLength + crlf.byteLength, 0) + closing.byteLength;

  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: totalBytes === undefined ? undefined : totalBytes + framing,
    stream(onProgress) {
      let sentBytes = 0;
      async function* chunks(): AsyncGenerator<Uint8Array> {
        yield* fieldBytes;
        for (let i = 0; i < files.length; i++) {
          yield headers[i];
          const reader = files[i].open().getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            sentBytes += value.byteLength;
            onProgress?.({ sentBytes, totalBytes, file: files[i].name });
            yield value;
          }
          yield crlf;
        }
        yield closing;
      }
      const iterator = chunks();
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await iterator.next();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        async cancel() {
          await iterator.return(undefined);
        },
      });
    },
  };
}
