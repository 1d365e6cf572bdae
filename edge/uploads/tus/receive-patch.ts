/**
 * @module Writes one tus PATCH body into the upload's R2 multipart upload, whatever its size.
 *
 * R2 wants every part but the last of one size, at least 5 MiB, while tus clients send any
 * amount per PATCH (tus-js-client's `chunkSize`, or whatever got through before a connection
 * dropped). So the upload is cut into fixed PART_BYTES parts by offset: part n holds bytes
 * [(n-1)·PART, n·PART). The bytes after the last full part (the "tail", < PART) wait in a
 * small R2 object `uploads/<id>/tail-<generation>`; the next PATCH reads it back, appends its
 * own bytes, uploads every part that fills and writes the new tail under the next generation.
 * Nothing is recorded until the DO commits, so a PATCH that fails leaves the previous state
 * valid: parts it uploaded are overwritten by number later, its tail generation is never read.
 *
 * With `Upload-Checksum` the body is verified before the upload is completed or committed, and
 * an interrupted body is discarded (it cannot be verified). Without one, an interrupted body
 * keeps every byte that arrived (tus core: the server should store as much as it received).
 *
 * CONTRIBUTOR NOTES: the tail costs each PATCH one read and one write of at most a part
 * (5 MiB), whatever the chunk size; tiny chunks therefore multiply R2 traffic, but they are
 * bounded by the request rate limit anyway. Keeping the tail in the UploadObject's storage
 * instead was considered: it saves the R2 round trips but moves up to 5 MiB through DO RPC per
 * PATCH and needs splitting into ≤ 2 MB rows; R2 keeps one code path for parts and tail.
 */
import { ApiError } from "../../errors.js";
import type { InputKind } from "../../../shared/jobs.js";
import { uploadDataKey, uploadTailKey } from "../../../shared/storage-keys.js";
import type { UploadState, UploadUpdate } from "../../objects/upload-rpc.js";
import { STORED_CONTENT_TYPES, mib } from "../ingest.js";
import { MIN_PART_BYTES } from "../r2-writer.js";
import { SNIFF_BYTES, isVideo, jpegSize, pngSize, sniffKind } from "../sniff.js";

/** The fixed R2 part size of tus uploads. */
export const PART_BYTES = MIN_PART_BYTES;
/** Renew the PATCH lease at least this often while the body streams. */
const RENEW_EVERY_MS = 15_000;

export interface Checksum {
  /** Web Crypto name, e.g. "SHA-1". */
  algorithm: string;
  expected: Uint8Array;
}

export interface PatchLimits {
  maxImageBytes: number;
  maxVideoBytes: number;
}

export interface PatchContext {
  bucket: R2Bucket;
  state: UploadState;
  body: ReadableStream<Uint8Array> | null;
  checksum: Checksum | undefined;
  limits: PatchLimits;
  /** Extends the lease; resolves false when it was lost. */
  renew: () => Promise<boolean>;
}

export interface PatchResult {
  update: UploadUpdate;
  /** The tail object this PATCH superseded (delete it once the update is committed). */
  staleTailKey: string | undefined;
  /** The tail object this PATCH wrote (delete it if the commit fails). */
  newTailKey: string | undefined;
  interrupted: boolean;
}

/** The kind became known and the upload cannot be accepted: the route deletes the whole upload. */
export class UploadRejected extends ApiError {}

export async function receivePatch(ctx: PatchContext): Promise<PatchResult> {
  const patch = new PatchWriter(ctx);
  try {
    return await patch.run();
  } catch (err) {
    await patch.discard();
    throw err;
  }
}

class PatchWriter {
  private readonly state: UploadState;
  /** Bytes from offset `parts.length * PART_BYTES` on; `filled` of them are valid. */
  private readonly buffer = new Uint8Array(PART_BYTES);
  private filled = 0;
  private offset: number;
  private multipartId: string | null;
  private readonly parts: R2UploadedPart[];
  private kind: InputKind | null;
  private pixels: number | null;
  private createdMultipart: R2MultipartUpload | undefined;
  private lastRenew = Date.now();

