/**
 * @module A streaming `multipart/form-data` reader (RFC 7578 over RFC 2046 §5.1).
 *
 * The body is scanned for the delimiter `CRLF--boundary` chunk by chunk; a part's body is
 * handed out as it arrives, never gathered whole, so memory stays at one network chunk plus
 * the delimiter length whatever the upload size. Hono's `parseBody()` and `Request.formData()`
 * buffer the entire body, which is why they are not used here.
 */

/** Raised for any syntax error; the route maps it to 400 `invalid_request`. */
export class MultipartError extends Error {}

export interface PartHeaders {
  /** `name` of `Content-Disposition: form-data`. */
  readonly name: string;
  /** `filename` (or `filename*`) of the disposition; undefined for plain fields. */
  readonly fileName: string | undefined;
  /** Declared `Content-Type`; informative only, the kind is judged by the bytes. */
  readonly contentType: string | undefined;
}

/** Part headers beyond this size are malformed input, not something to buffer. */
const MAX_HEADER_BYTES = 16 * 1024;
const CRLF = new Uint8Array([13, 10]);
const HEADER_END = new Uint8Array([13, 10, 13, 10]);

/** Extracts the boundary of a `multipart/form-data` Content-Type, or undefined. */
export function boundaryOf(contentType: string | null | undefined): string | undefined {
  if (!contentType) return undefined;
  const [mediaType, ...params] = splitParams(contentType);
  if (mediaType?.toLowerCase() !== "multipart/form-data") return undefined;
  const boundary = paramValue(params, "boundary");
  // RFC 2046 §5.1.1: 1 to 70 characters.
  if (!boundary || boundary.length > 70) return undefined;
  return boundary;
}

/**
 * Reads parts one at a time. Usage: `while (headers = await reader.nextPart())` then drain
 * `reader.readBody()` before asking for the next part (unread bytes are skipped).
 */
export class MultipartReader {
  private readonly source: ChunkSource;
  /** `CRLF--boundary`: the delimiter that ends every part body. */
  private readonly delimiter: Uint8Array;
  /** Bytes read from the source and not consumed yet. */
  private pending: Uint8Array;
  private sourceDone = false;
  private inBody = false;
  /** True once the first delimiter (after any preamble) has been consumed. */
  private started = false;
  /** A delimiter was just consumed; what follows it (`--` or CRLF) is read by `nextPart`. */
  private atDelimiterEnd = false;
  private finished = false;
  /** Total bytes pulled from the source, for the per-request limit. */
  bytesRead = 0;

  constructor(body: ReadableStream<Uint8Array>, boundary: string) {
    this.source = openSource(body);
    this.delimiter = new TextEncoder().encode(`\r\n--${boundary}`);
    // The first delimiter has no leading CRLF; prefixing one lets a single search rule apply.
    this.pending = CRLF.slice();
  }

  /** Hook called with the running byte count after each source read (limit checks). */
  onRead: (bytesRead: number) => void = () => {};

  /** Advances to the next part and returns its headers, or undefined after the close delimiter. */
  async nextPart(): Promise<PartHeaders | undefined> {
    if (this.finished) return undefined;
    if (this.inBody) for await (const _chunk of this.readBody()); // skip the rest of the body
    else if (!this.started) await this.skipPreamble();
    this.started = true;
    if (this.atDelimiterEnd) {
      this.atDelimiterEnd = false;
      await this.afterDelimiter();
    }
    if (this.finished) return undefined;
    const headerBytes = await this.readUntil(HEADER_END, MAX_HEADER_BYTES);
    this.inBody = true;
    return parsePartHeaders(new TextDecoder().decode(headerBytes));
  }

