/**
 * @module The export formats that hold only the cameras and the dense cloud (ply, las, colmap,
 * transforms), and the loop that writes formats one after another. The pipeline writes these four
 * on a thread of its own as soon as the dense stage is done, while the mesh stage runs at ~1.5
 * cores, rather than on the export stage's thread after the texture (docs/decisions.md, "The
 * cloud's formats are written during the mesh stage"). This module imports no glTF code, so that
 * such a thread loads little.
 */
import path from "node:path";
import { writeFile } from "node:fs/promises";
import { downloadFileName, type Format } from "../../../shared/formats.js";
import type { PointCloud, RegisteredView, SparsePoints } from "../../scene/index.js";
import { writeChunks } from "./chunks.js";
import { writeColmapZip } from "./colmap.js";
import { lasChunks, type LasGeoreference } from "./las.js";
import { plyChunks } from "./ply.js";
import { writeTransformsJson } from "./transforms.js";

/** The formats written from the cameras and the cloud alone. */
export const CLOUD_FORMATS: ReadonlySet<Format> = new Set<Format>(["ply", "las", "colmap", "transforms"]);

export interface CloudInput {
  views: RegisteredView[];
  cloud: PointCloud;
  /** SfM's sparse points with their observations (COLMAP's points3D.txt); none: an empty one. */
  sparse?: SparsePoints;
}

export interface ExportedFile {
  format: Format;
  path: string;
  bytes: number;
}

/** Files written, and each format's time from its encoding's start to its last byte (ms). */
export interface WrittenFormats {
  files: ExportedFile[];
  ms: Record<string, number>;
}

export type Content = Iterable<Uint8Array> | AsyncIterable<Uint8Array> | Uint8Array | string;

/** A cloud format's content: ply and las as chunks written as they are made, the cameras' files whole. */
export function encodeCloudFormat(format: Format, input: CloudInput, georeference: LasGeoreference | undefined): Content {
  switch (format) {
    case "ply": return plyChunks(input.cloud);
    case "las": return lasChunks(input.cloud, georeference);
    case "colmap": return writeColmapZip(input.views, input.sparse);
    case "transforms": return writeTransformsJson(input.views);
    default: throw new Error(`export: ${format} is not a format of the cloud and cameras alone`);
  }
}

function isAsyncIterable(content: unknown): content is AsyncIterable<Uint8Array> {
  return typeof content === "object" && content !== null && Symbol.asyncIterator in content;
}

async function writeContent(filePath: string, content: Content): Promise<number> {
  if (typeof content === "string") {
    await writeFile(filePath, content);
    return Buffer.byteLength(content);
  }
  if (content instanceof Uint8Array) {
    await writeFile(filePath, content);
    return content.byteLength;
  }
  return writeChunks(filePath, content);
}

/**
 * Writes `formats` in turn to `<outDir>/<baseName's download name>`. An asynchronous writer (the
 * OBJ zip, deflated on libuv's thread pool) goes on while the formats after it are encoded on this
 * thread; its time counts until its last byte.
 */
export async function writeFormats(formats: Iterable<Format>, encode: (format: Format) => Promise<Content> | Content, outDir: string, baseName: string): Promise<WrittenFormats> {
  const writing: Array<Promise<ExportedFile>> = [];
  const ms: Record<string, number> = {};
  for (const format of formats) {
    const formatStarted = performance.now();
    const content = await encode(format);
    const filePath = path.join(outDir, downloadFileName(baseName, format));
    const written = writeContent(filePath, content).then((bytes) => {
      ms[format] = Math.round(performance.now() - formatStarted);
      return { format, path: filePath, bytes };
    });
    written.catch(() => undefined);
    writing.push(written);
    if (!isAsyncIterable(content)) await written;
  }
  return { files: await Promise.all(writing), ms };
}

/** What a thread is asked to write ahead: the cloud formats among `formats`, to `outDir`. */
export interface CloudExportTask {
  input: CloudInput;
  formats: Format[];
  outDir: string;
  baseName: string;
  georeference?: LasGeoreference;
}

export async function writeCloudFormats(task: CloudExportTask): Promise<WrittenFormats> {
  const formats = task.formats.filter((format) => CLOUD_FORMATS.has(format));
  return writeFormats(formats, (format) => encodeCloudFormat(format, task.input, task.georeference), task.outDir, task.baseName);
}
