/**
 * @module Writes one streamed file into R2 with bounded memory.
 *
 * Bytes are gathered into one fixed-size part buffer; a full buffer becomes one part of an R2
 * multipart upload (R2 wants every part but the last of the same size, at least 5 MiB). A file
 * that ends before its first part fills is written with a single `put`. Memory per file is
 * therefore one part buffer whatever the file size.
 */

/** R2's minimum size for every part but the last. */
export const MIN_PART_BYTES = 5 * 1024 * 1024;

export interface WrittenObject {
  key: string;
  size: number;
}

export class R2StreamWriter {
  private readonly bucket: R2Bucket;
  private readonly key: string;
  private readonly contentType: string;
  /** Bytes of the part being gathered; `filled` of them are valid. */
  private readonly partBuffer: Uint8Array;
  private filled = 0;
  private upload: R2MultipartUpload | undefined;
  private readonly parts: R2UploadedPart[] = [];
  private size = 0;

  /**
   * `partBuffer` (its length is the part size) may be shared by writers used one after the
   * other, so a request with many files holds one buffer, not one per file.
   */
  constructor(bucket: R2Bucket, key: string, contentType: string, partBuffer: Uint8Array = new Uint8Array(MIN_PART_BYTES)) {
    if (partBuffer.length < MIN_PART_BYTES) throw new RangeError(`R2StreamWriter: parts must be at least ${MIN_PART_BYTES} bytes`);
    this.bucket = bucket;
    this.key = key;
    this.contentType = contentType;
    this.partBuffer = partBuffer;
  }

  async write(chunk: Uint8Array): Promise<void> {
    this.size += chunk.length;
    let offset = 0;
    while (offset < chunk.length) {
      const take = Math.min(chunk.length - offset, this.partBuffer.length - this.filled);
      this.partBuffer.set(chunk.subarray(offset, offset + take), this.filled);
      this.filled += take;
      offset += take;
      if (this.filled === this.partBuffer.length) await this.flushPart();
    }
  }

  /** Completes the object; returns its key and size. */
  async close(): Promise<WrittenObject> {
    const httpMetadata = { contentType: this.contentType };
    if (!this.upload) {
      await this.bucket.put(this.key, this.partBuffer.subarray(0, this.filled), { httpMetadata });
    } else {
      if (this.filled > 0) await this.flushPart();
      await this.upload.complete(this.parts);
    }
    return { key: this.key, size: this.size };
  }

  /** Drops an unfinished multipart upload so no parts linger in the bucket. */
  async abort(): Promise<void> {
    if (this.upload) await this.upload.abort().catch(() => undefined);
  }

  private async flushPart(): Promise<void> {
    this.upload ??= await this.bucket.createMultipartUpload(this.key, { httpMetadata: { contentType: this.contentType } });
    // uploadPart reads the bytes before resolving, so the buffer can be reused afterwards.
    const uploaded = await this.upload.uploadPart(this.parts.length + 1, this.partBuffer.subarray(0, this.filled));
    this.parts.push(uploaded);
    this.filled = 0;
  }
}
