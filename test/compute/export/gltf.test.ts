import { NodeIO } from "@gltf-transform/core";
import type { Document } from "@gltf-transform/core";
import { KHRMaterialsUnlit } from "@gltf-transform/extensions";
import { validateBytes } from "gltf-validator";
import { describe, expect, it } from "vitest";
import { buildGltfDocument, writeGlb, writeGltf } from "../../../compute/stages/export/index.js";
import type { RegisteredView } from "../../../compute/scene/index.js";
import { run as meshRun } from "../../../compute/stages/mesh/index.js";
import { spherePoints } from "../mesh/fixtures.js";
import { cubeMesh, lookAtView, randomCloud, views } from "./fixtures.js";

const io = new NodeIO().registerExtensions([KHRMaterialsUnlit]);

/**
 * glTF 2.0 §3.7.2.1: COLOR_0 is linear. The sRGB decoding written out here independently of
 * the exporter (IEC 61966-2-1), as a 16-bit normalised integer.
 */
function expectedLinear(srgb: Uint8Array): number[] {
  return Array.from(srgb, (v) => {
    const c = v / 255;
    return Math.round((c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4)) * 65535);
  });
}

async function expectValid(bytes: Uint8Array, uri: string): Promise<void> {
  const report = await validateBytes(bytes, { uri, maxIssues: 100 });
  const errors = report.issues.messages.filter((m) => m.severity === 0);
  expect(errors).toEqual([]);
  expect(report.issues.numErrors).toBe(0);
}

/** Rotate v by the unit quaternion q = (x, y, z, w). */
function rotate(q: number[], v: number[]): number[] {
  const [x, y, z, w] = q;
  const tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
  return [v[0] + w * tx + (y * tz - z * ty), v[1] + w * ty + (z * tx - x * tz), v[2] + w * tz + (x * ty - y * tx)];
}

function checkCameras(doc: Document, expected: RegisteredView[]): void {
  const nodes = doc.getRoot().listNodes().filter((n) => n.getCamera() !== null);
  expect(nodes.map((n) => n.getName())).toEqual(expected.map((v) => v.name));
  nodes.forEach((node, i) => {
    const view = expected[i];
    const camera = node.getCamera()!;
    expect(camera.getType()).toBe("perspective");
    expect(camera.getYFov()).toBeCloseTo(2 * Math.atan(view.intrinsics.height / (2 * view.intrinsics.focal)), 6);
    expect(camera.getAspectRatio()).toBeCloseTo(view.intrinsics.width / view.intrinsics.height, 6);
    const { R, t } = view.camFromWorld;
    // The OpenCV camera looks along its +z axis, row 2 of R in world coordinates; its image up is −y (row 1).
    const lookWorld = [R[6], R[7], R[8]];
    const upWorld = [-R[3], -R[4], -R[5]];
    const q = node.getRotation();
    const minusZ = rotate(q, [0, 0, -1]);
    const plusY = rotate(q, [0, 1, 0]);
    for (let a = 0; a < 3; a++) {
      expect(minusZ[a]).toBeCloseTo(lookWorld[a], 5);
      expect(plusY[a]).toBeCloseTo(upWorld[a], 5);
    }
    // The node sits at the camera centre: projecting it gives x_cam = 0.
    const c = node.getTranslation();
    for (let r = 0; r < 3; r++) expect(R[3 * r] * c[0] + R[3 * r + 1] * c[1] + R[3 * r + 2] * c[2] + t[r]).toBeCloseTo(0, 5);
  });
}

function checkMesh(doc: Document): void {
  const mesh = cubeMesh();
  const prims = doc.getRoot().listMeshes().flatMap((m) => m.listPrimitives());
  expect(prims).toHaveLength(1);
  const prim = prims[0];
  expect(prim.getMode()).toBe(4); // TRIANGLES
  expect(Array.from(prim.getAttribute("POSITION")!.getArray()!)).toEqual(Array.from(mesh.positions));
  const color = prim.getAttribute("COLOR_0")!;
  expect(color.getNormalized()).toBe(true);
  expect(color.getComponentType()).toBe(5123); // UNSIGNED_SHORT
  expect(Array.from(color.getArray()!)).toEqual(expectedLinear(mesh.colors));
  expect(prim.getAttribute("NORMAL")!.getCount()).toBe(8);
  expect(prim.getIndices()!.getCount()).toBe(36);
  expect(Array.from(prim.getIndices()!.getArray()!)).toEqual(Array.from(mesh.indices));
  expect(prim.getMaterial()!.getDoubleSided()).toBe(true);
}

