/**
 * @module Features as bytes, for a batch detected on another container (compute/service):
 * magic, header length (u32 LE), a JSON header (per image: index, count, descriptor bytes,
 * and the batch's report lines), then each image's arrays raw, each padded to 4 bytes.
 */
import type { ImageFeatures } from "../../scene/index.js";

const MAGIC = 0x46544231; // "FTB1"

export interface FeatureBatch {
  features: ImageFeatures[];
  /** The batch's perImage report lines, in its image order. */
  perImage: Array<{ name: string; [key: string]: unknown }>;
  warnings: string[];
}

interface Header {
  images: Array<{ imageIndex: number; count: number; descriptorBytes: number }>;
  perImage: FeatureBatch["perImage"];
  warnings: string[];
}

const align4 = (n: number) => (n + 3) & ~3;

/** Arrays of one image in file order, as bytes. */
function arraysOf(f: ImageFeatures): Uint8Array[] {
  const bytes = (a: Float32Array | Uint8Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  return [bytes(f.xy), bytes(f.scale), bytes(f.angle), f.descriptors, f.rgb];
}

export function encodeFeatureBatch(batch: FeatureBatch): Uint8Array {
  const header: Header = { images: batch.features.map((f) => ({ imageIndex: f.imageIndex, count: f.count, descriptorBytes: f.descriptorBytes })), perImage: batch.perImage, warnings: batch.warnings };
  const headerBytes = new TextEncoder().encode(JSON.stringify(header));
  const parts = batch.features.flatMap(arraysOf);
  let size = align4(8 + headerBytes.byteLength);
  for (const part of parts) size += align4(part.byteLength);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, headerBytes.byteLength, true);
  out.set(headerBytes, 8);
  let at = align4(8 + headerBytes.byteLength);
  for (const part of parts) {
    out.set(part, at);
    at += align4(part.byteLength);
  }
  return out;
}

export function decodeFeatureBatch(bytes: Uint8Array): FeatureBatch {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 8 || view.getUint32(0, true) !== MAGIC) throw new Error("features: not a feature batch");
  const headerLength = view.getUint32(4, true);
  if (8 + headerLength > bytes.byteLength) throw new Error("features: truncated feature batch");
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength))) as Header;
  let at = align4(8 + headerLength);
  // Copies: aligned arrays that own their memory.
  const take = (length: number): Uint8Array => {
    if (at + length > bytes.byteLength) throw new Error("features: truncated feature batch");
    const part = bytes.slice(at, at + length);
    at += align4(length);
    return part;
  };
  const features = header.images.map(({ imageIndex, count, descriptorBytes }) => ({
    imageIndex,
    count,
    xy: new Float32Array(take(8 * count).buffer),
    scale: new Float32Array(take(4 * count).buffer),
    angle: new Float32Array(take(4 * count).buffer),
    descriptors: take(descriptorBytes * count),
    descriptorBytes,
    rgb: take(3 * count),
  }));
  return { features, perImage: header.perImage, warnings: header.warnings };
}
