/**
 * @module LAS 1.4 (ASPRS LAS Specification 1.4 R15, 2019) of the dense point cloud, point data
 * record format 7: X Y Z as int32 scaled by a per-axis factor plus an offset, returns, flags,
 * GPS time and 16-bit RGB, 36 bytes per point; a 375-byte header, and for a georeferenced
 * model one VLR with the coordinate system as OGC WKT (LASF_Projection, record 2112), the
 * coordinates then being the system's own (model coordinates plus the georeference's offset).
 *
 * CONTRIBUTOR NOTES: the spec asks that the legacy (uint32) point counts be zero for formats
 * 6-10; we fill them whenever the count fits in uint32 because widely used readers
 * (loaders.gl's LAS loaders, older LASlib builds) read only the legacy count. The extended
 * uint64 counts are always set.
 */
import type { PointCloud } from "../../scene/index.js";
import { joinChunks, recordsPerChunk } from "./chunks.js";

export const LAS_HEADER_BYTES = 375;
export const LAS_RECORD_BYTES = 36;
const POINT_FORMAT = 7;
/** Largest |int32| we let a quantised coordinate reach (a little margin under 2³¹−1). */
const INT32_LIMIT = 2_000_000_000;

export interface LasQuantisation {
  scale: number;
  offset: [number, number, number];
}

/** A model in a coordinate system's metres minus `offset`, and that system as WKT. */
export interface LasGeoreference {
  offset: [number, number, number];
  wkt: string;
}

const VLR_HEADER_BYTES = 54;
const WKT_RECORD_ID = 2112;

/** The WKT VLR (LAS 1.4 §2.5, "OGC Coordinate System WKT Record"): null-terminated WKT. */
function wktVlr(wkt: string): Uint8Array {
  const text = new TextEncoder().encode(wkt);
  const out = new Uint8Array(VLR_HEADER_BYTES + text.length + 1);
  const view = new DataView(out.buffer);
  writeAscii(out, 2, "LASF_Projection", 16);
  view.setUint16(18, WKT_RECORD_ID, true);
  view.setUint16(20, text.length + 1, true);
  writeAscii(out, 22, "OGC WKT coordinate system", 32);
  out.set(text, VLR_HEADER_BYTES);
  return out;
}

/**
 * A power-of-ten scale no coarser than a millimetre (0.001 model units) and no coarser than
 * 1e-6 of the extent (model units are arbitrary without a reference), made coarser only if a
 * coordinate would not fit in int32. Offsets are the bounding-box centre.
 */
export function chooseLasQuantisation(min: ArrayLike<number>, max: ArrayLike<number>): LasQuantisation {
  const offset: [number, number, number] = [0, 0, 0];
  let extent = 0;
  let halfExtent = 0;
  for (let a = 0; a < 3; a++) {
    offset[a] = (min[a] + max[a]) / 2;
    extent = Math.max(extent, max[a] - min[a]);
    halfExtent = Math.max(halfExtent, (max[a] - min[a]) / 2);
  }
  const target = extent > 0 ? Math.min(1e-3, extent * 1e-6) : 1e-3;
  let exponent = Math.floor(Math.log10(target));
  while (halfExtent / 10 ** exponent > INT32_LIMIT) exponent++;
  return { scale: 10 ** exponent, offset };
}

function bounds(cloud: PointCloud): { min: number[]; max: number[] } {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < cloud.count; i++) {
    for (let a = 0; a < 3; a++) {
      const v = cloud.positions[3 * i + a];
      if (v < min[a]) min[a] = v;
      if (v > max[a]) max[a] = v;
    }
  }
  if (cloud.count === 0) return { min: [0, 0, 0], max: [0, 0, 0] };
  return { min, max };
}

function writeAscii(out: Uint8Array, at: number, text: string, width: number): void {
  const bytes = new TextEncoder().encode(text).subarray(0, width);
  out.set(bytes, at);
}

