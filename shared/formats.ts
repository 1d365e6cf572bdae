/**
 * @module The downloadable formats (six model formats, two camera exports, and the survey outputs
 * of a georeferenced job) and their media types.
 */
import { z } from "zod";

// colmap and transforms are the cameras, for splatting and NeRF tools.
export const MODEL_FORMATS = ["obj", "ply", "gltf", "glb", "stl", "las", "colmap", "transforms"] as const;
export type ModelFormat = (typeof MODEL_FORMATS)[number];
/** Every format a completed job may list: the model formats, then the survey outputs compute writes when it can (orthophoto, DSM, accuracy report). */
export const FORMATS = [...MODEL_FORMATS, "ortho", "dsm", "report"] as const;
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
  // Cloud Optimized GeoTIFFs: a COG is a plain TIFF to every reader, so it has no media type of its own.
  ortho: "image/tiff",
  dsm: "image/tiff",
  report: "text/html",
};

export function isFormat(value: string): value is Format {
  return (FORMATS as readonly string[]).includes(value);
}

/**
 * File name of a format's download (`<base>.<ext>`; the OBJ bundle is `<base>-obj.zip`, the
 * COLMAP model `<base>-colmap.zip`, the nerfstudio file `<base>-transforms.json`, the survey
 * outputs `<base>-ortho.tif`, `<base>-dsm.tif`, `<base>-report.html`), used both for the
 * compute's output files and the download's Content-Disposition.
 */
export function downloadFileName(base: string, format: Format): string {
  if (format === "obj" || format === "colmap") return `${base}-${format}.zip`;
  if (format === "transforms") return `${base}-transforms.json`;
  if (format === "ortho" || format === "dsm") return `${base}-${format}.tif`;
  if (format === "report") return `${base}-report.html`;
  return `${base}.${format}`;
}
