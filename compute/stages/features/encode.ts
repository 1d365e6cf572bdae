/**
 * @module Features as bytes, for a batch detected on another container (compute/service),
 * framed by util/framed.ts: a JSON header (per image: index, count, descriptor bytes, and the
 * batch's report lines), then each image's arrays raw, each padded to 4 bytes.
 */
import type { ImageFeatures } from "../../scene/index.js";
import { decodeFramed, encodeFramed } from "../../util/framed.js";

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

/** Arrays of one image in file order, as bytes. */
function arraysOf(f: ImageFeatures): Uint8Array[] {
  const bytes = (a: Float32Array | Uint8Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  return [bytes(f.xy), bytes(f.scale), bytes(f.angle), f.descriptors, f.rgb];
}

export function encodeFeatureBatch(batch: FeatureBatch): Uint8Array {
  const header: Header = { images: batch.features.map((f) => ({ imageIndex: f.imageIndex, count: f.count, descriptorBytes: f.descriptorBytes })), perImage: batch.perImage, warnings: batch.warnings };
  return encodeFramed(MAGIC, header, batch.features.flatMap(arraysOf), 4);
}

export function decodeFeatureBatch(bytes: Uint8Array): FeatureBatch {
  const { header, take } = decodeFramed<Header>(bytes, MAGIC, 4, "features", "feature batch");
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
