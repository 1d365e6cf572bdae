/**
 * @module glTF 2.0 document of the result, written as .glb or as one self-contained .gltf.
 *
 * A textured mesh is one primitive per texture page (POSITION, NORMAL, TEXCOORD_0, uint32
 * indices) whose material's baseColorTexture is the page as a JPEG, plus one primitive for the
 * faces no photo saw, coloured by COLOR_0. A mesh without texture is one primitive coloured by
 * COLOR_0. Without a mesh (sparse-only jobs): one POINTS primitive of the cloud. Either way
 * one perspective camera node per registered view (see camera-nodes.ts). Built with
 * glTF-Transform (Don McCurdy).
 *
 * Colours: COLOR_0 is linear by the glTF specification, so the sRGB colours of the pipeline
 * are converted (colour-space.ts); textures are sRGB by the specification and are the photos'
 * own pixels.
 *
 * Every material is KHR_materials_unlit: the colours are the photos', with the light of the
 * scene already in them, and a viewer that lit them again would darken every face turned
 * away from its default light and add highlights that were never there. Unlit is what
 * Sketchfab, RealityCapture and Metashape exports use for baked photo textures; a viewer
 * without the extension falls back to the material's PBR values (white, fully rough,
 * non-metallic), which still shows the texture.
 */
import { randomUUID } from "node:crypto";
import { Accessor, Document, Format, NodeIO, Primitive, TextureInfo } from "@gltf-transform/core";
import type { Material } from "@gltf-transform/core";
import { KHRMaterialsUnlit } from "@gltf-transform/extensions";
import type { Mesh, PointCloud, RegisteredView, TexturedMesh } from "../../scene/index.js";
import { joinChunks } from "./chunks.js";
import { cameraNodePose, verticalFov } from "./camera-nodes.js";
import { linearColours } from "./colour-space.js";
import { pageJpeg } from "./texture-jpeg.js";

export interface GltfInput {
  views: RegisteredView[];
  cloud: PointCloud;
  mesh: Mesh | null;
  /** The mesh with its photo texture; when present it is written instead of `mesh`. */
  textured?: TexturedMesh | null;
  /**
   * Coordinates are a coordinate system's metres minus an offset, Z up: the vertices keep them
   * (model coordinates plus offset are the system's), and one root node turns Z-up into glTF's
   * Y-up so viewers show the ground level. The system and offset go in the root's extras.
   */
  georeference?: { crs: string; offset: [number, number, number] };
}

/** −90° about x (x, y, z) → (x, z, −y): east, north, up to glTF's east, up, south. */
const Z_UP_TO_Y_UP: [number, number, number, number] = [-Math.SQRT1_2, 0, 0, Math.SQRT1_2];

/** Near plane as a fraction of the scene's bounding-box diagonal. */
const ZNEAR_FRACTION = 0.01;
/**
 * Far plane in scene diagonals: beyond everything the scene holds, seen from any of
 * its cameras. glTF-Transform's default far plane is 100 units whatever the scene, so a viewer
 * that uses the file's cameras clipped a scene over 100 of its units across, and one over
 * 10,000 units across had zfar below znear, which glTF forbids (zfar > znear).
 */
const ZFAR_DIAGONALS = 100;

/** Unit normals as glTF requires (validator checks |n| = 1); a zero normal becomes +Y. */
export function unitNormals(normals: Float32Array): Float32Array {
  const out = new Float32Array(normals.length);
  for (let i = 0; i < normals.length; i += 3) {
    const len = Math.hypot(normals[i], normals[i + 1], normals[i + 2]);
    if (len > 1e-12) {
      out[i] = normals[i] / len; out[i + 1] = normals[i + 1] / len; out[i + 2] = normals[i + 2] / len;
    } else {
      out[i + 1] = 1;
    }
  }
  return out;
}

/** Bounding-box diagonal of the geometry and camera centres; 1 for an empty scene. */
export function sceneScale(positions: Float32Array, views: RegisteredView[]): number {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  const grow = (x: number, y: number, z: number): void => {
    const p = [x, y, z];
    for (let a = 0; a < 3; a++) { min[a] = Math.min(min[a], p[a]); max[a] = Math.max(max[a], p[a]); }
  };
  for (let i = 0; i < positions.length; i += 3) grow(positions[i], positions[i + 1], positions[i + 2]);
  for (const view of views) grow(...cameraNodePose(view).translation);
  const diagonal = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
  return Number.isFinite(diagonal) && diagonal > 0 ? diagonal : 1;
}

