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
import { mkdir } from "node:fs/promises";
import type { Format } from "../../../shared/formats.js";
import type { ImageRef, Mesh, PointCloud, RegisteredView, SparsePoints, StageReport, TexturedMesh } from "../../scene/index.js";
import { CLOUD_FORMATS, encodeCloudFormat, writeFormats, type Content, type ExportedFile, type WrittenFormats } from "./cloud-formats.js";
import { buildGltfDocument, glbChunks, gltfChunks } from "./gltf.js";
import { objZipChunks } from "./obj.js";
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
export { CLOUD_FORMATS, writeCloudFormats, type CloudExportTask, type ExportedFile, type WrittenFormats } from "./cloud-formats.js";

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
  /** Formats written already (the pipeline writes the cloud's during the mesh stage): not written again, listed in their place. */
  writtenAhead?: WrittenFormats;
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

/** Formats that describe a surface and have nothing to hold without a mesh. */
const SURFACE_ONLY: ReadonlySet<Format> = new Set<Format>(["obj", "stl"]);

/**
 * A format's content: the model formats as chunks written as they are made (a 30-million-point
 * LAS is 1.1 GB, and whole it was the export's peak); colmap and transforms (cameras) whole.
 */
async function encode(format: Format, input: Input, georeference: ExportGeoreference | undefined): Promise<Content> {
  if (CLOUD_FORMATS.has(format)) return encodeCloudFormat(format, input, georeference);
  const gltfInput = { ...input, ...(georeference ? { georeference: { crs: georeference.crs, offset: georeference.offset } } : {}) };
  const sidecars = georeference ? [{ name: "model.prj", text: georeference.wkt }, { name: "model_offset.xyz", text: `${georeference.offset.join(" ")}\n` }] : [];
  switch (format) {
    case "obj": return objZipChunks(input.mesh as Mesh, input.textured ?? null, undefined, sidecars);
    case "stl": return stlChunks(input.mesh as Mesh);
    case "glb": return glbChunks(await buildGltfDocument(gltfInput));
    case "gltf": return gltfChunks(await buildGltfDocument(gltfInput));
    // ortho, dsm and report are the survey outputs, written by their own stage, not here.
    default: throw new Error(`export: ${format} is not a model format`);
  }
}

export async function run(given: Input, options: Options): Promise<{ files: ExportedFile[]; report: StageReport }> {
  const started = performance.now();
  const baseName = options.baseName ?? DEFAULTS.baseName;
  const warnings: string[] = [];
  // A mesh without faces is exported like no mesh: an empty OBJ or STL would only mislead.
  const input: Input = given.mesh && given.mesh.faceCount === 0 ? { ...given, mesh: null } : given;
  if (given.mesh && given.mesh.faceCount === 0) warnings.push("the mesh is empty; exporting the points instead");
  await mkdir(options.outDir, { recursive: true });
  const ahead = options.writtenAhead ?? { files: [], ms: {} };
  const done = new Set(ahead.files.map((file) => file.format));
  const formats: Format[] = [];
  for (const format of new Set(options.formats)) {
    if (input.mesh === null && SURFACE_ONLY.has(format)) {
      warnings.push(`${format} not written: no mesh (sparse-only result); glb, gltf, ply and las hold the points`);
      continue;
    }
    formats.push(format);
  }
  const written = await writeFormats(formats.filter((format) => !done.has(format)), (format) => encode(format, input, options.georeference), options.outDir, baseName);
  const byFormat = new Map([...ahead.files, ...written.files].map((file) => [file.format, file]));
  const files = formats.flatMap((format) => byFormat.get(format) ?? []);
  const counts: Record<string, number> = {
    files: files.length,
    bytes: files.reduce((sum, f) => sum + f.bytes, 0),
    points: input.cloud.count,
    faces: input.mesh?.faceCount ?? 0,
    cameras: input.views.length,
  };
  for (const f of files) counts[`bytes_${f.format}`] = f.bytes;
  for (const [format, ms] of Object.entries({ ...ahead.ms, ...written.ms })) counts[`ms_${format}`] = ms;
  if (ahead.files.length > 0) counts.formatsWrittenAhead = ahead.files.length;
  return { files, report: { stage: NAME, wallMs: performance.now() - started, counts, warnings } };
}
