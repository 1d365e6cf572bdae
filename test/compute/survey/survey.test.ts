/**
 * The survey stage on a synthetic site (synthetic.ts) with known ground truth, read back with
 * geotiff.js: georeferencing, overviews, compression, DSM heights within 1 mm, nodata outside
 * the mesh, and a true orthophoto (the roof's checkerboard exactly on the building's footprint).
 */
import { mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fromFile, type GeoTIFF, type GeoTIFFImage } from "geotiff";
import { beforeAll, describe, expect, it } from "vitest";
import { run, type Output } from "../../../compute/stages/survey/index.js";
import { COLOURS, EPSG, groundUp, insideGround, OFFSET, ROOF, roofColourAt, surveySite } from "./synthetic.js";

const GSD = 0.1;
const NODATA = -9999;

interface Raster {
  tiff: GeoTIFF;
  image: GeoTIFFImage;
  width: number;
  height: number;
  /** Local easting and northing (from OFFSET) of pixel (col, row)'s centre, from the file's own georeferencing. */
  centre: (col: number, row: number) => [number, number];
}

async function open(file: string): Promise<Raster> {
  const tiff = await fromFile(file);
  const image = await tiff.getImage(0);
  const [ox, oy] = image.getOrigin();
  const [rx, ry] = image.getResolution();
  return { tiff, image, width: image.getWidth(), height: image.getHeight(), centre: (col, row) => [ox + (col + 0.5) * rx - OFFSET[0], oy + (row + 0.5) * ry - OFFSET[1]] };
}

const insideRoof = (e: number, n: number, margin = 0): boolean => e > ROOF.e0 + margin && e < ROOF.e1 - margin && n > ROOF.n0 + margin && n < ROOF.n1 - margin;
const isRoofColour = (rgb: ArrayLike<number>): boolean => rgb[0] > 150 && rgb[2] < 100;

let out: Output;
let outDir = "";
const fractions: number[] = [];
let ortho: Raster, dsm: Raster;
let rgba: Uint8Array, heights: Float32Array;

beforeAll(async () => {
  outDir = await mkdtemp(path.join(tmpdir(), "survey-"));
  const site = surveySite();
  // Strips of 37 rows: several strips, none aligned with a tile, so their seams are tested too.
  out = await run({ mesh: site.mesh, textured: site, epsg: EPSG, offset: OFFSET, gsd: GSD }, { outDir, tileSize: 128, stripRows: 37 }, (f) => fractions.push(f));
  ortho = await open(out.files.find((f) => f.product === "ortho")!.path);
  dsm = await open(out.files.find((f) => f.product === "dsm")!.path);
  rgba = (await ortho.image.readRasters({ interleave: true })) as unknown as Uint8Array;
  heights = ((await dsm.image.readRasters()) as unknown as Float32Array[])[0];
});

