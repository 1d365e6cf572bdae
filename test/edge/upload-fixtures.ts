/** @module Synthetic input files and multipart bodies for the upload tests (bytes only, no decoders). */

export interface FormPart {
  name: string;
  fileName?: string;
  contentType?: string;
  data: Uint8Array | string;
}

export const BOUNDARY = "----edge-test-boundary-7MA4YWxkTrZu0gW";

const encoder = new TextEncoder();

function bytes(...pieces: (number[] | Uint8Array | string)[]): Uint8Array {
  const arrays = pieces.map((p) => (typeof p === "string" ? encoder.encode(p) : p instanceof Uint8Array ? p : new Uint8Array(p)));
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
}

/** Deterministic filler (LCG) so payloads look binary, include CR/LF/dashes, and compare exactly. */
export function filler(length: number, seed = 1): Uint8Array {
  const out = new Uint8Array(length);
  let state = seed >>> 0;
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = state >>> 24;
  }
  return out;
}

/** A JPEG header: SOI, an APP0 segment, SOF0 with the given size, then filler and EOI. */
export function jpeg(width: number, height: number, payloadBytes = 256): Uint8Array {
  const app0 = [0xff, 0xe0, 0x00, 0x10, ...encoder.encode("JFIF\0"), 1, 1, 0, 0, 1, 0, 1, 0, 0];
  const sof0 = [0xff, 0xc0, 0x00, 0x11, 8, height >> 8, height & 255, width >> 8, width & 255, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1];
  return bytes([0xff, 0xd8], app0, sof0, filler(payloadBytes, width), [0xff, 0xd9]);
}

export function png(width: number, height: number): Uint8Array {
  const u32 = (v: number) => [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
  return bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], u32(13), "IHDR", u32(width), u32(height), [8, 6, 0, 0, 0], u32(0), filler(64, 7));
}

/** An ISO-BMFF file opening with an `ftyp` box (major brand + compatible brands) and filler. */
export function isoBmff(major: string, compatible: string[], payloadBytes = 256): Uint8Array {
  const size = 16 + 4 * compatible.length;
  return bytes([0, 0, 0, size], "ftyp", major, [0, 0, 2, 0], ...compatible, [0, 0, 0, 8 + payloadBytes], "mdat", filler(payloadBytes, 3));
}

export const mp4 = (payloadBytes = 256) => isoBmff("isom", ["isom", "iso2", "avc1", "mp41"], payloadBytes);
export const mov = (payloadBytes = 256) => isoBmff("qt  ", ["qt  "], payloadBytes);
export const heic = (payloadBytes = 256) => isoBmff("heic", ["mif1", "heic"], payloadBytes);
export const pdf = () => encoder.encode("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");

export function multipartBody(parts: FormPart[], boundary = BOUNDARY): Uint8Array {
  const pieces: (Uint8Array | string)[] = [];
  for (const part of parts) {
    let disposition = `form-data; name="${part.name}"`;
    if (part.fileName !== undefined) disposition += `; filename="${part.fileName}"`;
    pieces.push(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n`);
    if (part.contentType) pieces.push(`Content-Type: ${part.contentType}\r\n`);
    pieces.push("\r\n", typeof part.data === "string" ? encoder.encode(part.data) : part.data, "\r\n");
  }
  pieces.push(`--${boundary}--\r\n`);
  return bytes(...pieces);
}

/** A body stream that hands out `body` in chunks of the given sizes (cycled). */
export function chunkedStream(body: Uint8Array, chunkSizes: number[]): ReadableStream<Uint8Array> {
  let at = 0;
  let turn = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= body.length) {
        controller.close();
        return;
      }
      const size = chunkSizes[turn++ % chunkSizes.length]!;
      controller.enqueue(body.slice(at, at + size));
      at += size;
    },
  });
}

/** Like chunkedStream, but a byte stream, so readers may use BYOB mode (as with request bodies). */
export function byteStream(body: Uint8Array, chunkSizes: number[]): ReadableStream<Uint8Array> {
  let at = 0;
  let turn = 0;
  return new ReadableStream({
    type: "bytes",
    pull(controller) {
      if (at >= body.length) {
        controller.close();
        controller.byobRequest?.respond(0);
        return;
      }
      const size = chunkSizes[turn++ % chunkSizes.length]!;
      controller.enqueue(body.slice(at, at + size));
      at += size;
    },
  }) as ReadableStream<Uint8Array>;
}

export function fileParts(files: { fileName: string; data: Uint8Array; contentType?: string }[]): FormPart[] {
  return files.map((f) => ({ name: "files", fileName: f.fileName, contentType: f.contentType ?? "application/octet-stream", data: f.data }));
}

export function multipartInit(apiKey: string, parts: FormPart[], extraHeaders: Record<string, string> = {}): RequestInit {
  return {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`, ...extraHeaders },
    body: multipartBody(parts),
  };
}

/** A JPEG whose APP1 EXIF segment states `orientation` (tag 0x0112; little-endian TIFF when `little`), then SOF0 with the stored size. */
export function jpegWithOrientation(width: number, height: number, orientation: number, little = true): Uint8Array {
  const u16 = (v: number) => (little ? [v & 255, v >> 8] : [v >> 8, v & 255]);
  const u32 = (v: number) => (little ? [v & 255, (v >> 8) & 255, (v >> 16) & 255, v >>> 24] : [v >>> 24, (v >> 16) & 255, (v >> 8) & 255, v & 255]);
  // TIFF header, IFD0 at offset 8 with one entry (Orientation, SHORT, count 1, value), no next IFD.
  const tiff = [...(little ? [0x49, 0x49] : [0x4d, 0x4d]), ...u16(42), ...u32(8), ...u16(1), ...u16(0x0112), ...u16(3), ...u32(1), ...u16(orientation), 0, 0, ...u32(0)];
  const payload = [...encoder.encode("Exif\0\0"), ...tiff];
  const app1 = [0xff, 0xe1, (payload.length + 2) >> 8, (payload.length + 2) & 255, ...payload];
  const sof0 = [0xff, 0xc0, 0x00, 0x11, 8, height >> 8, height & 255, width >> 8, width & 255, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1];
  return bytes([0xff, 0xd8], app1, sof0, filler(256, width), [0xff, 0xd9]);
}
