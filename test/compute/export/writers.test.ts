import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "@loaders.gl/core";
import { LAZRsLoader } from "@loaders.gl/las";
import { OBJLoader } from "@loaders.gl/obj";
import { PLYLoader } from "@loaders.gl/ply";
import { describe, expect, it } from "vitest";
import { downloadFileName, type Format } from "../../../shared/formats.js";
import { chooseLasQuantisation, run, writeCloudFormats, writeLas, writeObj, writePly, writeStl } from "../../../compute/stages/export/index.js";
import { withFileFetch } from "../../support/file-fetch.js";
import { cubeMesh, randomCloud, views } from "./fixtures.js";

type LoadedMesh = { attributes: Record<string, { value: ArrayLike<number>; size: number }>; header?: { vertexCount?: number } };

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** An STL reader written from the format description, independent of the writer. */
function readStl(bytes: Uint8Array): { header: string; normals: number[][]; triangles: number[][][] } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(80, true);
  expect(bytes.byteLength).toBe(84 + 50 * count);
  const normals: number[][] = [];
  const triangles: number[][][] = [];
  for (let f = 0; f < count; f++) {
    const base = 84 + 50 * f;
    const vec = (k: number): number[] => [0, 1, 2].map((a) => view.getFloat32(base + 12 * k + 4 * a, true));
    normals.push(vec(0));
    triangles.push([vec(1), vec(2), vec(3)]);
    expect(view.getUint16(base + 48, true)).toBe(0);
  }
  return { header: new TextDecoder().decode(bytes.subarray(0, 80)), normals, triangles };
}

describe("export/ply", () => {
  it("reads back through loaders.gl's PLYLoader with identical positions, normals and colours", async () => {
    const cloud = randomCloud(500, 3);
    const loaded = (await parse(toArrayBuffer(writePly(cloud)), PLYLoader, { worker: false })) as unknown as LoadedMesh;
    expect(Array.from(loaded.attributes.POSITION.value)).toEqual(Array.from(cloud.positions));
    expect(Array.from(loaded.attributes.NORMAL.value)).toEqual(Array.from(cloud.normals));
    expect(Array.from(loaded.attributes.COLOR_0.value)).toEqual(Array.from(cloud.colors));
  });
});


describe("export/las", () => {
  it("picks a millimetre-or-finer power-of-ten scale that keeps coordinates in int32", () => {
    expect(chooseLasQuantisation([0, 0, 0], [2, 2, 2]).scale).toBeCloseTo(1e-6, 12);
    expect(chooseLasQuantisation([0, 0, 0], [5000, 10, 10]).scale).toBeCloseTo(1e-3, 12);
    const huge = chooseLasQuantisation([-1e7, 0, 0], [1e7, 0, 0]);
    expect(1e7 / huge.scale).toBeLessThan(2 ** 31);
    expect(huge.offset[0]).toBe(0);
  });

  it("writes a LAS 1.4 format 7 header that agrees with the points", () => {
    const cloud = randomCloud(300, 5);
    const bytes = writeLas(cloud);
    const view = new DataView(bytes.buffer);
    expect(new TextDecoder().decode(bytes.subarray(0, 4))).toBe("LASF");
    expect([bytes[24], bytes[25]]).toEqual([1, 4]);
    expect(view.getUint16(94, true)).toBe(375);
    expect(view.getUint32(96, true)).toBe(375);
    expect(bytes[104]).toBe(7);
    expect(view.getUint16(105, true)).toBe(36);
    expect(view.getBigUint64(247, true)).toBe(300n);
    expect(view.getBigUint64(255, true)).toBe(300n);
    expect(bytes.byteLength).toBe(375 + 36 * 300);
    const scale = view.getFloat64(131, true);
    for (let a = 0; a < 3; a++) {
      let min = Infinity, max = -Infinity;
      for (let i = 0; i < cloud.count; i++) { min = Math.min(min, cloud.positions[3 * i + a]); max = Math.max(max, cloud.positions[3 * i + a]); }
      expect(Math.abs(view.getFloat64(179 + 16 * a, true) - max)).toBeLessThanOrEqual(scale / 2 + 1e-9);
      expect(Math.abs(view.getFloat64(187 + 16 * a, true) - min)).toBeLessThanOrEqual(scale / 2 + 1e-9);
    }
  });

  it("reads back through loaders.gl (laz-rs LAS loader) with count, bounds within the scale, colours", async () => {
    const cloud = randomCloud(400, 9);
    const bytes = writeLas(cloud);
    const scale = new DataView(bytes.buffer).getFloat64(131, true);
    const loaded = (await withFileFetch(() => parse(toArrayBuffer(bytes), LAZRsLoader, { worker: false, las: { fp64: true, colorDepth: 16 } } as never))) as unknown as LoadedMesh;
    expect(loaded.header?.vertexCount).toBe(400);
    const pos = loaded.attributes.POSITION.value;
    for (let i = 0; i < 3 * cloud.count; i++) expect(Math.abs(pos[i] - cloud.positions[i])).toBeLessThanOrEqual(scale / 2 + 1e-6);
    const colors = loaded.attributes.COLOR_0;
    // loaders.gl returns RGBA, 16-bit LAS colour divided by 256 (so 255·257/256 rounds down to 255).
    for (let i = 0; i < cloud.count; i++) {
      for (let a = 0; a < 3; a++) expect(colors.value[colors.size * i + a]).toBe(cloud.colors[3 * i + a]);
    }
  });
});

