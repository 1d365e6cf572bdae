/**
 * @module Export stage: writes the reconstruction in the downloadable formats of docs/API.md,
 * all in the model's own frame (right-handed, +Y up, model units), to `<outDir>/<baseName>.<ext>`
 * (`<baseName>-obj.zip` for the OBJ bundle).
 *
 * obj is a zip (model.obj, model.mtl, the texture pages); glb, gltf and obj carry the photo
 * texture when the texture stage made one. colmap (a zip of COLMAP's text model) and
 * transforms (nerfstudio / instant-ngp transforms.json) hold the cameras, in the same frame.
 *
 * Without a mesh (sparse-only jobs) glb/gltf hold the points as a POINTS primitive, ply/las the
 * cloud as always, and obj/stl — surface formats with nothing to hold — are not written (the
 * report's warnings say so).
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { downloadFileName, type Format } from "../../../shared/formats.js";
import type { ImageRef, Mesh, PointCloud, RegisteredView, SparsePoints, StageReport, TexturedMesh } from "../../scene/index.js";
import { writeColmapZip } from "./colmap.js";
import { writeTransformsJson } from "./transforms.js";
import { buildGltfDocument, glbChunks, gltfChunks } from "./gltf.js";
import { writeChunks } from "./chunks.js";
import { lasChunks } from "./las.js";
import { objZipChunks } from "./obj.js";
import { plyChunks } from "./ply.js";
import { stlChunks } from "./stl.js";

export { buildGltfDocument, glbChunks, gltfChunks, writeGlb, writeGltf } from "./gltf.js";
export { writeLas, lasChunks, chooseLasQuantisation, LAS_HEADER_BYTES, LAS_RECORD_BYTES } from "./las.js";
export { writeObj, objChunks, writeMtl, writeObjZip, objZipChunks } from "./obj.js";
export { srgbToLinear, linearToSrgb, linearColours } from "./colour-space.js";
export { writePly, plyChunks } from "./ply.js";
export { writeStl, stlChunks } from "./stl.js";
export { joinChunks, joinChunksAsync, writeChunks, CHUNK_BYTES } from "./chunks.js";
export { cameraNodePose, verticalFov } from "./camera-nodes.js";
export { writeColmapZip, projectPoint } from "./colmap.js";
export { writeTransformsJson, openGlCamToWorld } from "./transforms.js";

export const NAME = "export";

/**
 * A georeferenced model: its coordinates are a coordinate system's metres minus `offset`, Z up
 * (east, north, height for a projected system). LAS holds the system's own coordinates and its
 * WKT; glTF keeps the vertices and turns them upright at its root; the OBJ zip carries model.prj.
 */
export interface ExportGeoreference {
  /** "EPSG:<code>", or the WKT where no code fits. */
  crs: string;
  wkt: string;
  offset: [number, number, number];
}

export interface Options {
  formats: Format[];
  outDir: string;
  /** File name without extension; default "model". */
  baseName?: string;
  georeference?: ExportGeoreference;
}

export const DEFAULTS: Required<Pick<Options, "baseName">> = { baseName: "model" };

export interface Input {
  views: RegisteredView[];
  cloud: PointCloud;
  mesh: Mesh | null;
  /** The mesh with its photo texture atlas (glb, gltf and obj carry it). */
  textured?: TexturedMesh | null;
  images?: ImageRef[];
  /** SfM's sparse points with their observations (COLMAP's points3D.txt); none: an empty one. */
  sparse?: SparsePoints;
}

export interface ExportedFile {
  format: Format;
  path: string;
  bytes: number;
}

/** Formats that describe a surface and have nothing to hold without a mesh. */
const SURFACE_ONLY: ReadonlySet<Format> = new Set<Format>(["obj", "stl"]);

/**
 * A format's content: the model formats as chunks written as they are made (a 30-million-point
 * LAS is 1.1 GB, and whole it was the export's peak); colmap and transforms (cameras) whole.
 */
async function encode(format: Format, input: Input, georeference: ExportGeoreference | undefined): Promise<Iterable<Uint8Array> | AsyncIterable<Uint8Array> | Uint8Array | string> {
  const gltfInput = { ...input, ...(georeference ? { georeference: { crs: georeference.crs, offset: georeference.offset } } : {}) };
  const sidecars = georeference ? [{ name: "model.prj", text: georeference.wkt }, { name: "model_offset.xyz", text: `${georeference.offset.join(" ")}\n` }] : [];
  switch (format) {
    case "ply": return plyChunks(input.cloud);
    case "las": return lasChunks(input.cloud, georeference);
    case "obj": return objZipChunks(input.mesh as Mesh, input.textured ?? null, undefined, sidecars);
    case "stl": return stlChunks(input.mesh as Mesh);
    case "glb": return glbChunks(await buildGltfDocument(gltfInput));
    case "gltf": return gltfChunks(await buildGltfDocument(gltfInput));
    case "colmap": return writeColmapZip(input.views, input.sparse);
    case "transforms": return writeTransformsJson(input.views);
    // ortho, dsm and report are the survey outputs, written by their own stage, not here.
    default: throw new Error(`export: ${format} is not a model format`);
  }
}

function isAsyncIterable(content: unknown): content is AsyncIterable<Uint8Array> {
  return typeof content === "object" && content !== null && Symbol.asyncIterator in content;
}

async function writeContent(filePath: string, content: Iterable<Uint8Array> | AsyncIterable<Uint8Array> | Uint8Array | string): Promise<number> {
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

export async function run(given: Input, options: Options): Promise<{ files: ExportedFile[]; report: StageReport }> {
  const started = performance.now();
  const baseName = options.baseName ?? DEFAULTS.baseName;
  const warnings: string[] = [];
  // A mesh without faces is exported like no mesh: an empty OBJ or STL would only mislead.
  const input: Input = given.mesh && given.mesh.faceCount === 0 ? { ...given, mesh: null } : given;
  if (given.mesh && given.mesh.faceCount === 0) warnings.push("the mesh is empty; exporting the points instead");
  const writing: Array<Promise<ExportedFile>> = [];
  const timings: Record<string, number> = {};
  await mkdir(options.outDir, { recursive: true });
  for (const format of new Set(options.formats)) {
    if (input.mesh === null && SURFACE_ONLY.has(format)) {
      warnings.push(`${format} not written: no mesh (sparse-only result); glb, gltf, ply and las hold the points`);
      continue;
    }
    const formatStarted = performance.now();
    const content = await encode(format, input, options.georeference);
    const filePath = path.join(options.outDir, downloadFileName(baseName, format));
    const written = writeContent(filePath, content).then((bytes) => {
      timings[`ms_${format}`] = Math.round(performance.now() - formatStarted);
      return { format, path: filePath, bytes };
    });
    written.catch(() => undefined);
    writing.push(written);
    // An asynchronous writer (the OBJ zip, deflated on libuv's thread pool) goes on while the
    // formats after it are encoded on this thread; its ms_ counts until its last byte.
    if (!isAsyncIterable(content)) await written;
  }
  const files = await Promise.all(writing);
  const counts: Record<string, number> = {
    files: files.length,
    bytes: files.reduce((sum, f) => sum + f.bytes, 0),
    points: input.cloud.count,
    faces: input.mesh?.faceCount ?? 0,
    cameras: input.views.length,
  };
  for (const f of files) counts[`bytes_${f.format}`] = f.bytes;
  Object.assign(counts, timings);
  return { files, report: { stage: NAME, wallMs: performance.now() - started, counts, warnings } };
}
