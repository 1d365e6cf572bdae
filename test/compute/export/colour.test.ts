/**
 * Colour rules, format by format (docs/API.md "What each format holds"): a known sRGB colour patch
 * is written through the export stage, read back with an independent reader and checked
 * through the colour rule of its format: glTF COLOR_0 linear, glTF textures sRGB (JPEG), PLY
 * and OBJ 8-bit sRGB, LAS 16-bit sRGB (8-bit × 257).
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { NodeIO } from "@gltf-transform/core";
import { KHRMaterialsUnlit } from "@gltf-transform/extensions";
import { parse } from "@loaders.gl/core";
import { PLYLoader } from "@loaders.gl/ply";
import { unzipSync } from "fflate";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Mesh, PointCloud, TexturedMesh } from "../../../compute/scene/index.js";
import { run } from "../../../compute/stages/export/index.js";
import { views } from "./fixtures.js";

const PATCH: [number, number, number] = [200, 100, 50];
/** IEC 61966-2-1 decoding, written here independently of the exporter. */
const linear = (v: number): number => (v / 255 <= 0.04045 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);

/** Two textured faces (a quad on page 0) and one untextured face with vertex colours. */
function patchModel(): { mesh: Mesh; textured: TexturedMesh; cloud: PointCloud } {
  const positions = new Float32Array([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0, 0, 3, 0, 0, 2, 1, 0]);
  const normals = new Float32Array(21).map((_, i) => (i % 3 === 2 ? 1 : 0));
  const colors = new Uint8Array(21);
  for (let v = 0; v < 7; v++) colors.set(PATCH, 3 * v);
  const mesh: Mesh = { vertexCount: 7, faceCount: 3, positions, normals, colors, indices: new Uint32Array([0, 1, 2, 0, 2, 3, 4, 5, 6]) };
  const page = { width: 64, height: 64, rgb: new Uint8Array(3 * 64 * 64) };
  for (let i = 0; i < 64 * 64; i++) page.rgb.set(PATCH, 3 * i);
  const uvs = new Float32Array([0.1, 0.1, 0.9, 0.1, 0.9, 0.9, 0.1, 0.9, 0, 0, 0, 0, 0, 0]);
  const textured: TexturedMesh = { mesh, uvs, facePage: new Uint16Array([0, 0, 1]), faceView: new Int32Array([0, 0, -1]), pages: [page] };
  const cloud: PointCloud = { count: 7, positions: positions.slice(), normals: normals.slice(), colors: colors.slice() };
  return { mesh, textured, cloud };
}

async function meanRgb(jpeg: Uint8Array): Promise<number[]> {
  const { data, info } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
  const sum = [0, 0, 0];
  for (let i = 0; i < data.length; i += info.channels) for (let ch = 0; ch < 3; ch++) sum[ch] += data[i + ch];
  return sum.map((s) => s / (data.length / info.channels));
}

let outDir: string;
const files = new Map<string, Uint8Array>();

beforeAll(async () => {
  outDir = await mkdtemp(path.join(tmpdir(), "colour-"));
  const { mesh, textured, cloud } = patchModel();
  const written = await run({ views: views(), cloud, mesh, textured }, { formats: ["obj", "ply", "gltf", "glb", "las"], outDir });
  for (const f of written.files) files.set(f.format, new Uint8Array(await readFile(f.path)));
});
afterAll(async () => rm(outDir, { recursive: true, force: true }));

describe("colour rules of each format", () => {
  it.each(["glb", "gltf"])("%s: texture pages are the sRGB patch, COLOR_0 is linear, materials unlit", async (format) => {
    const io = new NodeIO().registerExtensions([KHRMaterialsUnlit]);
    const bytes = files.get(format)!;
    const doc = format === "glb" ? await io.readBinary(bytes) : await io.readJSON({ json: JSON.parse(new TextDecoder().decode(bytes)), resources: {} });
    const primitives = doc.getRoot().listMeshes()[0].listPrimitives();
    expect(primitives).toHaveLength(2);
    const [texturedPrimitive, colouredPrimitive] = primitives;
    const texture = texturedPrimitive.getMaterial()!.getBaseColorTexture()!;
    expect(texture.getMimeType()).toBe("image/jpeg");
    const texel = await meanRgb(texture.getImage()!);
    for (let ch = 0; ch < 3; ch++) expect(Math.abs(texel[ch] - PATCH[ch])).toBeLessThan(3);
    expect(texturedPrimitive.getAttribute("COLOR_0")).toBeNull();
    expect(texturedPrimitive.getAttribute("TEXCOORD_0")!.getCount()).toBe(7);
    const colour = colouredPrimitive.getAttribute("COLOR_0")!;
    expect(colour.getNormalized()).toBe(true);
    expect(colour.getComponentType()).toBe(5123); // UNSIGNED_SHORT, normalised
    const stored = colour.getArray()!;
    // Vertex 4 is the untextured face's first corner.
    for (let ch = 0; ch < 3; ch++) expect(Math.abs(stored[3 * 4 + ch] / 65535 - linear(PATCH[ch]))).toBeLessThan(1e-4);
    for (const primitive of primitives) expect(primitive.getMaterial()!.getExtension("KHR_materials_unlit")).not.toBeNull();
  });

  it("ply: 8-bit sRGB per point", async () => {
    const bytes = files.get("ply")!;
    const cloud = (await parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, PLYLoader, { worker: false })) as unknown as { attributes: Record<string, { value: ArrayLike<number> }> };
    const colours = cloud.attributes.COLOR_0.value;
    expect(Array.from(colours).slice(0, 3)).toEqual(PATCH);
  });

  it("las: 16-bit sRGB per point, the 8-bit value × 257", () => {
    const bytes = files.get("las")!;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    // LAS 1.4 header: offset to point data at byte 96, point format at 104, record length at 105.
    const offset = view.getUint32(96, true);
    expect(view.getUint8(104)).toBe(7);
    // Point format 7: X Y Z (3 × int32), intensity, flags (2), classification, user data, scan angle (int16), source id, GPS time (f64), then R G B.
    const rgbAt = offset + 30;
    expect([view.getUint16(rgbAt, true), view.getUint16(rgbAt + 2, true), view.getUint16(rgbAt + 4, true)]).toEqual(PATCH.map((v) => v * 257));
  });

  it("obj: a zip of model.obj (sRGB vertex colours, UVs), model.mtl and the sRGB texture page", async () => {
    const zip = unzipSync(files.get("obj")!);
    expect(Object.keys(zip).sort()).toEqual(["model.mtl", "model.obj", "texture_0.jpg"]);
    const obj = new TextDecoder().decode(zip["model.obj"]);
    const vertex = obj.split("\n").find((line) => line.startsWith("v "))!.split(" ").slice(4).map(Number);
    for (let ch = 0; ch < 3; ch++) expect(Math.abs(vertex[ch] * 255 - PATCH[ch])).toBeLessThan(0.05);
    expect(obj).toContain("mtllib model.mtl");
    expect(obj).toContain("usemtl page_0");
    expect(obj).toContain("usemtl untextured");
    expect(obj.split("\n").filter((line) => line.startsWith("vt "))).toHaveLength(7);
    expect(new TextDecoder().decode(zip["model.mtl"])).toContain("map_Kd texture_0.jpg");
    const texel = await meanRgb(zip["texture_0.jpg"]);
    for (let ch = 0; ch < 3; ch++) expect(Math.abs(texel[ch] - PATCH[ch])).toBeLessThan(3);
  });
});
