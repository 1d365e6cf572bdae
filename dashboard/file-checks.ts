/**
 * @module Checks a file before upload, as the server will (edge/uploads/sniff.ts judges by the
 * bytes, not the name): JPEG, PNG, HEIC images and MP4, MOV videos, each within its size limit,
 * and the whole selection within the per-request limits. The server checks again; this only
 * spares the user an upload that would be refused.
 */
export interface Limits {
  maxImage: number;
  maxVideo: number;
  maxRequest: number;
  maxFiles: number;
}

export interface CheckedFile {
  file: File;
  kind: "jpeg" | "png" | "heic" | "mp4" | "mov" | null;
  problem: string | null;
}

const HEIC_BRANDS = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"];

export function sniff(head: Uint8Array): CheckedFile["kind"] {
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "jpeg";
  if (head[0] === 0x89 && head[1] === 0x50 && head[2] === 0x4e && head[3] === 0x47) return "png";
  const ascii = (from: number, to: number) => String.fromCharCode(...head.subarray(from, to));
  if (ascii(4, 8) !== "ftyp") return null;
  const brand = ascii(8, 12);
  if (HEIC_BRANDS.includes(brand)) return "heic";
  if (brand === "qt  ") return "mov";
  return "mp4"; // isom, mp41, mp42, avc1, M4V, …: the ISO base media file family
}

const mib = (bytes: number) => `${Math.round(bytes / 1048576)} MiB`;

export async function checkFiles(files: File[], limits: Limits): Promise<CheckedFile[]> {
  const total = files.reduce((sum, f) => sum + f.size, 0);
  const checked = await Promise.all(
    files.map(async (file): Promise<CheckedFile> => {
      if (file.size === 0) return { file, kind: null, problem: "the file is empty" };
      const kind = sniff(new Uint8Array(await file.slice(0, 16).arrayBuffer()));
      if (!kind) return { file, kind, problem: "not a JPEG, PNG, HEIC, MP4 or MOV file" };
      const video = kind === "mp4" || kind === "mov";
      const limit = video ? limits.maxVideo : limits.maxImage;
      if (file.size > limit) return { file, kind, problem: `larger than the ${mib(limit)} limit for ${video ? "videos" : "images"}` };
      return { file, kind, problem: null };
    }),
  );
  if (files.length > limits.maxFiles) for (const c of checked) c.problem ??= `more than ${limits.maxFiles} files in one upload`;
  if (total > limits.maxRequest) for (const c of checked) c.problem ??= `all files together exceed ${mib(limits.maxRequest)}`;
  return checked;
}