type GltfBuffer = ReturnType<Document["createBuffer"]>;

function unlitMaterial(doc: Document, name: string): Material {
  const unlit = doc.createExtension(KHRMaterialsUnlit);
  return doc.createMaterial(name).setBaseColorFactor([1, 1, 1, 1]).setMetallicFactor(0).setRoughnessFactor(1).setDoubleSided(true)
    .setExtension("KHR_materials_unlit", unlit.createUnlit());
}

function vec3(doc: Document, buffer: GltfBuffer, name: string, array: Float32Array): Accessor {
  return doc.createAccessor(name).setType(Accessor.Type.VEC3).setArray(array).setBuffer(buffer);
}

function colourAccessor(doc: Document, buffer: GltfBuffer, srgb: Uint8Array): Accessor {
  return doc.createAccessor("color").setType(Accessor.Type.VEC3).setArray(linearColours(srgb)).setNormalized(true).setBuffer(buffer);
}

/** Faces (indices into the mesh) of one page, in mesh order. */
function pageIndices(textured: TexturedMesh, page: number): Uint32Array {
  let count = 0;
  for (const p of textured.facePage) if (p === page) count++;
  const out = new Uint32Array(3 * count);
  let at = 0;
  for (let f = 0; f < textured.facePage.length; f++) {
    if (textured.facePage[f] !== page) continue;
    out.set(textured.mesh.indices.subarray(3 * f, 3 * f + 3), at);
    at += 3;
  }
  return out;
}

async function addTexturedMesh(doc: Document, textured: TexturedMesh): Promise<ReturnType<Document["createNode"]> | null> {
  const { mesh } = textured;
  if (mesh.faceCount === 0) return null;
  const buffer = doc.createBuffer("buffer");
  // Views of the mesh's arrays, not copies: the writer copies each accessor into its buffer anyway.
  const position = vec3(doc, buffer, "position", mesh.positions.subarray(0, 3 * mesh.vertexCount));
  const normal = vec3(doc, buffer, "normal", unitNormals(mesh.normals.subarray(0, 3 * mesh.vertexCount)));
  const uv = doc.createAccessor("uv").setType(Accessor.Type.VEC2).setArray(textured.uvs.subarray(0, 2 * mesh.vertexCount)).setBuffer(buffer);
  const gltfMesh = doc.createMesh("mesh");
  // Every page's JPEG started at once (sharp encodes them on threads of its own), awaited in turn below.
  const encoding = textured.pages.map((page) => pageJpeg(page));
  for (const jpeg of encoding) jpeg.catch(() => undefined);
  for (let page = 0; page <= textured.pages.length; page++) {
    const indices = pageIndices(textured, page);
    if (indices.length === 0) continue;
    const primitive = doc.createPrimitive().setAttribute("POSITION", position).setAttribute("NORMAL", normal)
      .setIndices(doc.createAccessor(`indices ${page}`).setType(Accessor.Type.SCALAR).setArray(indices).setBuffer(buffer));
    if (page < textured.pages.length) {
      const jpeg = await encoding[page];
      const texture = doc.createTexture(`page ${page}`).setImage(jpeg).setMimeType("image/jpeg").setURI(`texture_${page}.jpg`);
      const material = unlitMaterial(doc, `photo texture ${page}`).setBaseColorTexture(texture);
      material.getBaseColorTextureInfo()!.setMinFilter(TextureInfo.MinFilter.LINEAR_MIPMAP_LINEAR).setMagFilter(TextureInfo.MagFilter.LINEAR)
        .setWrapS(TextureInfo.WrapMode.CLAMP_TO_EDGE).setWrapT(TextureInfo.WrapMode.CLAMP_TO_EDGE);
      primitive.setAttribute("TEXCOORD_0", uv).setMaterial(material);
    } else {
      primitive.setAttribute("COLOR_0", colourAccessor(doc, buffer, mesh.colors.subarray(0, 3 * mesh.vertexCount))).setMaterial(unlitMaterial(doc, "vertex colours"));
    }
    gltfMesh.addPrimitive(primitive);
  }
  return doc.createNode("mesh").setMesh(gltfMesh);
}

