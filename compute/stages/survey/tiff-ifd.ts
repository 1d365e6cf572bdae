/**
 * @module One Image File Directory of a classic little-endian TIFF (TIFF 6.0, section 2 "TIFF
 * Structure"): a 2-byte entry count, 12-byte entries sorted by tag, the 4-byte offset of the
 * next IFD, then the values that do not fit in an entry's 4 bytes. The size of an IFD depends
 * only on its tags and value counts, so the COG writer lays every IFD out before it knows the
 * tile offsets and fills them in afterwards.
 */

/** TIFF 6.0 field types used here (section 2, "Types") and their byte sizes. */
export const TIFF_TYPE = { BYTE: 1, ASCII: 2, SHORT: 3, LONG: 4, DOUBLE: 12 } as const;
export type TiffType = (typeof TIFF_TYPE)[keyof typeof TIFF_TYPE];
const TYPE_BYTES: Record<TiffType, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 12: 8 };

/** Tags written by the COG writer: TIFF 6.0 baseline and extensions, GeoTIFF 1.1 (OGC 19-008), GDAL's private tags. */
export const TAG = {
  NewSubfileType: 254,
  ImageWidth: 256,
  ImageLength: 257,
  BitsPerSample: 258,
  Compression: 259,
  PhotometricInterpretation: 262,
  SamplesPerPixel: 277,
  PlanarConfiguration: 284,
  Predictor: 317,
  TileWidth: 322,
  TileLength: 323,
  TileOffsets: 324,
  TileByteCounts: 325,
  ExtraSamples: 338,
  SampleFormat: 339,
  ModelPixelScale: 33550,
  ModelTiepoint: 33922,
  GeoKeyDirectory: 34735,
  GeoDoubleParams: 34736,
  GeoAsciiParams: 34737,
  /** GDAL's nodata value as ASCII text (https://gdal.org/drivers/raster/gtiff.html, "Nodata value"). */
  GdalNodata: 42113,
} as const;

export interface IfdEntry {
  tag: number;
  type: TiffType;
  /** Numbers for SHORT, LONG and DOUBLE; a string (without its NUL) for ASCII. */
  values: ArrayLike<number> | string;
}

/** Number of values the entry holds (ASCII: bytes including the terminating NUL, TIFF 6.0 "ASCII"). */
function countOf(entry: IfdEntry): number {
  return typeof entry.values === "string" ? Buffer.byteLength(entry.values, "latin1") + 1 : entry.values.length;
}

function valueBytes(entry: IfdEntry): number {
  return countOf(entry) * TYPE_BYTES[entry.type];
}

/** Out-of-line values start on a word boundary (TIFF 6.0: "the Value Offset must be an even number"). */
function padded(bytes: number): number {
  return bytes + (bytes & 1);
}

/** Bytes the IFD takes with its out-of-line values. */
export function ifdByteLength(entries: readonly IfdEntry[]): number {
  let bytes = 2 + 12 * entries.length + 4;
  for (const entry of entries) if (valueBytes(entry) > 4) bytes += padded(valueBytes(entry));
  return bytes;
}

function writeValues(view: DataView, at: number, entry: IfdEntry): void {
  const { values } = entry;
  if (typeof values === "string") {
    for (let i = 0; i < values.length; i++) view.setUint8(at + i, values.charCodeAt(i) & 0xff);
    view.setUint8(at + values.length, 0);
    return;
  }
  for (let i = 0; i < values.length; i++) {
    switch (entry.type) {
      case TIFF_TYPE.BYTE: view.setUint8(at + i, values[i]); break;
      case TIFF_TYPE.SHORT: view.setUint16(at + 2 * i, values[i], true); break;
      case TIFF_TYPE.LONG: view.setUint32(at + 4 * i, values[i], true); break;
      case TIFF_TYPE.DOUBLE: view.setFloat64(at + 8 * i, values[i], true); break;
      default: throw new Error(`survey: TIFF type ${entry.type} has no numeric writer`);
    }
  }
}

/**
 * The IFD's bytes as they go at file offset `ifdOffset`, pointing to the next IFD at
 * `nextIfdOffset` (0: the last). Entries are sorted by tag here, as TIFF 6.0 requires.
 */
export function encodeIfd(entries: readonly IfdEntry[], ifdOffset: number, nextIfdOffset: number): Uint8Array {
  if (ifdOffset % 2 !== 0) throw new Error("survey: an IFD must begin on a word boundary");
  const sorted = [...entries].sort((a, b) => a.tag - b.tag);
  const out = new Uint8Array(ifdByteLength(sorted));
  const view = new DataView(out.buffer);
  view.setUint16(0, sorted.length, true);
  let extra = 2 + 12 * sorted.length + 4; // where the next out-of-line value goes, relative to the IFD
  sorted.forEach((entry, i) => {
    const at = 2 + 12 * i;
    view.setUint16(at, entry.tag, true);
    view.setUint16(at + 2, entry.type, true);
    view.setUint32(at + 4, countOf(entry), true);
    const bytes = valueBytes(entry);
    if (bytes <= 4) {
      writeValues(view, at + 8, entry); // left-justified in the value field (TIFF 6.0, "Value/Offset")
    } else {
      view.setUint32(at + 8, ifdOffset + extra, true);
      writeValues(view, extra, entry);
      extra += padded(bytes);
    }
  });
  view.setUint32(2 + 12 * sorted.length, nextIfdOffset, true);
  return out;
}