describe("survey stage: ortho and DSM of a textured mesh", () => {
  it("georeferences both rasters in EPSG:32632 on the GSD grid around the mesh", () => {
    for (const raster of [ortho, dsm]) {
      expect(raster.image.getGeoKeys()).toMatchObject({ GTModelTypeGeoKey: 1, GTRasterTypeGeoKey: 1, ProjectedCSTypeGeoKey: EPSG });
      const [ox, oy] = raster.image.getOrigin();
      // The ground spans easting 10…50 and northing 20…60 from the offset; the corner snaps to the GSD grid.
      expect(ox).toBeCloseTo(OFFSET[0] + 10, 6);
      expect(oy).toBeCloseTo(OFFSET[1] + 60, 6);
      const [rx, ry] = raster.image.getResolution();
      expect(rx).toBeCloseTo(GSD, 12);
      expect(ry).toBeCloseTo(-GSD, 12);
      expect([raster.width, raster.height]).toEqual([400, 400]);
    }
    expect(out.grid).toMatchObject({ width: 400, height: 400 });
  });

  it("reports its progress strip by strip, rising to 1", () => {
    expect(fractions.length).toBe(Math.ceil(400 / 37) + 1);
    for (let i = 1; i < fractions.length; i++) expect(fractions[i]).toBeGreaterThan(fractions[i - 1]);
    expect(fractions.at(-1)).toBe(1);
  });

  it("leaves only the two files in the output folder (the tiles' spill files are gone)", async () => {
    expect((await readdir(outDir)).sort()).toEqual(["model-dsm.tif", "model-ortho.tif"]);
  });

  it("writes tiled, compressed COGs with overviews down to one tile", async () => {
    for (const raster of [ortho, dsm]) {
      expect(await raster.tiff.getImageCount()).toBe(3); // 400 → 200 → 100 (≤ 128)
      const fd = raster.image.getFileDirectory();
      expect(fd.getValue("Compression")).toBe(8);
      expect([raster.image.getTileWidth(), raster.image.getTileHeight()]).toEqual([128, 128]);
      const counts = Array.from(((await fd.loadValue("TileByteCounts")) ?? []) as ArrayLike<number>);
      expect(counts.length).toBe(16);
      const rawTileBytes = 128 * 128 * 4; // RGBA bytes or float32 heights alike
      for (const count of counts) expect(count).toBeLessThan(rawTileBytes / 4);
    }
    expect(dsm.image.getGDALNoData()).toBe(NODATA);
    expect(out.report.counts).toMatchObject({ width: 400, height: 400, levels: 3, tiles_ortho: 16 + 4 + 1, tiles_dsm: 21 });
  });

  it("gives the roof's height over the footprint and the ground's plane elsewhere, within 1 mm", () => {
    let roof = 0, ground = 0;
    for (let row = 0; row < dsm.height; row++) {
      for (let col = 0; col < dsm.width; col++) {
        const [e, n] = dsm.centre(col, row);
        const h = heights[row * dsm.width + col];
        if (insideRoof(e, n)) {
          expect(Math.abs(h - (OFFSET[2] + ROOF.up))).toBeLessThan(1e-3);
          roof++;
        } else if (insideGround(e, n, GSD)) {
          expect(Math.abs(h - (OFFSET[2] + groundUp(e, n)))).toBeLessThan(1e-3);
          ground++;
        } else if (!insideGround(e, n, -GSD)) {
          expect(h).toBe(NODATA);
        }
      }
    }
    expect(roof).toBe(100 * 100); // a 10 m square at 0.1 m
    expect(ground).toBeGreaterThan(100_000);
  });

  it("keeps the roof's height and the nodata corners in the DSM's overviews", async () => {
    const overview = await dsm.tiff.getImage(1);
    expect([overview.getWidth(), overview.getHeight()]).toEqual([200, 200]);
    const [coarse] = (await overview.readRasters()) as unknown as Float32Array[];
    // Overview pixel (100, 100) is the mean of full-resolution pixels 200–201, all on the roof.
    expect(Math.abs(coarse[100 * 200 + 100] - (OFFSET[2] + ROOF.up))).toBeLessThan(1e-3);
    expect(coarse[0]).toBe(NODATA);
    expect(coarse[199 * 200 + 199]).toBe(NODATA);
  });

  it("marks the pixels outside the mesh as nodata and transparent, and reports the coverage", () => {
    let outside = 0;
    for (let row = 0; row < dsm.height; row++) {
      for (let col = 0; col < dsm.width; col++) {
        const [e, n] = dsm.centre(col, row);
        if (insideGround(e, n, -GSD)) continue;
        outside++;
        expect(heights[row * dsm.width + col]).toBe(NODATA);
        expect(rgba[4 * (row * ortho.width + col) + 3]).toBe(0);
      }
    }
    expect(outside).toBeGreaterThan(5000); // the corners of the raster beyond the slanted ground edges
    // The quadrilateral covers 1336 m² of the 1600 m² raster (shoelace formula: ½ · 2672).
    expect(out.report.counts.coverage).toBeCloseTo(1336 / 1600, 3);
  });

  it("puts the roof's colour exactly on the building's footprint: a true orthophoto, no lean", () => {
    let minCol = Infinity, maxCol = -Infinity, minRow = Infinity, maxRow = -Infinity;
    for (let row = 0; row < ortho.height; row++) {
      for (let col = 0; col < ortho.width; col++) {
        const at = 4 * (row * ortho.width + col);
        const pixel = rgba.subarray(at, at + 4);
        const [e, n] = ortho.centre(col, row);
        // No wall (blue) is ever seen from straight above.
        expect(pixel[2] > 150 && pixel[0] < 100).toBe(false);
        if (!isRoofColour(pixel)) continue;
        minCol = Math.min(minCol, col);
        maxCol = Math.max(maxCol, col);
        minRow = Math.min(minRow, row);
        maxRow = Math.max(maxRow, row);
        expect(insideRoof(e, n)).toBe(true);
        expect(pixel[3]).toBe(255);
      }
    }
    // Footprint easting 25…35 → columns 150…249; northing 45…35 → rows 150…249 (row 0 is north).
    expect([minCol, maxCol, minRow, maxRow]).toEqual([150, 249, 150, 249]);
  });

  it("samples the roof's texture the right way round and the ground's colour around it", () => {
    for (let row = 0; row < ortho.height; row += 3) {
      for (let col = 0; col < ortho.width; col += 3) {
        const [e, n] = ortho.centre(col, row);
        const at = 4 * (row * ortho.width + col);
        const pixel = Array.from(rgba.subarray(at, at + 3));
        // Away from the checker's cell edges (bilinear mixes within half a texel of them).
        const cellE = ((e - ROOF.e0) / 2.5) % 1, cellN = ((ROOF.n1 - n) / 2.5) % 1;
        if (insideRoof(e, n, 0.3) && Math.min(cellE, 1 - cellE, cellN, 1 - cellN) > 0.1) expect(pixel).toEqual(Array.from(roofColourAt(e, n)));
        else if (insideGround(e, n, GSD) && !insideRoof(e, n, -GSD)) expect(pixel).toEqual(Array.from(COLOURS.green));
      }
    }
  });

  it("keeps the highest surface whatever order the faces are drawn in", async () => {
    const site = surveySite();
    const faces = site.mesh.faceCount;
    const indices = new Uint32Array(3 * faces), facePage = new Uint16Array(faces);
    for (let f = 0; f < faces; f++) {
      indices.set(site.mesh.indices.subarray(3 * (faces - 1 - f), 3 * (faces - f)), 3 * f);
      facePage[f] = site.facePage[faces - 1 - f];
    }
    const reversed = { ...site, mesh: { ...site.mesh, indices }, facePage };
    const dir = await mkdtemp(path.join(tmpdir(), "survey-reversed-"));
    const again = await run({ mesh: reversed.mesh, textured: reversed, epsg: EPSG, offset: OFFSET, gsd: GSD }, { outDir: dir, tileSize: 128 });
    const raster = await open(again.files.find((f) => f.product === "dsm")!.path);
    const [reread] = (await raster.image.readRasters()) as unknown as Float32Array[];
    expect(Buffer.from(reread.buffer, reread.byteOffset, reread.byteLength).equals(Buffer.from(heights.buffer, heights.byteOffset, heights.byteLength))).toBe(true);
  });

  it("colours an untextured mesh with its vertex colours", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "survey-plain-"));
    const site = surveySite(COLOURS.orange);
    const plain = await run({ mesh: site.mesh, textured: null, epsg: EPSG, offset: OFFSET, gsd: 0.5 }, { outDir: dir, products: ["ortho"] });
    expect(plain.files.map((f) => f.product)).toEqual(["ortho"]);
    const raster = await open(plain.files[0].path);
    const pixels = (await raster.image.readRasters({ interleave: true })) as unknown as Uint8Array;
    const [roofCol, roofRow] = [Math.floor((30 - 10) / 0.5), Math.floor((60 - 40) / 0.5)];
    expect(Array.from(pixels.subarray(4 * (roofRow * raster.width + roofCol), 4 * (roofRow * raster.width + roofCol) + 4))).toEqual([...COLOURS.orange, 255]);
    const [groundCol, groundRow] = [Math.floor((20 - 10) / 0.5), Math.floor((60 - 30) / 0.5)];
    expect(Array.from(pixels.subarray(4 * (groundRow * raster.width + groundCol), 4 * (groundRow * raster.width + groundCol) + 4))).toEqual([...COLOURS.green, 255]);
  });

  it("coarsens a GSD that would exceed the largest raster side, and says so", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "survey-cap-"));
    const site = surveySite();
    const capped = await run({ mesh: site.mesh, textured: site, epsg: EPSG, offset: OFFSET, gsd: 0.01 }, { outDir: dir, maxRasterSide: 300 });
    expect(Math.max(capped.grid.width, capped.grid.height)).toBeLessThanOrEqual(300);
    expect(capped.grid.pixelSize).toBeGreaterThan(0.13);
    expect(capped.report.warnings.join(" ")).toMatch(/more than 300 px/);
  });

  it("refuses a geographic CRS and an unknown EPSG code", async () => {
    const site = surveySite();
    const dir = await mkdtemp(path.join(tmpdir(), "survey-crs-"));
    await expect(run({ mesh: site.mesh, textured: site, epsg: 4326, offset: OFFSET, gsd: GSD }, { outDir: dir })).rejects.toThrow(/geographic/);
    await expect(run({ mesh: site.mesh, textured: site, epsg: 999_999, offset: OFFSET, gsd: GSD }, { outDir: dir })).rejects.toThrow(/not a known/);
  });
});