function addColouredGeometry(doc: Document, input: GltfInput): ReturnType<Document["createNode"]> | null {
  const source = input.mesh ?? input.cloud;
  const count = input.mesh ? input.mesh.vertexCount : input.cloud.count;
  // glTF forbids accessors with count 0, so an empty model has no geometry node at all.
  if (count === 0 || (input.mesh && input.mesh.faceCount === 0)) return null;
  // Created only with geometry: a buffer with nothing in it has no byteLength, which glTF forbids.
  const buffer = doc.createBuffer("buffer");
  const primitive = doc.createPrimitive()
    .setAttribute("POSITION", vec3(doc, buffer, "position", source.positions.subarray(0, 3 * count)))
    .setAttribute("NORMAL", vec3(doc, buffer, "normal", unitNormals(source.normals.subarray(0, 3 * count))))
    .setAttribute("COLOR_0", colourAccessor(doc, buffer, source.colors.subarray(0, 3 * count)));
  if (input.mesh) {
    primitive.setIndices(doc.createAccessor("indices").setType(Accessor.Type.SCALAR).setArray(input.mesh.indices.subarray(0, 3 * input.mesh.faceCount)).setBuffer(buffer));
  } else {
    primitive.setMode(Primitive.Mode.POINTS);
  }
  primitive.setMaterial(unlitMaterial(doc, input.mesh ? "vertex colours" : "point colours"));
  const gltfMesh = doc.createMesh(input.mesh ? "mesh" : "points").addPrimitive(primitive);
  return doc.createNode(input.mesh ? "mesh" : "points").setMesh(gltfMesh);
}

export async function buildGltfDocument(input: GltfInput): Promise<Document> {
  const doc = new Document();
  doc.getRoot().getAsset().generator = "photogrammetry-service (glTF-Transform)";
  const scene = doc.createScene("reconstruction");
  doc.getRoot().setDefaultScene(scene);
  const georeference = input.georeference;
  const root = georeference ? doc.createNode("georeferenced").setRotation(Z_UP_TO_Y_UP).setExtras({ georeference }) : null;
  if (root) scene.addChild(root);
  const parent = root ?? scene;
  const textured = input.textured && input.textured.mesh.faceCount > 0 ? input.textured : null;
  const geometryNode = textured ? await addTexturedMesh(doc, textured) : addColouredGeometry(doc, input);
  if (geometryNode) parent.addChild(geometryNode);
  // Only the used part: arrays may hold capacity beyond their vertex or point count.
  const positions = textured ? textured.mesh.positions.subarray(0, 3 * textured.mesh.vertexCount)
    : input.mesh ? input.mesh.positions.subarray(0, 3 * input.mesh.vertexCount) : input.cloud.positions.subarray(0, 3 * input.cloud.count);
  const diagonal = sceneScale(positions, input.views);
  for (const view of input.views) {
    const camera = doc.createCamera(view.name)
      .setType("perspective")
      .setYFov(verticalFov(view))
      .setAspectRatio(view.intrinsics.width / view.intrinsics.height)
      .setZNear(ZNEAR_FRACTION * diagonal)
      .setZFar(ZFAR_DIAGONALS * diagonal);
    const pose = cameraNodePose(view);
    parent.addChild(doc.createNode(view.name).setCamera(camera).setTranslation(pose.translation).setRotation(pose.rotation));
  }
  return doc;
}

const GLB_MAGIC = 0x46546c67; // "glTF"
const GLB_JSON_CHUNK = 0x4e4f534a; // "JSON"
const GLB_BIN_CHUNK = 0x004e4942; // "BIN\0"

/** Zero to three bytes of `fill`, to bring `length` to a multiple of 4 as GLB chunks must be. */
function padding(length: number, fill: number): Uint8Array {
  return new Uint8Array((4 - (length % 4)) % 4).fill(fill);
}

function chunkHeader(length: number, type: number): Uint8Array {
  const header = new Uint8Array(8);
  const view = new DataView(header.buffer);
  view.setUint32(0, length, true);
  view.setUint32(4, type, true);
  return header;
}

/**
 * The .glb (glTF 2.0 §4.4: a 12-byte header, a JSON chunk padded with spaces, a BIN chunk padded
 * with zeros) as chunks: the geometry buffer is handed on as the writer made it, not copied
 * into one file-sized array.
 */
