/**
 * @module Decide what an input file is from its first bytes, never from its name (a PDF
 * renamed `.jpg` must not reach the JPEG decoder, and a phone's `.HEIC` may really be a JPEG).
 */
import { open } from "node:fs/promises";

export type InputKind = "jpeg" | "png" | "heic" | "video" | "unknown";

export interface Sniffed {
  kind: InputKind;
  /** Human-readable description for skip reasons (e.g. "PDF document"). */
  description: string;
}

/** ISO-BMFF major brands of HEIF stills (libheif issue #83; file-type's table). */
const HEIF_BRANDS = new Set(["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]);
/** ISO-BMFF / QuickTime brands of the video containers docs/API.md accepts (MP4, MOV). */
const VIDEO_BRANDS = new Set(["isom", "iso2", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "M4V ", "M4VP", "qt  ", "3gp4", "3gp5", "3g2a", "dash", "mmp4", "MSNV"]);
/** Old QuickTime files may start with one of these atoms instead of `ftyp`. */
const QUICKTIME_ATOMS = new Set(["moov", "mdat", "wide", "free", "skip", "pnot"]);

export async function sniffFile(path: string): Promise<Sniffed> {
  const handle = await open(path, "r");
  try {
    const head = Buffer.alloc(64);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return sniffBytes(head.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

export function sniffBytes(head: Uint8Array): Sniffed {
  const ascii = (from: number, to: number) => String.fromCharCode(...head.subarray(from, to));
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return { kind: "jpeg", description: "JPEG image" };
  if (head.length >= 8 && ascii(0, 8) === "\x89PNG\r\n\x1a\n") return { kind: "png", description: "PNG image" };
  if (head.length >= 12 && ascii(4, 8) === "ftyp") {
    const brand = ascii(8, 12);
    // A mif1 file may be AVIF: look for the avif compatible brand before calling it HEIC.
    const compatible = ascii(16, Math.min(head.length, 48));
    if (brand === "avif" || brand === "avis" || (brand === "mif1" && compatible.includes("avif"))) return { kind: "unknown", description: "AVIF image (not supported)" };
    if (HEIF_BRANDS.has(brand)) return { kind: "heic", description: "HEIC image" };
    if (VIDEO_BRANDS.has(brand)) return { kind: "video", description: brand === "qt  " ? "QuickTime video" : "MP4 video" };
    return { kind: "unknown", description: `ISO media file with unsupported brand "${brand.trim()}"` };
  }
  if (head.length >= 8 && QUICKTIME_ATOMS.has(ascii(4, 8))) return { kind: "video", description: "QuickTime video" };
  if (head.length >= 5 && ascii(0, 5) === "%PDF-") return { kind: "unknown", description: "PDF document" };
  if (head.length === 0) return { kind: "unknown", description: "empty file" };
  return { kind: "unknown", description: "unrecognised file type" };
}
