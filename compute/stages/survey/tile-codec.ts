/**
 * @module One tile's bytes as stored: the horizontal predictor, then DEFLATE.
 *
 * - Predictor 2 (TIFF 6.0, section 14 "Differencing Predictor"): each sample minus the same
 *   sample of the pixel to its left, modulo 256, per row; used for uint8 samples.
 * - Predictor 3 (Adobe Photoshop TIFF Technical Note 3, "Floating-Point Predictor"): each row's
 *   float32 values split into byte planes, most significant byte first, then each byte minus the
 *   one `samplesPerPixel` bytes before it. As in libtiff's fpDiff, the planes are in big-endian
 *   order whatever the file's byte order, so readers undo it the same way on every host.
 * - Compression 8 (Adobe Deflate, TIFF Technical Note 2 / Supplement 2): a zlib stream (RFC
 *   1950), exactly what `node:zlib` deflateSync writes.
 */
import { deflateSync } from "node:zlib";

export type SampleKind = "uint8" | "float32";

/** Predictor 2 in place on uint8 rows of `rowSamples` samples with `stride` samples per pixel. */
export function differenceUint8Rows(tile: Uint8Array, rowSamples: number, stride: number): void {
  for (let row = 0; row < tile.length; row += rowSamples) {
    // Right to left, so each difference uses the original left neighbour.
    for (let i = row + rowSamples - 1; i >= row + stride; i--) tile[i] = (tile[i] - tile[i - stride]) & 0xff;
  }
}

/**
 * Predictor 3 of float32 rows of `rowSamples` samples (`stride` per pixel) into `out` (same byte
 * length as `tile`); `planes` is scratch of 4·rowSamples bytes.
 */
export function floatingPointPredict(tile: Float32Array, rowSamples: number, stride: number, out: Uint8Array, planes: Uint8Array): void {
  const bytes = new Uint8Array(tile.buffer, tile.byteOffset, tile.byteLength);
  const littleEndianHost = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  const rowBytes = 4 * rowSamples;
  for (let row = 0; row < tile.length / rowSamples; row++) {
    const base = row * rowBytes;
    // Plane p holds byte p of each value counted from the most significant.
    for (let i = 0; i < rowSamples; i++) {
      for (let b = 0; b < 4; b++) {
        const hostByte = littleEndianHost ? 3 - b : b;
        planes[b * rowSamples + i] = bytes[base + 4 * i + hostByte];
      }
    }
    for (let i = rowBytes - 1; i >= stride; i--) planes[i] = (planes[i] - planes[i - stride]) & 0xff;
    out.set(planes.subarray(0, rowBytes), base);
  }
}

/** Scratch for `encodeTile`, sized for one tile. */
export interface TileScratch {
  /** The predicted bytes of one tile (tileSize² · samplesPerPixel · bytes per sample). */
  predicted: Uint8Array;
  /** One row's byte planes for predictor 3 (tileSize · samplesPerPixel · 4). */
  planes: Uint8Array;
}

export function tileScratch(tileSize: number, samplesPerPixel: number, kind: SampleKind): TileScratch {
  const sampleBytes = kind === "uint8" ? 1 : 4;
  return { predicted: new Uint8Array(tileSize * tileSize * samplesPerPixel * sampleBytes), planes: new Uint8Array(tileSize * samplesPerPixel * 4) };
}

/**
 * A full tile (tileSize × tileSize pixels, row-major, interleaved samples) predicted (when
 * `predict`) and deflated at `level` (0–9). The tile's own array is left unchanged.
 */
export function encodeTile(tile: Uint8Array | Float32Array, tileSize: number, samplesPerPixel: number, predict: boolean, level: number, scratch: TileScratch): Buffer {
  const rowSamples = tileSize * samplesPerPixel;
  let bytes: Uint8Array;
  if (!predict) {
    bytes = new Uint8Array(tile.buffer, tile.byteOffset, tile.byteLength);
  } else if (tile instanceof Uint8Array) {
    scratch.predicted.set(tile);
    differenceUint8Rows(scratch.predicted, rowSamples, samplesPerPixel);
    bytes = scratch.predicted;
  } else {
    floatingPointPredict(tile, rowSamples, samplesPerPixel, scratch.predicted, scratch.planes);
    bytes = scratch.predicted;
  }
  return deflateSync(bytes, { level });
}
