/** @module The downloadable formats (six model formats, two camera exports) and their media types. */
import { z } from "zod";

// colmap and transforms are the cameras, for splatting and NeRF tools.
export const FORMATS = ["obj", "ply", "gltf", "glb", "stl", "las", "colmap", "transforms"] as const;
export const Format = z.enum(FORMATS);
export type Format = z.infer<typeof Format>;

export const CONTENT_TYPES: Record<Format, string> = {
  // The OBJ download is a zip of model.obj, model.mtl and the texture pages (docs/API.md "What each format holds").
  obj: "application/zip",
  ply: "application/x-ply",
  gltf: "model/gltf+json",
  glb: "model/gltf-binary",
  stl: "model/stl",
  las: "application/vnd.las",
  // A zip of COLMAP's cameras.txt, images.txt and points3D.txt.
  colmap: "application/zip",
  transforms: "application/json",
};

export function isFormat(value: string): value is Format {
  return (FORMATS as readonly string[]).includes(value);
}

/**
 * File name of a format's download (`<base>.<ext>`; the OBJ bundle is `<base>-obj.zip`, the
 * COLMAP model `<base>-colmap.zip`, the nerfstudio file `<base>-transforms.json`), used both
 * for the compute's output files and the download's Content-Disposition.
 */
export function downloadFileName(base: string, format: Format): string {
  if (format === "obj" || format === "colmap") return `${base}-${format}.zip`;
  if (format === "transforms") return `${base}-transforms.json`;
  return `${base}.${format}`;
}
