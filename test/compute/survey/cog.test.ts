/**
 * The COG writer alone, read back with geotiff.js (an independent reader): gradients of uint8
 * RGBA and float32 round-trip exactly through predictor + DEFLATE, the overviews are the 2×
 * means, the GeoKeys and the COG layout (IFDs first, smallest overview's tiles first) hold.
 */
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fromFile, type GeoTIFFImage } from "geotiff";
import { beforeAll, describe, expect, it } from "vitest";
import { CogWriter, writeCog, type CogSpec } from "../../../compute/stages/survey/index.js";

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "cog-"));
});

const GEO = { epsg: 32632, modelType: "projected" as const, originX: 500_012.5, originY: 5_200_300, pixelSize: 0.25, citation: "WGS 84 / UTM zone 32N" };

function rgbaGradient(width: number, height: number): Uint8Array {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = 4 * (y * width + x);
      data.set([x % 256, y % 256, (x * 7 + y * 3) % 256, x < 10 && y < 10 ? 0 : 255], at);
    }
  }
  return data;
}

function floatGradient(width: number, height: number, nodata: number): Float32Array {
  const data = new Float32Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[y * width + x] = (x + y) % 17 === 0 ? nodata : 400 + 0.013 * x - 0.0071 * y + 1e-4 * ((x * y) % 13);
  return data;
}

const rgbaSpec = (width: number, height: number, tileSize: number): CogSpec => ({ width, height, kind: "uint8", samplesPerPixel: 4, photometric: "rgb", alpha: true, tileSize, deflateLevel: 6, predictor: true, geo: GEO });
const floatSpec = (width: number, height: number, tileSize: number, predictor = true): CogSpec => ({ width, height, kind: "float32", samplesPerPixel: 1, photometric: "minIsBlack", alpha: false, nodata: -9999, tileSize, deflateLevel: 6, predictor, geo: GEO });

async function offsetsOf(image: GeoTIFFImage): Promise<{ offsets: number[]; counts: number[] }> {
  const fd = image.getFileDirectory();
  const values = async (tag: "TileOffsets" | "TileByteCounts"): Promise<number[]> => Array.from(((await fd.loadValue(tag)) ?? []) as ArrayLike<number>);
  return { offsets: await values("TileOffsets"), counts: await values("TileByteCounts") };
}

