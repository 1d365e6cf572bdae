/**
 * @module Texture pages as JPEG files, encoded once per page for all the formats that carry
 * them (glb, gltf, the OBJ zip).
 */
import sharp from "sharp";
import type { TexturePage } from "../../scene/index.js";
import { jpegOptions } from "../../util/jpeg.js";

/** JPEG quality of the texture pages: photos re-encoded at 90 keep their detail at about a third of the bytes of 100. */
export const TEXTURE_JPEG_QUALITY = 90;

const encoded = new WeakMap<TexturePage, Promise<Uint8Array>>();

/** The page as a baseline JPEG (4:4:4: chroma subsampling would blur coloured edges at chart borders; util/jpeg.ts). */
export function pageJpeg(page: TexturePage): Promise<Uint8Array> {
  let jpeg = encoded.get(page);
  if (!jpeg) {
    const { width, height, rgb } = page;
    jpeg = sharp(Buffer.from(rgb.buffer, rgb.byteOffset, rgb.byteLength), { raw: { width, height, channels: 3 } })
      .jpeg(jpegOptions(TEXTURE_JPEG_QUALITY)).toBuffer().then((b) => new Uint8Array(b));
    encoded.set(page, jpeg);
  }
  return jpeg;
}
