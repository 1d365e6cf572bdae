/**
 * @module Judges an input's kind from its first bytes, never from its name or declared type,
 * and reads image dimensions from JPEG/PNG headers for the cost estimate and the control-point
 * marks (which are in pixels of the photo as displayed, so EXIF orientation counts).
 */
import type { InputKind } from "../../shared/jobs.js";

/** Enough bytes for every signature below (an `ftyp` box with a few compatible brands). */
export const SNIFF_BYTES = 64;

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** ISO/IEC 23008-12 (HEIF) brands of HEVC-coded images; `mif1`/`msf1` alone may be AVIF. */
const HEIC_BRANDS = new Set(["heic", "heix", "hevc", "hevx", "heim", "heis"]);
const HEIF_GENERIC_BRANDS = new Set(["mif1", "msf1"]);
/** ISO/IEC 14496-12/-14 brands used by MP4 video files. */
const MP4_BRANDS = new Set([
  "isom", "iso2", "iso3", "iso4", "iso5", "iso6", "iso7", "iso8", "iso9",
  "mp41", "mp42", "mp71", "avc1", "dash", "M4V ", "M4VH", "M4VP", "mmp4", "f4v ", "3gp4", "3gp5", "3gp6", "3g2a",
]);
/** iTunes audio majors: MP4 containers that hold no picture, though they list `mp42`/`isom`. */
const AUDIO_MAJOR_BRANDS = new Set(["M4A ", "M4B ", "M4P "]);
/** QuickTime files without `ftyp` open with one of these atoms. */
const MOV_LEADING_ATOMS = new Set(["moov", "mdat", "wide", "free", "skip", "pnot"]);

export function isVideo(kind: InputKind): boolean {
  return kind === "mp4" || kind === "mov";
}

/** The kind of a file from its first bytes (at most SNIFF_BYTES needed), or undefined. */
export function sniffKind(head: Uint8Array): InputKind | undefined {
  // JPEG: SOI (FF D8) then the first marker's FF; a bare SOI is not enough to be an image.
  if (head.length >= 4 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff && head[3]! >= 0xc0) return "jpeg";
  if (head.length >= 16 && PNG_SIGNATURE.every((b, i) => head[i] === b)) return "png";
  if (head.length < 12) return undefined;
  const boxType = ascii(head, 4, 8);
  if (boxType === "ftyp") return sniffFtyp(head);
  const boxSize = readU32(head, 0);
  // A leading QuickTime atom: plausible size (8+ bytes, or 0/1 for "to end"/64-bit size).
  if (MOV_LEADING_ATOMS.has(boxType) && (boxSize >= 8 || boxSize <= 1)) return "mov";
  return undefined;
}

function sniffFtyp(head: Uint8Array): InputKind | undefined {
  const boxSize = readU32(head, 0);
  if (boxSize < 16) return undefined;
  const major = ascii(head, 8, 12);
  const compatible: string[] = [];
  for (let at = 16; at + 4 <= Math.min(boxSize, head.length); at += 4) compatible.push(ascii(head, at, at + 4));
  const brands = [major, ...compatible];
  if (brands.some((b) => HEIC_BRANDS.has(b))) return "heic";
  // A generic HEIF brand with no HEVC brand is most likely AVIF, which the pipeline cannot decode.
  if (HEIF_GENERIC_BRANDS.has(major) || AUDIO_MAJOR_BRANDS.has(major)) return undefined;
  if (major === "qt  ") return "mov";
  if (MP4_BRANDS.has(major)) return "mp4";
  if (compatible.includes("qt  ")) return "mov";
  if (compatible.some((b) => MP4_BRANDS.has(b))) return "mp4";
  return undefined;
}

export interface ImageSize {
  width: number;
  height: number;
}

/** PNG IHDR is always the first chunk: width and height at bytes 16..24. */
export function pngSize(head: Uint8Array): ImageSize | undefined {
  if (head.length < 24 || ascii(head, 12, 16) !== "IHDR") return undefined;
  return { width: readU32(head, 16), height: readU32(head, 20) };
}

/**
 * Walks JPEG marker segments (ITU-T T.81 Annex B) to the first SOFn frame header and reads
 * its height and width. `head` is a prefix of the file; undefined when SOF is beyond it.
 */
export function jpegSize(head: Uint8Array): ImageSize | undefined {
  let at = 2;
  while (at + 9 <= head.length) {
    if (head[at] !== 0xff) return undefined;
    const marker = head[at + 1]!;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: readU16(head, at + 5), width: readU16(head, at + 7) };
    }
    if (marker === 0xd9 || marker === 0xda) return undefined; // EOI / start of scan before SOF
    at += 2 + readU16(head, at + 2);
  }
  return undefined;
}

/**
 * The JPEG's size as a viewer displays it: EXIF orientations 5–8 (a quarter turn, CIPA DC-008
 * tag 0x0112) swap width and height. Undefined when SOF is beyond `head`.
 */
export function jpegDisplayedSize(head: Uint8Array): ImageSize | undefined {
  const size = jpegSize(head);
  if (!size) return undefined;
  const orientation = jpegOrientation(head) ?? 1;
  return orientation >= 5 && orientation <= 8 ? { width: size.height, height: size.width } : size;
}

/** EXIF orientation (1–8) from the first APP1 "Exif" segment's IFD0, or undefined. */
export function jpegOrientation(head: Uint8Array): number | undefined {
  let at = 2;
  while (at + 4 <= head.length && head[at] === 0xff) {
    const marker = head[at + 1]!;
    if (marker === 0xda || marker === 0xd9) return undefined;
    const length = readU16(head, at + 2);
    if (marker === 0xe1 && at + 10 <= head.length && ascii(head, at + 4, at + 10) === "Exif\0\0") {
      return tiffOrientation(head.subarray(at + 10, Math.min(head.length, at + 2 + length)));
    }
    at += 2 + length;
  }
  return undefined;
}

/** Tag 0x0112 of IFD0 in a TIFF structure (EXIF's payload), either byte order. */
function tiffOrientation(tiff: Uint8Array): number | undefined {
  if (tiff.length < 8) return undefined;
  const little = tiff[0] === 0x49 && tiff[1] === 0x49;
  if (!little && !(tiff[0] === 0x4d && tiff[1] === 0x4d)) return undefined;
  const u16 = (at: number) => (little ? tiff[at]! + (tiff[at + 1]! << 8) : readU16(tiff, at));
  const u32 = (at: number) => (little ? (tiff[at]! + (tiff[at + 1]! << 8) + (tiff[at + 2]! << 16) + ((tiff[at + 3]! << 24) >>> 0)) : readU32(tiff, at));
  const ifd = u32(4);
  if (ifd + 2 > tiff.length) return undefined;
  const count = u16(ifd);
  for (let i = 0; i < count; i += 1) {
    const entry = ifd + 2 + 12 * i;
    if (entry + 12 > tiff.length) return undefined;
    // A SHORT value sits in the first two bytes of the value field, in the file's byte order.
    if (u16(entry) === 0x0112) return u16(entry + 8);
  }
  return undefined;
}

function ascii(bytes: Uint8Array, from: number, to: number): string {
  return String.fromCharCode(...bytes.subarray(from, to));
}

function readU32(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) >>> 0) + (bytes[at + 1]! << 16) + (bytes[at + 2]! << 8) + bytes[at + 3]!;
}

function readU16(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 8) + bytes[at + 1]!;
}
