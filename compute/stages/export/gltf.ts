/**
 * @module glTF 2.0 document of the result, written as .glb or as one self-contained .gltf.
 *
 * With a mesh: one TRIANGLES primitive (POSITION, NORMAL, COLOR_0 as normalised unsigned
 * bytes, uint32 indices) under a double-sided, fully rough, non-metallic white material so the
 * vertex colours show as they are. Without a mesh (sparse-only jobs): one POINTS primitive of
 * the cloud under a KHR_materials_unlit material. Either way one perspective camera node per
 * registered view (see camera-nodes.ts). Built with glTF-Transform (Don McCurdy).
 */
import { Accessor, Document, NodeIO, Primitive } from "@gltf-transform/core";
import type { Material } from "@gltf-transform/core";
import { KHRMaterialsUnlit } from "@gltf-transform/extensions";
import type { Mesh, PointCloud, RegisteredView } from "../../scene/index.js";
import { cameraNodePose, verticalFov } from "./camera-nodes.js";

export interface GltfInput {
  views: RegisteredView[];
  cloud: PointCloud;
  mesh: Mesh | null;
}

/** Near plane as a fraction of the scene's bounding-box diagonal. */
const ZNEAR_FRACTION = 0.01;

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

function addGeometry(doc: Document, input: GltfInput): ReturnType<Document["createNode"]> | null {
  const source = input.mesh ?? input.cloud;
  const count = input.mesh ? input.mesh.vertexCount : input.cloud.count;
  // glTF forbids accessors with count 0, so an empty model has no geometry node at all.
  if (count === 0 || (input.mesh && input.mesh.faceCount === 0)) return null;
  // Created only with geometry: a buffer with nothing in it has no byteLength, which glTF forbids.
  const buffer = doc.createBuffer("buffer");
  const primitive = doc.createPrimitive()
    .setAttribute("POSITION", doc.createAccessor("position").setType(Accessor.Type.VEC3).setArray(source.positions.slice(0, 3 * count)).setBuffer(buffer))
    .setAttribute("NORMAL", doc.createAccessor("normal").setType(Accessor.Type.VEC3).setArray(unitNormals(source.normals.subarray(0, 3 * count))).setBuffer(buffer))
    .setAttribute("COLOR_0", doc.createAccessor("color").setType(Accessor.Type.VEC3).setArray(source.colors.slice(0, 3 * count)).setNormalized(true).setBuffer(buffer));
  let material: Material;
  if (input.mesh) {
    primitive.setIndices(doc.createAccessor("indices").setType(Accessor.Type.SCALAR).setArray(input.mesh.indices.slice(0, 3 * input.mesh.faceCount)).setBuffer(buffer));
    material = doc.createMaterial("vertex colours").setBaseColorFactor([1, 1, 1, 1]).setMetallicFactor(0).setRoughnessFactor(1).setDoubleSided(true);
  } else {
    primitive.setMode(Primitive.Mode.POINTS);
    const unlit = doc.createExtension(KHRMaterialsUnlit);
    material = doc.createMaterial("point colours").setBaseColorFactor([1, 1, 1, 1]).setExtension("KHR_materials_unlit", unlit.createUnlit());
  }
  primitive.setMaterial(material);
  const gltfMesh = doc.createMesh(input.mesh ? "mesh" : "points").addPrimitive(primitive);
  return doc.createNode(input.mesh ? "mesh" : "points").setMesh(gltfMesh);
}

export function buildGltfDocument(input: GltfInput): Document {
  const doc = new Document();
  doc.getRoot().getAsset().generator = "photogrammetry-service (glTF-Transform)";
  const scene = doc.createScene("reconstruction");
  doc.getRoot().setDefaultScene(scene);
  const geometryNode = addGeometry(doc, input);
  if (geometryNode) scene.addChild(geometryNode);
  const positions = input.mesh ? input.mesh.positions : input.cloud.positions;
  const znear = ZNEAR_FRACTION * sceneScale(positions, input.views);
  for (const view of input.views) {
    const camera = doc.createCamera(view.name)
      .setType("perspective")
      .setYFov(verticalFov(view))
      .setAspectRatio(view.intrinsics.width / view.intrinsics.height)
      .setZNear(znear);
    const pose = cameraNodePose(view);
    scene.addChild(doc.createNode(view.name).setCamera(camera).setTranslation(pose.translation).setRotation(pose.rotation));
  }
  return doc;
}

export async function writeGlb(doc: Document): Promise<Uint8Array> {
  return new NodeIO().registerExtensions([KHRMaterialsUnlit]).writeBinary(doc);
}

/** A .gltf with every buffer inlined as a base64 data: URI, so the one file is the whole model. */
export async function writeGltf(doc: Document): Promise<string> {
  const { json, resources } = await new NodeIO().registerExtensions([KHRMaterialsUnlit]).writeJSON(doc, { basename: "model" });
  for (const buffer of json.buffers ?? []) {
    if (!buffer.uri) continue;
    const bytes = resources[buffer.uri];
    if (!bytes) throw new Error(`export: buffer ${buffer.uri} missing from the glTF writer's resources`);
    buffer.uri = `data:application/octet-stream;base64,${Buffer.from(bytes).toString("base64")}`;
  }
  return JSON.stringify(json);
}