describe("export/gltf", () => {
  it("writes a glb that the Khronos validator accepts with zero errors and that reads back identically", async () => {
    const glb = await writeGlb(await buildGltfDocument({ mesh: cubeMesh(), cloud: randomCloud(50), views: views() }));
    await expectValid(glb, "model.glb");
    const doc = await io.readBinary(glb);
    checkMesh(doc);
    checkCameras(doc, views());
  });

  it("writes one self-contained .gltf (data: URI buffer) with the same content", async () => {
    const text = await writeGltf(await buildGltfDocument({ mesh: cubeMesh(), cloud: randomCloud(50), views: views() }));
    const json = JSON.parse(text);
    expect(json.buffers).toHaveLength(1);
    expect(json.buffers[0].uri).toMatch(/^data:application\/octet-stream;base64,/);
    await expectValid(new TextEncoder().encode(text), "model.gltf");
    const doc = await io.readJSON({ json, resources: {} });
    checkMesh(doc);
    checkCameras(doc, views());
  });

  it("without a mesh holds the cloud as a POINTS primitive with COLOR_0, plus the cameras", async () => {
    const cloud = randomCloud(200, 7);
    const glb = await writeGlb(await buildGltfDocument({ mesh: null, cloud, views: views() }));
    await expectValid(glb, "points.glb");
    const doc = await io.readBinary(glb);
    const prim = doc.getRoot().listMeshes()[0].listPrimitives()[0];
    expect(prim.getMode()).toBe(0); // POINTS
    expect(prim.getIndices()).toBeNull();
    expect(Array.from(prim.getAttribute("POSITION")!.getArray()!)).toEqual(Array.from(cloud.positions));
    expect(Array.from(prim.getAttribute("COLOR_0")!.getArray()!)).toEqual(expectedLinear(cloud.colors));
    checkCameras(doc, views());
  });

  it("writes the mesh stage's own output as a glb with zero validator errors and warnings", async () => {
    const cloud = spherePoints(6000, 1, [0.2, 0.1, -0.3], 0.003, 8);
    const { mesh } = await meshRun({ cloud, views: [] }, { faceBudget: 4000 });
    expect(mesh.faceCount).toBeGreaterThan(2000);
    const glb = await writeGlb(await buildGltfDocument({ mesh, cloud, views: views() }));
    const report = await validateBytes(glb, { uri: "sphere.glb", maxIssues: 100 });
    expect(report.issues.numErrors).toBe(0);
    expect(report.issues.numWarnings).toBe(0);
    const prim = (await io.readBinary(glb)).getRoot().listMeshes()[0].listPrimitives()[0];
    expect(prim.getIndices()!.getCount()).toBe(3 * mesh.faceCount);
  });

  it("gives every camera a far plane beyond the scene, however large its units (a scene 2 km across)", async () => {
    // A cube 2 km across seen from 3 km: the library's default far plane (100) was below the near plane here.
    const far = [lookAtView("DJI_0001.JPG", [0, 3000, 200]), lookAtView("DJI_0002.JPG", [2500, 2500, 0])];
    const cube = cubeMesh([0, 0, 0]);
    for (let i = 0; i < cube.positions.length; i++) cube.positions[i] *= 1000;
    const glb = await writeGlb(await buildGltfDocument({ mesh: cube, cloud: randomCloud(10), views: far }));
    await expectValid(glb, "survey.glb");
    const cameras = (await io.readBinary(glb)).getRoot().listCameras();
    expect(cameras).toHaveLength(2);
    for (const camera of cameras) {
      expect(camera.getZNear()).toBeGreaterThan(0);
      // Farther than the farthest corner from any camera: the scene's diagonal plus the camera's distance.
      expect(camera.getZFar()).toBeGreaterThan(3000 + Math.hypot(2000, 2000, 2000));
    }
  });

  it("writes only the used part of arrays with spare capacity", async () => {
    const exact = cubeMesh();
    const spare = { ...exact, positions: new Float32Array(48).fill(1e6), normals: new Float32Array(48), colors: new Uint8Array(48), indices: new Uint32Array(72).fill(7) };
    spare.positions.set(exact.positions);
    spare.normals.set(exact.normals);
    spare.colors.set(exact.colors);
    spare.indices.set(exact.indices);
    const [written, reference] = await Promise.all([spare, exact].map(async (mesh) => writeGlb(await buildGltfDocument({ mesh, cloud: randomCloud(5), views: views() }))));
    expect(written).toEqual(reference);
  });

  it("stays valid for an empty model (no geometry, cameras only)", async () => {
    const empty = { count: 0, positions: new Float32Array(0), colors: new Uint8Array(0), normals: new Float32Array(0) };
    const glb = await writeGlb(await buildGltfDocument({ mesh: null, cloud: empty, views: views() }));
    await expectValid(glb, "empty.glb");
    checkCameras(await io.readBinary(glb), views());
  });
});