describe("COG writer", () => {
  it("round-trips a uint8 RGBA gradient exactly, with 2× mean overviews until one tile", async () => {
    const [width, height, tile] = [300, 200, 64];
    const data = rgbaGradient(width, height);
    const file = path.join(dir, "rgba.tif");
    const summary = await writeCog(file, rgbaSpec(width, height, tile), data);
    expect(summary.levels).toBe(4); // 300×200 → 150×100 → 75×50 → 38×25
    const tiff = await fromFile(file);
    expect(await tiff.getImageCount()).toBe(4);
    const image = await tiff.getImage(0);
    expect([image.getWidth(), image.getHeight(), image.getSamplesPerPixel(), image.getTileWidth()]).toEqual([300, 200, 4, 64]);
    const read = (await image.readRasters({ interleave: true })) as unknown as Uint8Array;
    expect(Buffer.from(read).equals(Buffer.from(data))).toBe(true);
    expect(image.getFileDirectory().getValue("Compression")).toBe(8);
    expect(await image.getFileDirectory().loadValue("Predictor")).toBe(2);
    expect(Array.from((await image.getFileDirectory().loadValue("ExtraSamples")) as ArrayLike<number>)).toEqual([2]);

    // The first overview: at opaque blocks the plain mean of the 2×2 pixels, rounded.
    const overview = await tiff.getImage(1);
    expect([overview.getWidth(), overview.getHeight()]).toEqual([150, 100]);
    expect(overview.getFileDirectory().getValue("NewSubfileType")).toBe(1);
    const reduced = (await overview.readRasters({ interleave: true })) as unknown as Uint8Array;
    for (const [ox, oy] of [[10, 10], [77, 33], [149, 99], [120, 5]]) {
      for (let s = 0; s < 4; s++) {
        let sum = 0;
        for (const [dx, dy] of [[0, 0], [1, 0], [0, 1], [1, 1]]) sum += data[4 * ((2 * oy + dy) * width + 2 * ox + dx) + s];
        expect(reduced[4 * (oy * 150 + ox) + s]).toBe(Math.round(sum / 4));
      }
    }
    // Fully transparent blocks stay transparent.
    expect(reduced[4 * (2 * 150 + 2) + 3]).toBe(0);
    const smallest = await tiff.getImage(3);
    expect([smallest.getWidth(), smallest.getHeight()]).toEqual([38, 25]);
  });

  it("round-trips float32 heights exactly through the floating-point predictor, with GDAL_NODATA", async () => {
    const [width, height, tile] = [333, 129, 128];
    const data = floatGradient(width, height, -9999);
    for (const predictor of [true, false]) {
      const file = path.join(dir, `dsm-${predictor}.tif`);
      const summary = await writeCog(file, floatSpec(width, height, tile, predictor), data);
      const tiff = await fromFile(file);
      const image = await tiff.getImage(0);
      expect((await image.getFileDirectory().loadValue("Predictor")) ?? 1).toBe(predictor ? 3 : 1);
      expect(image.getGDALNoData()).toBe(-9999);
      expect(image.getSampleFormat()).toBe(3);
      const [band] = (await image.readRasters()) as unknown as Float32Array[];
      expect(band).toBeInstanceOf(Float32Array);
      expect(Buffer.from(band.buffer, band.byteOffset, band.byteLength).equals(Buffer.from(data.buffer))).toBe(true);
      expect(summary.compressionRatio).toBeGreaterThan(1);
    }
    const tiff = await fromFile(path.join(dir, "dsm-true.tif"));
    expect(await tiff.getImageCount()).toBe(3); // 333×129 → 167×65 → 84×33
    const [overview] = (await (await tiff.getImage(1)).readRasters()) as unknown as Float32Array[];
    // Block (0, 0) holds one nodata pixel (x + y = 0): the mean of the other three.
    const expected = (data[1] + data[width] + data[width + 1]) / 3;
    expect(overview[0]).toBeCloseTo(expected, 4);
  });

  it("writes the GeoKeys: EPSG code, projected model, pixel-is-area, origin and resolution", async () => {
    const file = path.join(dir, "geo.tif");
    await writeCog(file, floatSpec(40, 30, 16), floatGradient(40, 30, -9999));
    const image = await (await fromFile(file)).getImage(0);
    const keys = image.getGeoKeys();
    expect(keys).toMatchObject({ GTModelTypeGeoKey: 1, GTRasterTypeGeoKey: 1, ProjectedCSTypeGeoKey: 32632, GTCitationGeoKey: "WGS 84 / UTM zone 32N" });
    expect(image.pixelIsArea()).toBe(true);
    expect(image.getOrigin()).toEqual([500_012.5, 5_200_300, 0]);
    expect(image.getResolution()).toEqual([0.25, -0.25, 0]);
    expect(image.getBoundingBox()).toEqual([500_012.5, 5_200_300 - 30 * 0.25, 500_012.5 + 40 * 0.25, 5_200_300]);
  });

  it("lays the file out as a COG: IFDs first, then the tiles, smallest overview first", async () => {
    const file = path.join(dir, "layout.tif");
    await writeCog(file, rgbaSpec(300, 200, 64), rgbaGradient(300, 200));
    const bytes = await readFile(file);
    expect(bytes.subarray(0, 4).equals(Buffer.from([0x49, 0x49, 42, 0]))).toBe(true);
    const ghost = bytes.subarray(8, 200).toString("latin1");
    expect(ghost).toMatch(/^GDAL_STRUCTURAL_METADATA_SIZE=\d{6} bytes\nLAYOUT=IFDS_BEFORE_DATA\nBLOCK_ORDER=ROW_MAJOR\nBLOCK_LEADER=SIZE_AS_UINT4\nBLOCK_TRAILER=LAST_4_BYTES_REPEATED\n/);
    const tiff = await fromFile(file);
    const levels = await Promise.all([0, 1, 2, 3].map(async (i) => offsetsOf(await tiff.getImage(i))));
    const firstIfd = bytes.readUInt32LE(4);
    let ifdEnd = firstIfd, next = firstIfd;
    while (next !== 0) {
      const entries = bytes.readUInt16LE(next);
      ifdEnd = Math.max(ifdEnd, next + 2 + 12 * entries + 4);
      next = bytes.readUInt32LE(next + 2 + 12 * entries);
    }
    const firstTile = Math.min(...levels.flatMap((l) => l.offsets));
    expect(ifdEnd).toBeLessThanOrEqual(firstTile);
    // Each level's tiles lie after the next smaller level's, row-major within a level.
    for (let i = 0; i < 3; i++) expect(Math.min(...levels[i].offsets)).toBeGreaterThan(Math.max(...levels[i + 1].offsets));
    // Between tiles: GDAL's 4-byte leader (the byte count) and trailer (the last 4 bytes again).
    for (const level of levels) {
      for (let t = 0; t < level.offsets.length; t++) {
        const [offset, count] = [level.offsets[t], level.counts[t]];
        if (t > 0) expect(offset).toBe(level.offsets[t - 1] + level.counts[t - 1] + 8);
        expect(bytes.readUInt32LE(offset - 4)).toBe(count);
        expect(bytes.subarray(offset + count, offset + count + 4).equals(bytes.subarray(offset + count - 4, offset + count))).toBe(true);
      }
    }
    const last = levels[0];
    expect(last.offsets.at(-1)! + last.counts.at(-1)! + 4).toBe(bytes.byteLength);
    // Compressed: every tile smaller than its 64 × 64 × 4 raw bytes.
    for (const level of levels) for (const count of level.counts) expect(count).toBeLessThan(64 * 64 * 4);
    expect(levels[0].offsets.length).toBe(5 * 4);
  });

  it("gives the same bytes whether the rows come at once or in odd blocks", async () => {
    const [width, height] = [150, 140];
    const data = floatGradient(width, height, -9999);
    const whole = path.join(dir, "whole.tif"), blocks = path.join(dir, "blocks.tif");
    await writeCog(whole, floatSpec(width, height, 32), data);
    const writer = new CogWriter(floatSpec(width, height, 32));
    for (let y = 0; y < height; y += 7) {
      const rows = Math.min(7, height - y);
      await writer.push(data.subarray(y * width, (y + rows) * width), rows);
    }
    await writer.finish(blocks);
    expect((await readFile(whole)).equals(await readFile(blocks))).toBe(true);
  });

  it("gives the same bytes with the tiles spilled to files, and deletes the spill files", async () => {
    const data = rgbaGradient(300, 200);
    const inMemory = path.join(dir, "memory.tif"), spilled = path.join(dir, "spilled.tif");
    await writeCog(inMemory, rgbaSpec(300, 200, 64), data);
    const spillPath = path.join(dir, ".spilled.tiles");
    const summary = await writeCog(spilled, { ...rgbaSpec(300, 200, 64), spillPath }, data);
    expect(summary.levels).toBe(4);
    expect((await readFile(inMemory)).equals(await readFile(spilled))).toBe(true);
    expect((await readdir(dir)).filter((name) => name.startsWith(".spilled.tiles"))).toEqual([]);
  });

  it("refuses to finish before every row is pushed", async () => {
    const writer = new CogWriter(floatSpec(20, 20, 16));
    await writer.push(new Float32Array(20 * 10), 10);
    await expect(writer.finish(path.join(dir, "short.tif"))).rejects.toThrow(/before every row/);
  });
});
