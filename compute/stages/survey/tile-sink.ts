/**
 * @module Where a COG level keeps its encoded tiles until the file is assembled: the IFDs at the
 * front of a COG must hold every tile's offset, so no tile can go to the file before all are
 * encoded. In memory (small rasters, tests) or appended to a spill file beside the output, so a
 * 10 000 px orthophoto costs its strips in memory and its compressed bytes on disk.
 *
 * Each tile is stored framed as GDAL's COG layout wants it in the file (BLOCK_LEADER =
 * SIZE_AS_UINT4, BLOCK_TRAILER = LAST_4_BYTES_REPEATED; GDAL COG driver, "Header ghost area"),
 * so assembling is a plain copy of each level's bytes.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { open, rm, type FileHandle } from "node:fs/promises";

export const BLOCK_LEADER_BYTES = 4;
export const BLOCK_TRAILER_BYTES = 4;
/** Bytes copied per read when a spill file is assembled into the COG. */
const COPY_BYTES = 8 << 20;

export interface TileSink {
  /** Appends one encoded tile with its leader and trailer. */
  append(tile: Buffer): void;
  /** Bytes appended so far, leaders and trailers included. */
  readonly bytes: number;
  /** Writes everything appended to `handle` at its current position, in order. */
  copyTo(handle: FileHandle): Promise<void>;
  /** Frees the memory or deletes the spill file. */
  discard(): Promise<void>;
}

/** The tile between its leader (byte count, uint32 little-endian) and trailer (its last 4 bytes again). */
function framed(tile: Buffer): Buffer[] {
  if (tile.byteLength < BLOCK_TRAILER_BYTES) throw new Error("survey: an encoded tile is shorter than its trailer");
  const leader = Buffer.alloc(BLOCK_LEADER_BYTES);
  leader.writeUInt32LE(tile.byteLength, 0);
  return [leader, tile, tile.subarray(tile.byteLength - BLOCK_TRAILER_BYTES)];
}

export class MemoryTileSink implements TileSink {
  private parts: Buffer[] = [];
  bytes = 0;

  append(tile: Buffer): void {
    for (const part of framed(tile)) {
      this.parts.push(part);
      this.bytes += part.byteLength;
    }
  }

  async copyTo(handle: FileHandle): Promise<void> {
    // A few hundred buffers per call, so that no call holds a list of every tile.
    for (let i = 0; i < this.parts.length; i += 768) await handle.writev(this.parts.slice(i, i + 768));
  }

  async discard(): Promise<void> {
    this.parts = [];
  }
}

export class FileTileSink implements TileSink {
  private fd: number | null;
  bytes = 0;

  constructor(readonly filePath: string) {
    this.fd = openSync(filePath, "w");
  }

  append(tile: Buffer): void {
    if (this.fd === null) throw new Error("survey: append to a discarded tile sink");
    for (const part of framed(tile)) {
      let written = 0;
      while (written < part.byteLength) written += writeSync(this.fd, part, written, part.byteLength - written);
      this.bytes += part.byteLength;
    }
  }

  async copyTo(handle: FileHandle): Promise<void> {
    this.closeFd();
    const source = await open(this.filePath, "r");
    const buffer = Buffer.alloc(Math.min(COPY_BYTES, Math.max(1, this.bytes)));
    try {
      let copied = 0;
      while (copied < this.bytes) {
        const { bytesRead } = await source.read(buffer, 0, Math.min(buffer.byteLength, this.bytes - copied), copied);
        if (bytesRead === 0) throw new Error(`survey: ${this.filePath} ended after ${copied} of ${this.bytes} bytes`);
        let written = 0;
        while (written < bytesRead) written += (await handle.write(buffer, written, bytesRead - written)).bytesWritten;
        copied += bytesRead;
      }
    } finally {
      await source.close();
    }
  }

  async discard(): Promise<void> {
    this.closeFd();
    await rm(this.filePath, { force: true });
  }

  private closeFd(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