function writeHeader(out: Uint8Array, count: number, q: LasQuantisation, qMin: number[], qMax: number[], vlrBytes: number): void {
  const view = new DataView(out.buffer, out.byteOffset, LAS_HEADER_BYTES);
  writeAscii(out, 0, "LASF", 4);
  // Global encoding bit 4: coordinate system as WKT, mandatory for point formats 6-10.
  view.setUint16(6, 1 << 4, true);
  out[24] = 1;
  out[25] = 4;
  writeAscii(out, 26, "OTHER", 32);
  writeAscii(out, 58, "photogrammetry-service", 32);
  const now = new Date();
  const dayOfYear = Math.floor((Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - Date.UTC(now.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
  view.setUint16(90, dayOfYear, true);
  view.setUint16(92, now.getUTCFullYear(), true);
  view.setUint16(94, LAS_HEADER_BYTES, true);
  view.setUint32(96, LAS_HEADER_BYTES + vlrBytes, true); // offset to point data, after the VLRs
  view.setUint32(100, vlrBytes > 0 ? 1 : 0, true);
  out[104] = POINT_FORMAT;
  view.setUint16(105, LAS_RECORD_BYTES, true);
  const legacy = count <= 0xffffffff ? count : 0;
  view.setUint32(107, legacy, true);
  view.setUint32(111, legacy, true); // legacy count of first returns; every point is a first (only) return
  for (let a = 0; a < 3; a++) {
    view.setFloat64(131 + 8 * a, q.scale, true);
    view.setFloat64(155 + 8 * a, q.offset[a], true);
    view.setFloat64(179 + 16 * a, qMax[a], true);
    view.setFloat64(187 + 16 * a, qMin[a], true);
  }
  view.setBigUint64(227, 0n, true); // no waveform data
  view.setBigUint64(235, 0n, true); // no EVLRs
  view.setUint32(243, 0, true);
  view.setBigUint64(247, BigInt(count), true);
  view.setBigUint64(255, BigInt(count), true); // extended count of first returns
}

/**
 * Bounds of the stored (quantised) coordinates, so the header and the records agree to the bit.
 * Quantising is monotonic (correctly rounded subtraction and division, then rounding), so the
 * extreme stored values are those of the extreme coordinates: no second pass over the points.
 */
function quantisedBounds(min: number[], max: number[], q: LasQuantisation, count: number): { qMin: number[]; qMax: number[] } {
  if (count === 0) return { qMin: [0, 0, 0], qMax: [0, 0, 0] };
  const back = (value: number, a: number): number => q.offset[a] + Math.round((value - q.offset[a]) / q.scale) * q.scale;
  return { qMin: min.map(back), qMax: max.map(back) };
}

/** The point records of points [first, end) in one buffer. */
function lasRecords(cloud: PointCloud, q: LasQuantisation, first: number, end: number): Uint8Array {
  const out = new Uint8Array(LAS_RECORD_BYTES * (end - first));
  const view = new DataView(out.buffer);
  for (let i = first; i < end; i++) {
    const at = (i - first) * LAS_RECORD_BYTES;
    for (let a = 0; a < 3; a++) view.setInt32(at + 4 * a, Math.round((cloud.positions[3 * i + a] - q.offset[a]) / q.scale), true);
    const r = cloud.colors[3 * i], g = cloud.colors[3 * i + 1], b = cloud.colors[3 * i + 2];
    // Intensity: Rec. 601 luma of the colour, scaled to 16 bits, for viewers that shade by it.
    view.setUint16(at + 12, Math.round((0.299 * r + 0.587 * g + 0.114 * b) * 257), true);
    out[at + 14] = 0x11; // return 1 of 1
    // Bytes 15-21 (flags, classification 0 = never classified, user data, scan angle, source id) stay 0.
    view.setFloat64(at + 22, 0, true);
    // 8-bit colour to the 16-bit range: 255 · 257 = 65535.
    view.setUint16(at + 30, r * 257, true);
    view.setUint16(at + 32, g * 257, true);
    view.setUint16(at + 34, b * 257, true);
  }
  return out;
}

/** The LAS as chunks: the header (one pass over the points for its bounds), then the records a chunk at a time. */
export function* lasChunks(cloud: PointCloud, georeference?: LasGeoreference, chunkRecords = recordsPerChunk(LAS_RECORD_BYTES)): Generator<Uint8Array> {
  const { min, max } = bounds(cloud);
  // Georeferenced coordinates are metres: millimetres, about a whole-metre centre.
  const q = georeference ? { scale: 1e-3, offset: min.map((m, a) => Math.round((m + max[a]) / 2)) as [number, number, number] } : chooseLasQuantisation(min, max);
  const { qMin, qMax } = quantisedBounds(min, max, q, cloud.count);
  const vlr = georeference ? wktVlr(georeference.wkt) : new Uint8Array(0);
  // The header states the system's coordinates: the records' offset (model units) plus the georeference's.
  const shift = georeference?.offset ?? [0, 0, 0];
  const header = new Uint8Array(LAS_HEADER_BYTES);
  writeHeader(header, cloud.count, { ...q, offset: q.offset.map((o, a) => o + shift[a]) as [number, number, number] }, qMin.map((v, a) => v + shift[a]), qMax.map((v, a) => v + shift[a]), vlr.length);
  yield header;
  if (vlr.length > 0) yield vlr;
  for (let first = 0; first < cloud.count; first += chunkRecords) yield lasRecords(cloud, q, first, Math.min(cloud.count, first + chunkRecords));
}

export function writeLas(cloud: PointCloud, georeference?: LasGeoreference): Uint8Array {
  return joinChunks(lasChunks(cloud, georeference));
}