  /** Yields the current part's body in chunks, ending at the next delimiter. */
  async *readBody(): AsyncGenerator<Uint8Array> {
    if (!this.inBody) return;
    const keep = this.delimiter.length - 1;
    for (;;) {
      const at = indexOf(this.pending, this.delimiter, 0);
      if (at >= 0) {
        const chunk = this.pending.subarray(0, at);
        this.pending = this.pending.subarray(at + this.delimiter.length);
        this.inBody = false;
        // Reading past the delimiter now could reuse the read buffer under `chunk`: later.
        this.atDelimiterEnd = true;
        if (chunk.length > 0) yield chunk;
        return;
      }
      // All but the last `keep` bytes cannot start a delimiter: hand them out now.
      if (this.pending.length > keep) {
        const chunk = this.pending.subarray(0, this.pending.length - keep);
        this.pending = this.pending.subarray(this.pending.length - keep);
        yield chunk;
      }
      const next = await this.readChunk();
      if (!next) throw new MultipartError("the body ended inside a part (no closing boundary)");
      // The common case, no delimiter across the seam: hand out the short tail and keep the new
      // chunk as it is, so body bytes are not copied on their way through.
      if (this.seamHasDelimiter(next)) this.pending = concat(this.pending, next);
      else {
        const tail = this.pending;
        this.pending = next;
        if (tail.length > 0) yield tail;
      }
    }
  }

  /** Stops reading the source (after a rejection) so the client's upload is not drained. */
  async cancel(): Promise<void> {
    this.finished = true;
    await this.source.cancel();
  }

  private async skipPreamble(): Promise<void> {
    // RFC 2046 allows a preamble before the first delimiter; it is discarded.
    for (;;) {
      const at = indexOf(this.pending, this.delimiter, 0);
      if (at >= 0) {
        this.pending = this.pending.subarray(at + this.delimiter.length);
        this.atDelimiterEnd = true;
        return;
      }
      if (this.pending.length > MAX_HEADER_BYTES) throw new MultipartError("no multipart boundary found at the start of the body");
      if (!(await this.fill())) throw new MultipartError("the body holds no multipart boundary");
    }
  }

  /** After a delimiter comes `--` (the close delimiter) or optional whitespace then CRLF. */
  private async afterDelimiter(): Promise<void> {
    while (this.pending.length < 2 && (await this.fill()));
    if (this.pending[0] === 45 && this.pending[1] === 45) {
      this.finished = true;
      // The epilogue is ignored (RFC 2046); stop pulling it.
      await this.source.cancel();
      return;
    }
    // Transport padding (spaces, tabs) may follow the boundary before the CRLF.
    const line = await this.readUntil(CRLF, 256);
    if (line.some((b) => b !== 32 && b !== 9)) throw new MultipartError("unexpected bytes after a boundary");
  }

  /** Consumes and returns bytes up to `marker` (the marker itself is dropped). */
  private async readUntil(marker: Uint8Array, maxBytes: number): Promise<Uint8Array> {
    for (;;) {
      const at = indexOf(this.pending, marker, 0);
      // The limit holds however the body is chunked, also when the marker came in one chunk.
      if (at > maxBytes) throw new MultipartError("part headers are too long or not terminated");
      if (at >= 0) {
        const head = this.pending.slice(0, at);
        this.pending = this.pending.subarray(at + marker.length);
        return head;
      }
      if (this.pending.length > maxBytes) throw new MultipartError("part headers are too long or not terminated");
      if (!(await this.fill())) throw new MultipartError("the body ended inside part headers");
    }
  }

  /** Appends one source chunk to `pending`; false at end of stream. */
  private async fill(): Promise<boolean> {
    const value = await this.readChunk();
    if (!value) return false;
    this.pending = this.pending.length === 0 ? value : concat(this.pending, value);
    return true;
  }

  /**
   * The next non-empty source chunk, counted against the request limit; undefined at the end.
   * Chunks handed out earlier must have been consumed: a BYOB source reads into the same memory.
   */
  private async readChunk(): Promise<Uint8Array | undefined> {
    while (!this.sourceDone) {
      // `pending` is at most a delimiter's length in a body (headers: at most MAX_HEADER_BYTES).
      if (this.source.reusesBuffer && this.pending.length > 0) this.pending = this.pending.slice();
      let value: Uint8Array | undefined;
      try {
        value = await this.source.read();
      } catch {
        // The client's connection broke off mid-body: its request is incomplete, not our fault.
        throw new MultipartError("the body broke off before its end (connection lost)");
      }
      if (!value) {
        this.sourceDone = true;
        return undefined;
      }
      if (value.byteLength === 0) continue;
      this.bytesRead += value.byteLength;
      this.onRead(this.bytesRead);
      return value;
    }
    return undefined;
  }

