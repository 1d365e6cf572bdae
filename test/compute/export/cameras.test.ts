/**
 * Camera exports read back with parsers written here, independently of the exporter: COLMAP's
 * text model (colmap.github.io/format.html) and nerfstudio's transforms.json. Poses are checked
 * against the glTF camera nodes of the same export run, and against the scene's geometry.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { NodeIO } from "@gltf-transform/core";
import type { Document } from "@gltf-transform/core";
import { KHRMaterialsUnlit } from "@gltf-transform/extensions";
import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { run } from "../../../compute/stages/export/index.js";
import type { RegisteredView, SparsePoints } from "../../../compute/scene/index.js";
import { downloadFileName } from "../../../shared/formats.js";
import { cubeMesh, randomCloud, rng, views } from "./fixtures.js";

type Mat3 = number[][];

/** Hamilton quaternion (w, x, y, z) to a rotation matrix. */
function matrixOfQuaternion(w: number, x: number, y: number, z: number): Mat3 {
  return [
    [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
    [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
    [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
  ];
}

const transpose = (m: Mat3): Mat3 => m[0]!.map((_, c) => m.map((row) => row[c]!));
const mulVec = (m: Mat3, v: number[]): number[] => m.map((row) => row[0]! * v[0]! + row[1]! * v[1]! + row[2]! * v[2]!);

interface ColmapCamera { model: string; width: number; height: number; params: number[] }
interface ColmapImage { q: number[]; t: number[]; cameraId: number; name: string; points2D: { x: number; y: number; id: number }[] }
interface ColmapPoint { xyz: number[]; rgb: number[]; error: number; track: { imageId: number; index: number }[] }

function dataLines(text: string): string[] {
  return text.split("\n").filter((line) => !line.startsWith("#"));
}

function parseCameras(text: string): Map<number, ColmapCamera> {
  const cameras = new Map<number, ColmapCamera>();
  for (const line of dataLines(text).filter((l) => l.trim() !== "")) {
    const [id, model, width, height, ...params] = line.trim().split(/\s+/);
    cameras.set(Number(id), { model: model!, width: Number(width), height: Number(height), params: params.map(Number) });
  }
  return cameras;
}

/** Two lines per image; the second (POINTS2D) may be empty, so blank lines count here. */
function parseImages(text: string): Map<number, ColmapImage> {
  const lines = dataLines(text);
  const images = new Map<number, ColmapImage>();
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const [id, qw, qx, qy, qz, tx, ty, tz, cameraId, name] = lines[i]!.trim().split(/\s+/);
    const flat = lines[i + 1]!.trim() === "" ? [] : lines[i + 1]!.trim().split(/\s+/).map(Number);
    const points2D = [];
    for (let k = 0; k < flat.length; k += 3) points2D.push({ x: flat[k]!, y: flat[k + 1]!, id: flat[k + 2]! });
    images.set(Number(id), { q: [qw, qx, qy, qz].map(Number), t: [tx, ty, tz].map(Number), cameraId: Number(cameraId), name: name!, points2D });
  }
  return images;
}

function parsePoints(text: string): Map<number, ColmapPoint> {
  const points = new Map<number, ColmapPoint>();
  for (const line of dataLines(text).filter((l) => l.trim() !== "")) {
    const f = line.trim().split(/\s+/).map(Number);
    const track = [];
    for (let k = 8; k < f.length; k += 2) track.push({ imageId: f[k]!, index: f[k + 1]! });
    points.set(f[0]!, { xyz: f.slice(1, 4), rgb: f.slice(4, 7), error: f[7]!, track });
  }
  return points;
}

/** COLMAP's PINHOLE (fx, fy, cx, cy) and RADIAL (f, cx, cy, k1, k2) projections. */
function colmapProject(camera: ColmapCamera, R: Mat3, t: number[], X: number[]): number[] {
  const p = mulVec(R, X).map((v, a) => v + t[a]!);
  const u = p[0]! / p[2]!, v = p[1]! / p[2]!;
  if (camera.model === "PINHOLE") {
    const [fx, fy, cx, cy] = camera.params;
    return [fx! * u + cx!, fy! * v + cy!];
  }
  expect(camera.model).toBe("RADIAL");
  const [f, cx, cy, k1, k2] = camera.params;
  const r2 = u * u + v * v;
  const d = 1 + k1! * r2 + k2! * r2 * r2;
  return [f! * d * u + cx!, f! * d * v + cy!];
}

/** The fixture's views, the third with radial distortion (so both camera models appear). */
function distortedViews(): RegisteredView[] {
  const list = views();
  list[2] = { ...list[2]!, intrinsics: { ...list[2]!.intrinsics, k1: -0.08, k2: 0.015 } };
  return list;
}

/** Points near the origin (every fixture camera looks at it), each seen by every view, with colours and errors. */
function sparsePoints(count: number, viewCount: number): SparsePoints {
  const random = rng(5);
  const xyz = new Float64Array(3 * count).map(() => (random() - 0.5) * 2);
  const rgb = new Uint8Array(3 * count).map(() => Math.floor(random() * 256));
  const error = new Float32Array(count).map(() => random());
  const obsOffsets = new Uint32Array(count + 1).map((_, p) => p * viewCount);
  const obsViews = new Uint32Array(count * viewCount).map((_, o) => o % viewCount);
  const obsKeypoints = new Uint32Array(count * viewCount).map((_, o) => o);
  return { count, xyz, rgb, error, obsOffsets, obsViews, obsKeypoints };
}

/** World matrix (row-major 4×4) of each glTF camera node, by node name. */
function gltfCameraMatrices(doc: Document): Map<string, number[][]> {
  const out = new Map<string, number[][]>();
  for (const node of doc.getRoot().listNodes().filter((n) => n.getCamera() !== null)) {
    const m = node.getWorldMatrix(); // column-major
    out.set(node.getName(), [0, 1, 2, 3].map((r) => [0, 1, 2, 3].map((c) => m[4 * c + r]!)));
  }
  return out;
}

async function exportAll(viewList: RegisteredView[], sparse: SparsePoints) {
  const outDir = await mkdtemp(path.join(tmpdir(), "export-cameras-"));
  try {
    const result = await run({ views: viewList, cloud: randomCloud(50), mesh: cubeMesh(), sparse }, { formats: ["glb", "colmap", "transforms"], outDir });
    expect(result.files.map((f) => [f.format, path.basename(f.path)])).toEqual([
      ["glb", "model.glb"],
      ["colmap", downloadFileName("model", "colmap")],
      ["transforms", downloadFileName("model", "transforms")],
    ]);
    const [glb, colmap, transforms] = await Promise.all(result.files.map((f) => readFile(f.path)));
    return { gltf: await new NodeIO().registerExtensions([KHRMaterialsUnlit]).readBinary(glb!), colmap: unzipSync(colmap!), transforms: JSON.parse(transforms!.toString("utf8")) };
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

describe("export: colmap and transforms", () => {
  const viewList = distortedViews();
  const sparse = sparsePoints(40, viewList.length);
  const exported = exportAll(viewList, sparse);

  it("colmap: a zip of the three text files; cameras in the model SfM used (PINHOLE undistorted, RADIAL with k1, k2)", async () => {
    const { colmap } = await exported;
    expect(Object.keys(colmap).sort()).toEqual(["cameras.txt", "images.txt", "points3D.txt"]);
    const cameras = parseCameras(new TextDecoder().decode(colmap["cameras.txt"]));
    const images = parseImages(new TextDecoder().decode(colmap["images.txt"]));
    expect(images.size).toBe(viewList.length);
    for (const [id, image] of images) {
      const view = viewList[id - 1]!;
      expect(image.name).toBe(view.name);
      const camera = cameras.get(image.cameraId)!;
      const { width, height, focal, cx, cy, k1, k2 } = view.intrinsics;
      expect([camera.width, camera.height]).toEqual([width, height]);
      expect(camera).toMatchObject(k1 === 0 && k2 === 0 ? { model: "PINHOLE", params: [focal, focal, cx, cy] } : { model: "RADIAL", params: [focal, cx, cy, k1, k2] });
    }
  });

  it("colmap: each image's pose puts its camera where the glTF camera node is, looking the same way", async () => {
    const { colmap, gltf } = await exported;
    const images = parseImages(new TextDecoder().decode(colmap["images.txt"]));
    const nodes = gltfCameraMatrices(gltf);
    for (const image of images.values()) {
      const R = matrixOfQuaternion(image.q[0]!, image.q[1]!, image.q[2]!, image.q[3]!);
      const centre = mulVec(transpose(R), image.t).map((v) => -v);
      const node = nodes.get(image.name)!;
      // glTF node: translation is the centre; its −z axis is the camera's viewing (+z OpenCV) direction; its +y is image up (−y OpenCV).
      for (let a = 0; a < 3; a++) {
        expect(node[a]![3]).toBeCloseTo(centre[a]!, 4);
        expect(-node[a]![2]!).toBeCloseTo(R[2]![a]!, 5);
        expect(node[a]![1]).toBeCloseTo(-R[1]![a]!, 5);
        expect(node[a]![0]).toBeCloseTo(R[0]![a]!, 5);
      }
    }
  });

  it("colmap: points3D holds the sparse points and tracks that agree with each image's POINTS2D, which reproject exactly", async () => {
    const { colmap } = await exported;
    const cameras = parseCameras(new TextDecoder().decode(colmap["cameras.txt"]));
    const images = parseImages(new TextDecoder().decode(colmap["images.txt"]));
    const points = parsePoints(new TextDecoder().decode(colmap["points3D.txt"]));
    expect(points.size).toBe(sparse.count);
    for (const [id, point] of points) {
      const p = id - 1;
      expect(point.xyz).toEqual(Array.from(sparse.xyz.subarray(3 * p, 3 * p + 3)));
      expect(point.rgb).toEqual(Array.from(sparse.rgb.subarray(3 * p, 3 * p + 3)));
      expect(point.error).toBeCloseTo(sparse.error[p]!, 6);
      expect(point.track.map((o) => o.imageId).sort()).toEqual(viewList.map((_, v) => v + 1));
      for (const { imageId, index } of point.track) {
        const image = images.get(imageId)!;
        const observation = image.points2D[index]!;
        expect(observation.id).toBe(id);
        const R = matrixOfQuaternion(image.q[0]!, image.q[1]!, image.q[2]!, image.q[3]!);
        const [x, y] = colmapProject(cameras.get(image.cameraId)!, R, image.t, point.xyz);
        expect(observation.x).toBeCloseTo(x!, 6);
        expect(observation.y).toBeCloseTo(y!, 6);
      }
    }
  });

  it("transforms: OpenGL camera-to-world matrices equal to the glTF camera nodes, intrinsics per nerfstudio", async () => {
    const { transforms, gltf } = await exported;
    const first = viewList[0]!.intrinsics;
    expect(transforms).toMatchObject({ camera_model: "OPENCV", fl_x: first.focal, fl_y: first.focal, cx: first.cx, cy: first.cy, w: first.width, h: first.height, k1: 0, k2: 0, p1: 0, p2: 0 });
    const nodes = gltfCameraMatrices(gltf);
    expect(transforms.frames.map((f: { file_path: string }) => f.file_path)).toEqual(viewList.map((v) => v.name));
    transforms.frames.forEach((frame: Record<string, unknown> & { transform_matrix: number[][] }, i: number) => {
      const node = nodes.get(viewList[i]!.name)!;
      expect(frame.transform_matrix).toHaveLength(4);
      for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) expect(frame.transform_matrix[r]![c]).toBeCloseTo(node[r]![c]!, 4);
      // The scene's own truth: each fixture camera looks at the origin with world +Y up.
      const m = frame.transform_matrix;
      const centre = [m[0]![3]!, m[1]![3]!, m[2]![3]!];
      const look = [-m[0]![2]!, -m[1]![2]!, -m[2]![2]!];
      const toOrigin = centre.map((v) => -v / Math.hypot(...centre));
      for (let a = 0; a < 3; a++) expect(look[a]).toBeCloseTo(toOrigin[a]!, 6);
      expect(m[1]![1]).toBeGreaterThan(0);
      const own = viewList[i]!.intrinsics;
      const differs = own.width !== first.width || own.height !== first.height || own.focal !== first.focal || own.k1 !== 0;
      if (differs) expect(frame).toMatchObject({ fl_x: own.focal, fl_y: own.focal, w: own.width, h: own.height, k1: own.k1, k2: own.k2 });
      else expect(frame.fl_x).toBeUndefined();
    });
  });

  it("without sparse points: an empty points3D and empty POINTS2D lines, poses still there", async () => {
    const outDir = await mkdtemp(path.join(tmpdir(), "export-cameras-"));
    try {
      const { files } = await run({ views: viewList, cloud: randomCloud(5), mesh: null }, { formats: ["colmap"], outDir });
      const zip = unzipSync(await readFile(files[0]!.path));
      expect(parsePoints(new TextDecoder().decode(zip["points3D.txt"])).size).toBe(0);
      const images = parseImages(new TextDecoder().decode(zip["images.txt"]));
      expect([...images.values()].map((im) => im.points2D.length)).toEqual([0, 0, 0]);
    } finally {
      await rm(outDir, { recursive: true, force: true });
    }
  });
});
