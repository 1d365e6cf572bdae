/** @module The one place an R2 key is spelled. */
import type { Format } from "./formats.js";

/** Inputs keep the client's part order: `inputs/<id>/<0000>-<safe name>`. */
export function inputKey(reconstructionId: string, index: number, fileName: string): string {
  return `inputs/${reconstructionId}/${String(index).padStart(4, "0")}-${safeName(fileName)}`;
}

export function inputPrefix(reconstructionId: string): string {
  return `inputs/${reconstructionId}/`;
}

export function outputKey(reconstructionId: string, format: Format): string {
  return `outputs/${reconstructionId}/model.${format}`;
}

export function reportKey(reconstructionId: string): string {
  return `outputs/${reconstructionId}/report.json`;
}

export function outputPrefix(reconstructionId: string): string {
  return `outputs/${reconstructionId}/`;
}

/** Keeps keys printable and bounded; the original name travels in the job message. */
export function safeName(fileName: string): string {
  const cleaned = fileName.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^\.+/, "_");
  return cleaned.slice(-120) || "file";
}

/** A tus upload's object while it is being written and until a reconstruction claims it. */
export function uploadDataKey(uploadId: string): string {
  return `uploads/${uploadId}/data`;
}

/** The bytes after the last full R2 part, kept until the next PATCH fills a part (`generation` never repeats). */
export function uploadTailKey(uploadId: string, generation: number): string {
  return `uploads/${uploadId}/tail-${generation}`;
}

export function uploadPrefix(uploadId: string): string {
  return `uploads/${uploadId}/`;
}

/**
 * Intermediate files of a job attempt shared between compute containers (task inputs and
 * results): `work/<id>/a<attempt>/<name>`; `name` may hold `/`. Deleted when the job ends.
 */
export function workKey(reconstructionId: string, attempt: number, name: string): string {
  return `work/${reconstructionId}/a${attempt}/${name}`;
}

export function workPrefix(reconstructionId: string): string {
  return `work/${reconstructionId}/`;
}