describe("export/obj", () => {
  it("reads back through loaders.gl's OBJLoader with the face corners' positions and colours", async () => {
    const mesh = cubeMesh();
    const bytes = writeObj(mesh);
    const text = new TextDecoder().decode(bytes);
    expect(text.startsWith("#")).toBe(true);
    expect(text).toContain("\nf 1//1 3//3 4//4\n");
    const loaded = (await parse(toArrayBuffer(bytes), OBJLoader, { worker: false })) as unknown as LoadedMesh;
    const pos = loaded.attributes.POSITION.value;
    const col = loaded.attributes.COLOR_0.value;
    // OBJLoader expands faces to one vertex per corner.
    expect(pos.length).toBe(3 * 3 * mesh.faceCount);
    for (let corner = 0; corner < 3 * mesh.faceCount; corner++) {
      const v = mesh.indices[corner];
      for (let a = 0; a < 3; a++) {
        expect(pos[3 * corner + a]).toBeCloseTo(mesh.positions[3 * v + a], 6);
        expect(Math.abs(col[3 * corner + a] - mesh.colors[3 * v + a] / 255)).toBeLessThan(1e-4);
      }
    }
  });
});

describe("export/stl", () => {
  it("writes binary STL that an independent parser reads back: header, count, outward normals, vertices", () => {
    const mesh = cubeMesh([0, 0, 0]);
    const stl = readStl(writeStl(mesh));
    expect(stl.header.startsWith("solid")).toBe(false);
    expect(stl.triangles).toHaveLength(12);
    stl.triangles.forEach((tri, f) => {
      for (let k = 0; k < 3; k++) {
        const v = mesh.indices[3 * f + k];
        expect(tri[k]).toEqual([0, 1, 2].map((a) => mesh.positions[3 * v + a]));
      }
      // Centred cube: the outward normal points the same way as the face centre.
      const centre = [0, 1, 2].map((a) => (tri[0][a] + tri[1][a] + tri[2][a]) / 3);
      const n = stl.normals[f];
      expect(Math.hypot(n[0], n[1], n[2])).toBeCloseTo(1, 6);
      expect(n[0] * centre[0] + n[1] * centre[1] + n[2] * centre[2]).toBeGreaterThan(0.5);
    });
  });
});

describe("export/run", () => {
  it("writes all six files with their byte sizes, and only the point formats without a mesh", async () => {
    const outDir = await mkdtemp(path.join(tmpdir(), "export-"));
    try {
      const all = await run({ views: views(), cloud: randomCloud(100), mesh: cubeMesh() }, { formats: ["obj", "ply", "gltf", "glb", "stl", "las"], outDir });
      expect(all.files.map((f) => f.format)).toEqual(["obj", "ply", "gltf", "glb", "stl", "las"]);
      for (const f of all.files) {
        expect(path.basename(f.path)).toBe(downloadFileName("model", f.format));
        expect((await stat(f.path)).size).toBe(f.bytes);
      }
      const sparse = await run({ views: views(), cloud: randomCloud(100), mesh: null }, { formats: ["obj", "ply", "gltf", "glb", "stl", "las"], outDir, baseName: "sparse" });
      expect(sparse.files.map((f) => f.format)).toEqual(["ply", "gltf", "glb", "las"]);
      expect(sparse.report.warnings.join(" ")).toMatch(/obj not written/);
      expect((await readFile(path.join(outDir, "sparse.ply"))).subarray(0, 3).toString()).toBe("ply");
      const emptyMesh = { vertexCount: 0, faceCount: 0, positions: new Float32Array(0), colors: new Uint8Array(0), normals: new Float32Array(0), indices: new Uint32Array(0) };
      const empty = await run({ views: views(), cloud: randomCloud(10), mesh: emptyMesh }, { formats: ["obj", "glb"], outDir, baseName: "empty" });
      expect(empty.files.map((f) => f.format)).toEqual(["glb"]);
      expect(empty.report.warnings.join(" ")).toMatch(/mesh is empty/);
    } finally {
      await rm(outDir, { recursive: true, force: true });
    }
  });

  it("writes the cloud's formats ahead with the same bytes, and lists them in their place without writing them again", async () => {
    const outDir = await mkdtemp(path.join(tmpdir(), "export-"));
    try {
      const input = { views: views(), cloud: randomCloud(300), mesh: cubeMesh() };
      const formats: Format[] = ["obj", "ply", "glb", "las", "transforms"];
      const whole = await run(input, { formats, outDir, baseName: "whole" });
      const ahead = await writeCloudFormats({ input, formats, outDir, baseName: "split" });
      expect(ahead.files.map((f) => f.format)).toEqual(["ply", "las", "transforms"]);
      for (const format of ["ply", "las", "transforms"] as const) {
        expect(await readFile(path.join(outDir, downloadFileName("split", format)))).toEqual(await readFile(path.join(outDir, downloadFileName("whole", format))));
      }
      // A file written ahead is not touched by the stage (its content here marks it).
      await writeFile(path.join(outDir, "split.ply"), "written ahead");
      const split = await run(input, { formats, outDir, baseName: "split", writtenAhead: ahead });
      expect(split.files.map((f) => f.format)).toEqual(formats);
      expect(split.files.map((f) => path.basename(f.path))).toEqual(formats.map((f) => downloadFileName("split", f)));
      expect(await readFile(path.join(outDir, "split.ply"), "utf8")).toBe("written ahead");
      expect(split.report.counts.formatsWrittenAhead).toBe(3);
      expect(split.report.counts.bytes_las).toBe(whole.report.counts.bytes_las);
      expect(typeof split.report.counts.ms_ply).toBe("number");
      expect(await readFile(path.join(outDir, "split.glb"))).toEqual(await readFile(path.join(outDir, "whole.glb")));
    } finally {
      await rm(outDir, { recursive: true, force: true });
    }
  });
});
