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
 *   1950), exactly what `node:zlib` deflate writes. DEFLATE is most of a COG's writing time, so
 *   it runs on libuv's thread pool (zlib's asynchronous API), a row of tiles at a time, off the
 *   JavaScript thread and on as many cores as the pool has (UV_THREADPOOL_SIZE, default 4).
 */
import { deflate } from "node:zlib";

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

/** One row's byte planes for predictor 3 (scratch, grown to tileSize · samplesPerPixel · 4 bytes). */
let planes = new Uint8Array(0);

/**
 * A full tile (tileSize × tileSize pixels, row-major, interleaved samples) as the bytes to
 * deflate: predicted when `predict`, in a new buffer either way (the caller reuses its tile, and
 * the deflate of these bytes runs later on another thread).
 */
export function predictTile(tile: Uint8Array | Float32Array, tileSize: number, samplesPerPixel: number, predict: boolean): Uint8Array {
  const rowSamples = tileSize * samplesPerPixel;
  const bytes = new Uint8Array(tile.byteLength);
  if (!predict) {
    bytes.set(new Uint8Array(tile.buffer, tile.byteOffset, tile.byteLength));
  } else if (tile instanceof Uint8Array) {
    bytes.set(tile);
    differenceUint8Rows(bytes, rowSamples, samplesPerPixel);
  } else {
    if (planes.length < 4 * rowSamples) planes = new Uint8Array(4 * rowSamples);
    floatingPointPredict(tile, rowSamples, samplesPerPixel, bytes, planes);
  }
  return bytes;
}

/** DEFLATE (zlib stream) of `bytes` at `level` (0–9), on libuv's thread pool. */
export function deflateTile(bytes: Uint8Array, level: number): Promise<Buffer> {
  return new Promise((resolve, reject) => deflate(bytes, { level }, (error, result) => (error ? reject(error) : resolve(result))));
}