export async function glbChunks(doc: Document): Promise<Iterable<Uint8Array>> {
  const { json, resources } = await new NodeIO().registerExtensions([KHRMaterialsUnlit]).writeJSON(doc, { format: Format.GLB });
  const jsonBytes = new TextEncoder().encode(JSON.stringify(json));
  const jsonPadding = padding(jsonBytes.byteLength, 0x20);
  const bin = Object.values(resources)[0] as Uint8Array | undefined;
  const binPadding = padding(bin?.byteLength ?? 0, 0);
  const jsonChunkBytes = 8 + jsonBytes.byteLength + jsonPadding.byteLength;
  const binChunkBytes = bin && bin.byteLength > 0 ? 8 + bin.byteLength + binPadding.byteLength : 0;
  const header = new Uint8Array(12);
  const view = new DataView(header.buffer);
  view.setUint32(0, GLB_MAGIC, true);
  view.setUint32(4, 2, true);
  view.setUint32(8, 12 + jsonChunkBytes + binChunkBytes, true);
  const chunks = [header, chunkHeader(jsonBytes.byteLength + jsonPadding.byteLength, GLB_JSON_CHUNK), jsonBytes, jsonPadding];
  if (bin && binChunkBytes > 0) chunks.push(chunkHeader(bin.byteLength + binPadding.byteLength, GLB_BIN_CHUNK), bin, binPadding);
  return chunks;
}

/** The whole .glb in one buffer (tests and small models; the export stage writes `glbChunks`). */
export async function writeGlb(doc: Document): Promise<Uint8Array> {
  return joinChunks(await glbChunks(doc));
}

/** Bytes of a resource turned into base64 per chunk: a multiple of 3, so the pieces join into one valid base64 text. */
const BASE64_SOURCE_BYTES = 3 << 20;

function* base64Chunks(bytes: Uint8Array, sourceBytes: number): Generator<Uint8Array> {
  for (let at = 0; at < bytes.byteLength; at += sourceBytes) {
    const piece = Buffer.from(bytes.buffer, bytes.byteOffset + at, Math.min(sourceBytes, bytes.byteLength - at));
    yield Buffer.from(piece.toString("base64"), "latin1");
  }
}

/**
 * A .gltf with every buffer and image inlined as a base64 data: URI, so the one file is the
 * whole model, as chunks: the JSON around the URIs as text, each resource's base64 a few MB at a
 * time. Whole, the base64 and the JSON holding it were copies of the model several times over.
 */
export async function gltfChunks(doc: Document, base64SourceBytes = BASE64_SOURCE_BYTES): Promise<Iterable<Uint8Array>> {
  if (base64SourceBytes <= 0 || base64SourceBytes % 3 !== 0) throw new Error(`export: base64 pieces must be a positive multiple of 3 bytes, not ${base64SourceBytes}`);
  const { json, resources } = await new NodeIO().registerExtensions([KHRMaterialsUnlit]).writeJSON(doc, { basename: "model" });
  // Each URI becomes `data:<mime>;base64,` and a mark no name in the document can hold (a fresh UUID).
  const mark = `inline-${randomUUID()}-`;
  const inlined: Uint8Array[] = [];
  const inline = (uri: string, mime: string): string => {
    const bytes = resources[uri];
    if (!bytes) throw new Error(`export: resource ${uri} missing from the glTF writer's resources`);
    inlined.push(bytes);
    return `data:${mime};base64,${mark}${inlined.length - 1}.`;
  };
  for (const buffer of json.buffers ?? []) if (buffer.uri) buffer.uri = inline(buffer.uri, "application/octet-stream");
  for (const image of json.images ?? []) if (image.uri) image.uri = inline(image.uri, image.mimeType ?? "image/jpeg");
  const text = JSON.stringify(json);
  return (function* () {
    const encoder = new TextEncoder();
    // The marks come in the JSON's key order (images may precede buffers), so each says which resource it is.
    let from = 0;
    for (let at = text.indexOf(mark); at >= 0; at = text.indexOf(mark, from)) {
      yield encoder.encode(text.slice(from, at));
      const end = text.indexOf(".", at + mark.length);
      yield* base64Chunks(inlined[Number(text.slice(at + mark.length, end))], base64SourceBytes);
      from = end + 1;
    }
    yield encoder.encode(text.slice(from));
  })();
}

/** The whole .gltf as one string (tests and small models; the export stage writes `gltfChunks`). */
export async function writeGltf(doc: Document): Promise<string> {
  return new TextDecoder().decode(joinChunks(await gltfChunks(doc)));
}
