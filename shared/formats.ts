/** @module The six downloadable model formats and their media types. */
import { z } from "zod";

export const FORMATS = ["obj", "ply", "gltf", "glb", "stl", "las"] as const;
export const Format = z.enum(FORMATS);
export type Format = z.infer<typeof Format>;

export const CONTENT_TYPES: Record<Format, string> = {
  // The OBJ download is a zip of model.obj, model.mtl and the texture pages (API.md).
  obj: "application/zip",
  ply: "application/x-ply",
  gltf: "model/gltf+json",
  glb: "model/gltf-binary",
  stl: "model/stl",
  las: "application/vnd.las",
};

export function isFormat(value: string): value is Format {
  return (FORMATS as readonly string[]).includes(value);
}

/**
 * File name of a format's download (`<base>.<ext>`; the OBJ bundle is `<base>-obj.zip`), used
 * both for the compute's output files and the download's Content-Disposition.
 */
export function downloadFileName(base: string, format: Format): string {
  return format === "obj" ? `${base}-obj.zip` : `${base}.${format}`;
}
