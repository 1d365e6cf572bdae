/**
 * The export stage writes its model formats as chunks (chunks.ts), so a 30-million-point cloud
 * never stands whole in memory. These tests cut small models into many small chunks and check
 * that the joined bytes are those of one chunk, that glb matches glTF-Transform's own writer byte
 * for byte, that base64 cut in pieces is the resource's base64, and that the streamed zip and
 * files on disk read back whole.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { NodeIO } from "@gltf-transform/core";
import { KHRMaterialsUnlit } from "@gltf-transform/extensions";
import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import {
  buildGltfDocument, glbChunks, gltfChunks, joinChunks, lasChunks, LAS_HEADER_BYTES, LAS_RECORD_BYTES, objChunks, objZipChunks,
  plyChunks, stlChunks, writeChunks, writeLas, writeObj, writePly, writeStl,
} from "../../../compute/stages/export/index.js";
import { cubeMesh, randomCloud, views } from "./fixtures.js";

function many(chunks: Iterable<Uint8Array>): Uint8Array[] {
  const list = [...chunks];
  expect(list.length).toBeGreaterThan(3);
  return list;
}

describe("export/chunks", () => {
  it("ply, las and stl give the same bytes cut in chunks of a few records as in one", () => {
    const cloud = randomCloud(1000, 4);
    expect(joinChunks(many(plyChunks(cloud, 7)))).toEqual(writePly(cloud));
    expect(joinChunks(many(lasChunks(cloud, undefined, 13)))).toEqual(writeLas(cloud));
    const mesh = cubeMesh();
    expect(joinChunks(many(stlChunks(mesh, 2)))).toEqual(writeStl(mesh));
  });

  it("las: the header's bounds are exactly those of the stored coordinates", () => {
    const cloud = randomCloud(2000, 11);
    const bytes = writeLas(cloud);
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    const scale = view.getFloat64(131, true);
    for (let a = 0; a < 3; a++) {
      const offset = view.getFloat64(155 + 8 * a, true);
      let min = Infinity, max = -Infinity;
      for (let i = 0; i < cloud.count; i++) {
        const stored = offset + view.getInt32(LAS_HEADER_BYTES + LAS_RECORD_BYTES * i + 4 * a, true) * scale;
        min = Math.min(min, stored);
        max = Math.max(max, stored);
      }
      expect(view.getFloat64(179 + 16 * a, true)).toBe(max);
      expect(view.getFloat64(187 + 16 * a, true)).toBe(min);
    }
  });

  it("obj: text cut at any chunk size joins to the same file, and the streamed zip holds it", async () => {
    const mesh = cubeMesh();
    const whole = writeObj(mesh);
    const pieces = many(objChunks(mesh, null, "model.mtl", 40));
    for (const piece of pieces) expect(piece.byteLength).toBeLessThan(40 + 200);
    expect(joinChunks(pieces)).toEqual(whole);
    const zipped: Uint8Array[] = [];
    for await (const piece of objZipChunks(mesh, null, 40)) zipped.push(piece);
    const zip = unzipSync(joinChunks(many(zipped)));
    expect(Object.keys(zip).sort()).toEqual(["model.mtl", "model.obj"]);
    expect(zip["model.obj"]).toEqual(whole);
  });

  it("glb: the same bytes as glTF-Transform's writer", async () => {
    const doc = await buildGltfDocument({ mesh: cubeMesh(), cloud: randomCloud(50), views: views() });
    const reference = await new NodeIO().registerExtensions([KHRMaterialsUnlit]).writeBinary(doc);
    expect(joinChunks(await glbChunks(doc))).toEqual(reference);
  });

  it("gltf: base64 cut in 3-byte-aligned pieces is the buffer's base64", async () => {
    const doc = await buildGltfDocument({ mesh: cubeMesh(), cloud: randomCloud(50), views: views() });
    const { resources } = await new NodeIO().registerExtensions([KHRMaterialsUnlit]).writeJSON(doc, { basename: "model" });
    const buffer = Object.values(resources)[0];
    const json = JSON.parse(new TextDecoder().decode(joinChunks(many(await gltfChunks(doc, 6))))) as { buffers: Array<{ uri: string; byteLength: number }> };
    expect(json.buffers).toHaveLength(1);
    expect(json.buffers[0].uri).toBe(`data:application/octet-stream;base64,${Buffer.from(buffer).toString("base64")}`);
    await expect(gltfChunks(doc, 4)).rejects.toThrow(/multiple of 3/);
  });

  it("writes chunks to a file in order, replacing what was there", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "chunks-"));
    try {
      const file = path.join(dir, "model.ply");
      const cloud = randomCloud(300, 2);
      await writeChunks(file, [new Uint8Array(5000).fill(1)]);
      const bytes = await writeChunks(file, plyChunks(cloud, 10));
      const read = new Uint8Array(await readFile(file));
      expect(bytes).toBe(read.byteLength);
      expect(read).toEqual(writePly(cloud));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