  /**
   * Whether a delimiter may start inside `pending` and run on into `next`: true when some
   * position of `pending` matches the delimiter for every byte available there (a partial
   * match counts, since the rest may come with later chunks).
   */
  private seamHasDelimiter(next: Uint8Array): boolean {
    const tail = this.pending;
    const delimiter = this.delimiter;
    const available = tail.length + next.length;
    for (let start = 0; start < tail.length; start++) {
      let j = 0;
      while (j < delimiter.length && start + j < available) {
        const at = start + j;
        const byte = at < tail.length ? tail[at] : next[at - tail.length];
        if (byte !== delimiter[j]) break;
        j++;
      }
      if (j === delimiter.length || start + j === available) return true;
    }
    return false;
  }
}

/** Where body bytes come from; `reusesBuffer` when each read overwrites the previous chunk. */
interface ChunkSource {
  readonly reusesBuffer: boolean;
  read(): Promise<Uint8Array | undefined>;
  cancel(): Promise<void>;
}

/** Bytes per read from a BYOB source. */
const READ_BYTES = 64 * 1024;

/**
 * Reads a byte stream (a request body in workerd) with a BYOB reader into one buffer reused
 * for every read, so a long upload does not leave one garbage buffer per network chunk for the
 * collector; other streams fall back to a default reader.
 */
function openSource(body: ReadableStream<Uint8Array>): ChunkSource {
  let byob: ReadableStreamBYOBReader;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch {
    const reader = body.getReader();
    return {
      reusesBuffer: false,
      read: async () => {
        const { done, value } = await reader.read();
        return done ? undefined : value;
      },
      cancel: () => reader.cancel().catch(() => undefined),
    };
  }
  // The buffer is transferred into each read and comes back as `value.buffer`.
  let buffer = new ArrayBuffer(READ_BYTES);
  return {
    reusesBuffer: true,
    read: async () => {
      const { done, value } = await byob.read(new Uint8Array(buffer));
      if (value) buffer = value.buffer as ArrayBuffer;
      return done ? undefined : value;
    },
    cancel: () => byob.cancel().catch(() => undefined),
  };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** First index of `needle` in `haystack` at or after `from`, or -1. */
export function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0]!;
  const last = haystack.length - needle.length;
  // `Uint8Array.indexOf` for the first byte is native and fast; the rest is compared by hand.
  for (let i = haystack.indexOf(first, from); i >= 0 && i <= last; i = haystack.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

function parsePartHeaders(text: string): PartHeaders {
  let disposition: string | undefined;
  let contentType: string | undefined;
  for (const line of text.split("\r\n")) {
    if (line === "") continue;
    const colon = line.indexOf(":");
    if (colon <= 0) throw new MultipartError("a part header line has no name");
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === "content-disposition") disposition = value;
    else if (name === "content-type") contentType = value;
  }
  if (!disposition) throw new MultipartError("a part has no Content-Disposition header");
  const [kind, ...params] = splitParams(disposition);
  if (kind?.toLowerCase() !== "form-data") throw new MultipartError("a part's Content-Disposition is not form-data");
  const name = paramValue(params, "name");
  if (name === undefined) throw new MultipartError("a part has no field name");
  const extended = paramValue(params, "filename*");
  const fileName = extended !== undefined ? decodeExtended(extended) : paramValue(params, "filename");
  return { name, fileName, contentType };
}

/** Splits `a; b=c; d="e;f"` on semicolons outside quotes. */
function splitParams(header: string): string[] {
  const out: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < header.length; i++) {
    const ch = header[i]!;
    if (ch === '"' && header[i - 1] !== "\\") quoted = !quoted;
    if (ch === ";" && !quoted) {
      out.push(current.trim());
      current = "";
    } else current += ch;
  }
  out.push(current.trim());
  return out;
}

function paramValue(params: string[], key: string): string | undefined {
  for (const param of params) {
    const eq = param.indexOf("=");
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== key) continue;
    const raw = param.slice(eq + 1).trim();
    return raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2 ? raw.slice(1, -1).replace(/\\(.)/g, "$1") : raw;
  }
  return undefined;
}

/** RFC 5987 `charset'lang'percent-encoded`. */
function decodeExtended(value: string): string {
  const parts = value.split("'");
  if (parts.length !== 3) throw new MultipartError("malformed filename* parameter");
  try {
    return decodeURIComponent(parts[2]!);
  } catch {
    throw new MultipartError("malformed filename* parameter");
  }
}