  constructor(private readonly ctx: PatchContext) {
    this.state = ctx.state;
    this.offset = ctx.state.offset;
    this.multipartId = ctx.state.multipart_id;
    this.parts = [...ctx.state.parts];
    this.kind = ctx.state.kind;
    this.pixels = ctx.state.pixels;
  }

  async run(): Promise<PatchResult> {
    await this.loadTail();
    const digest = this.ctx.checksum ? new crypto.DigestStream(this.ctx.checksum.algorithm) : undefined;
    const digestWriter = digest?.getWriter();
    const interrupted = await this.readBody(async (chunk) => {
      await digestWriter?.write(chunk);
      await this.append(chunk);
    });
    if (digest && digestWriter) {
      if (interrupted) throw new ApiError("invalid_request", "The PATCH body ended early; with Upload-Checksum it cannot be verified and was discarded.", "Send the chunk again from the offset HEAD reports.");
      await digestWriter.close();
      if (!equalBytes(new Uint8Array(await digest.digest), this.ctx.checksum!.expected)) {
        throw new ApiError("checksum_mismatch", "The PATCH body does not match its Upload-Checksum; nothing of it was stored.", "Send the chunk again from the offset HEAD reports.");
      }
    }
    // An empty PATCH (a probe, or a request cut before its first byte) changes nothing stored.
    if (this.offset === this.state.offset) return { update: unchanged(this.state), staleTailKey: undefined, newTailKey: undefined, interrupted };
    const complete = this.offset === this.state.length;
    if (complete) this.judge(true);
    this.measure(complete);
    const newTailKey = complete ? undefined : await this.writeTail();
    if (complete) await this.finish();
    const staleTailKey = this.state.offset > this.state.parts.length * PART_BYTES ? uploadTailKey(this.state.id, this.state.tail_generation) : undefined;
    const update: UploadUpdate = {
      offset: this.offset,
      multipart_id: this.multipartId,
      parts: this.parts.map(({ partNumber, etag }) => ({ partNumber, etag })),
      tail_generation: newTailKey ? this.state.tail_generation + 1 : this.state.tail_generation,
      kind: this.kind,
      pixels: this.pixels,
      complete,
    };
    return { update, staleTailKey, newTailKey, interrupted };
  }

  /** Undoes what only this PATCH created (a multipart upload it opened); other leftovers are unreachable. */
  async discard(): Promise<void> {
    await this.createdMultipart?.abort().catch(() => undefined);
    await this.ctx.bucket.delete(uploadTailKey(this.state.id, this.state.tail_generation + 1)).catch(() => undefined);
  }

