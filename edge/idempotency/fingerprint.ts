/**
 * @module The fingerprint of a creation request, computed while its body streams.
 *
 * Clients that retry rebuild the form, and most pick a new multipart boundary each time, so
 * the raw bytes are no fingerprint. This one hashes what the form means: every part's name and
 * filename, then its bytes and their count, in order, with one SHA-256 DigestStream (workerd's
 * incremental digest), so a 500 MiB body is hashed as it goes by, never buffered.
 */
import { MultipartReader, type PartHeaders } from "../uploads/multipart.js";

const encoder = new TextEncoder();

export function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A MultipartReader that feeds everything it reads into a SHA-256 of the form's content. */
export class FingerprintingReader extends MultipartReader {
  private readonly hash = new crypto.DigestStream("SHA-256");
  private readonly sink = this.hash.getWriter();
  /** Bytes of the current part's body so far; written after it so part edges cannot be forged by body bytes alone. */
  private partBytes = 0;
  private inPart = false;

  constructor(body: ReadableStream<Uint8Array>, boundary: string) {
    super(body, boundary);
    void this.sink.write(encoder.encode("multipart/form-data\n"));
  }

  override async nextPart(): Promise<PartHeaders | undefined> {
    const part = await super.nextPart();
    await this.endPart();
    if (part) {
      await this.sink.write(encoder.encode(`\npart ${JSON.stringify([part.name, part.fileName ?? null])}\n`));
      this.inPart = true;
    }
    return part;
  }

  override async *readBody(): AsyncGenerator<Uint8Array> {
    for await (const chunk of super.readBody()) {
      // Awaited before the chunk is handed on: the reader may reuse its buffer afterwards.
      await this.sink.write(chunk);
      this.partBytes += chunk.length;
      yield chunk;
    }
  }

  /** Hex SHA-256 of everything read; call once, after the last part. */
  async digest(): Promise<string> {
    await this.endPart();
    await this.sink.close();
    return hex(await this.hash.digest);
  }

  private async endPart(): Promise<void> {
    if (!this.inPart) return;
    await this.sink.write(encoder.encode(`\nend ${this.partBytes}\n`));
    this.inPart = false;
    this.partBytes = 0;
  }
}

/**
 * Fingerprints a body without storing it (a retry of a request that already succeeded: only
 * the comparison matters). Throws MultipartError on a malformed body; `maxBytes` bounds the read.
 */
export async function fingerprintOnly(body: ReadableStream<Uint8Array>, boundary: string, maxBytes: number): Promise<string> {
  const reader = new FingerprintingReader(body, boundary);
  reader.onRead = (bytesRead) => {
    if (bytesRead > maxBytes) throw new RangeError(`body over ${maxBytes} bytes`);
  };
  try {
    for (let part = await reader.nextPart(); part; part = await reader.nextPart()) for await (const _chunk of reader.readBody());
    return await reader.digest();
  } catch (err) {
    await reader.cancel();
    throw err;
  }
}

/** A non-multipart body (e.g. JSON `{uploads}`): small, so hashed whole. */
export async function fingerprintText(contentType: string, text: string): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", encoder.encode(`${contentType}\n${text}`)));
}
