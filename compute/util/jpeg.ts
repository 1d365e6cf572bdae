/**
 * @module The JPEG options every file the pipeline writes takes (ingested photos, video
 * keyframes, texture pages): 4:4:4, so coloured edges keep their sharpness, and the encoder's
 * standard Huffman tables.
 *
 * Why not sharp's default `optimiseCoding: true`: sharp's libvips is built on mozjpeg, where
 * optimised coding also selects mozjpeg's slowest compression profile. The decoded pixels are the
 * same to the bit either way (scratch `bench-out/tmp/jpegsame.mts`: a 3,072 × 2,048 photo of
 * Herz-Jesus-P8 at quality 95, and a 4,096² texture page at 90, every byte of the decode equal),
 * and the files are 2–4 % larger; the encode takes a tenth of the time: 329 → 38 ms for the photo,
 * 785–809 → 74–80 ms for the page, on one core. A job re-encodes every photo it ingests and each
 * of its texture pages, so that was 1–2 s of a 40-s job (docs/decisions.md, "JPEGs are written
 * with standard Huffman tables").
 */
import type { JpegOptions } from "sharp";

export function jpegOptions(quality: number): JpegOptions {
  return { quality, chromaSubsampling: "4:4:4", optimiseCoding: false };
}
