/** @module The six downloadable model formats and their media types. */
import { z } from "zod";

export const FORMATS = ["obj", "ply", "gltf", "glb", "stl", "las"] as const;
export const Format = z.enum(FORMATS);
export type Format = z.infer<typeof Format>;

export const CONTENT_TYPES: Record<Format, string> = {
  obj: "model/obj",
  ply: "application/x-ply",
  gltf: "model/gltf+json",
  glb: "model/gltf-binary",
  stl: "model/stl",
  las: "application/vnd.las",
};

export function isFormat(value: string): value is Format {
  return (FORMATS as readonly string[]).includes(value);
}
