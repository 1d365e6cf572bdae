/**
 * @module Bytes of one framed record, as tasks exchange them (feature batches, pair batches,
 * matching payloads): a magic number and the header's length (u32 LE), a JSON header, then raw
 * arrays, each starting at a multiple of `alignment` bytes so it can be viewed as typed data.
 */

const padded = (n: number, alignment: number) => Math.ceil(n / alignment) * alignment;

export function encodeFramed(magic: number, header: unknown, parts: Uint8Array[], alignment: 4 | 8): Uint8Array {
  const headerBytes = new TextEncoder().encode(JSON.stringify(header));
  let size = padded(8 + headerBytes.byteLength, alignment);
  for (const part of parts) size += padded(part.byteLength, alignment);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, magic, true);
  view.setUint32(4, headerBytes.byteLength, true);
  out.set(headerBytes, 8);
  let at = padded(8 + headerBytes.byteLength, alignment);
  for (const part of parts) {
    out.set(part, at);
    at += padded(part.byteLength, alignment);
  }
  return out;
}

export interface Framed<H> {
  header: H;
  /** The next `length` bytes as a copy (aligned, owning its memory). */
  take(length: number): Uint8Array;
  /** Everything after the arrays taken so far, without copying. */
  rest(): Uint8Array;
}

/** Reads a framed record; `what` and `kind` name it in errors ("features: truncated feature batch"). */
export function decodeFramed<H>(bytes: Uint8Array, magic: number, alignment: 4 | 8, what: string, kind: string): Framed<H> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 8 || view.getUint32(0, true) !== magic) throw new Error(`${what}: not a ${kind}`);
  const headerLength = view.getUint32(4, true);
  if (8 + headerLength > bytes.byteLength) throw new Error(`${what}: truncated ${kind}`);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength))) as H;
  let at = padded(8 + headerLength, alignment);
  return {
    header,
    take: (length) => {
      if (at + length > bytes.byteLength) throw new Error(`${what}: truncated ${kind}`);
      const part = bytes.slice(at, at + length);
      at += padded(length, alignment);
      return part;
    },
    rest: () => bytes.subarray(Math.min(at, bytes.byteLength)),
  };
}