  /** Feeds every chunk to `onChunk`; true when the body broke off (the client went away). */
  private async readBody(onChunk: (chunk: Uint8Array) => Promise<void>): Promise<boolean> {
    if (!this.ctx.body) return false;
    const reader = this.ctx.body.getReader();
    for (;;) {
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await reader.read();
      } catch {
        return true;
      }
      if (step.done) return false;
      await onChunk(step.value);
    }
  }

  private async loadTail(): Promise<void> {
    const tailSize = this.state.offset - this.state.parts.length * PART_BYTES;
    if (tailSize === 0) return;
    const tail = await this.ctx.bucket.get(uploadTailKey(this.state.id, this.state.tail_generation));
    if (!tail || tail.size !== tailSize) throw new Error(`upload ${this.state.id}: tail generation ${this.state.tail_generation} is missing or has the wrong size`);
    this.buffer.set(new Uint8Array(await tail.arrayBuffer()), 0);
    this.filled = tailSize;
  }

  private async append(chunk: Uint8Array): Promise<void> {
    if (this.offset + chunk.length > this.state.length) {
      throw new ApiError("payload_too_large", `The PATCH carries more bytes than Upload-Length (${this.state.length}).`, "Send at most Upload-Length minus Upload-Offset bytes.");
    }
    let at = 0;
    while (at < chunk.length) {
      const take = Math.min(chunk.length - at, PART_BYTES - this.filled);
      this.buffer.set(chunk.subarray(at, at + take), this.filled);
      this.filled += take;
      this.offset += take;
      at += take;
      this.judge(false);
      if (this.filled === PART_BYTES) await this.flushPart();
    }
    if (Date.now() - this.lastRenew > RENEW_EVERY_MS) {
      this.lastRenew = Date.now();
      if (!(await this.ctx.renew())) throw new ApiError("upload_locked", "Another request took over this upload.", "Ask HEAD for the offset, then resume.");
    }
  }

  /** Sniffs the first bytes once enough arrived (or the upload ended), and holds the kind to its limit. */
  private judge(atEnd: boolean): void {
    if (this.kind !== null || this.parts.length > 0 || (this.filled < SNIFF_BYTES && !atEnd)) return;
    const kind = sniffKind(this.buffer.subarray(0, Math.min(this.filled, SNIFF_BYTES)));
    if (!kind) {
      throw new UploadRejected("invalid_file_format", `The upload "${this.state.filename}" is not a JPEG, PNG, HEIC, MP4 or MOV file (judged by its content).`, "Upload JPEG, PNG or HEIC images, or MP4 or MOV videos.");
    }
    const max = isVideo(kind) ? this.ctx.limits.maxVideoBytes : this.ctx.limits.maxImageBytes;
    if (this.state.length > max) {
      throw new UploadRejected("payload_too_large", `The upload "${this.state.filename}" is larger than the limit of ${mib(max)} per ${isVideo(kind) ? "video" : "image"}.`, "Send a smaller file.");
    }
    this.kind = kind;
  }

  /** Image size for the estimate, read while the first part is still in the buffer. */
  private measure(atEnd: boolean): void {
    if (this.pixels !== null || this.parts.length > 0 || !(atEnd || this.filled === PART_BYTES)) return;
    const head = this.buffer.subarray(0, this.filled);
    const size = this.kind === "png" ? pngSize(head) : this.kind === "jpeg" ? jpegSize(head) : undefined;
    if (size && size.width > 0 && size.height > 0) this.pixels = size.width * size.height;
  }

  private async flushPart(): Promise<void> {
    this.measure(false);
    const upload = await this.multipart();
    // uploadPart has read the bytes when it resolves, so the buffer can be refilled.
    this.parts.push(await upload.uploadPart(this.parts.length + 1, this.buffer.subarray(0, this.filled)));
    this.filled = 0;
  }

  private async multipart(): Promise<R2MultipartUpload> {
    const key = uploadDataKey(this.state.id);
    if (this.multipartId) return this.ctx.bucket.resumeMultipartUpload(key, this.multipartId);
    this.createdMultipart = await this.ctx.bucket.createMultipartUpload(key, { httpMetadata: { contentType: STORED_CONTENT_TYPES[this.kind!] } });
    this.multipartId = this.createdMultipart.uploadId;
    return this.createdMultipart;
  }

  private async writeTail(): Promise<string | undefined> {
    if (this.filled === 0) return undefined;
    const key = uploadTailKey(this.state.id, this.state.tail_generation + 1);
    await this.ctx.bucket.put(key, this.buffer.subarray(0, this.filled));
    return key;
  }

  /** The last bytes arrived: one put for a small file, else the last part and `complete`. */
  private async finish(): Promise<void> {
    const contentType = STORED_CONTENT_TYPES[this.kind!];
    if (this.parts.length === 0) {
      await this.ctx.bucket.put(uploadDataKey(this.state.id), this.buffer.subarray(0, this.filled), { httpMetadata: { contentType } });
      return;
    }
    if (this.filled > 0) await this.flushPart();
    await (await this.multipart()).complete(this.parts);
  }
}

function unchanged(state: UploadState): UploadUpdate {
  const { offset, multipart_id, parts, tail_generation, kind, pixels, complete } = state;
  return { offset, multipart_id, parts, tail_generation, kind, pixels, complete };
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}
