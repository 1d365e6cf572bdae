/**
 * @module Survey stage: the raster products of a georeferenced reconstruction, both as Cloud
 * Optimized GeoTIFFs (cog.ts) at the survey's ground sampling distance:
 *
 * - `ortho`, a true orthophoto: the textured mesh seen straight down (orthographic), each pixel
 *   the texture colour of the highest surface above its centre, so buildings stand on their
 *   footprints instead of leaning as in an orthorectified photo (Amhar, Jansa and Ries, "The
 *   generation of true orthophotos using a 3D building model in conjunction with a conventional
 *   DTM", IAPRS 32(4), 1998: the z-buffer over the surface model is what removes the lean);
 *   RGBA uint8, alpha 0 where no surface was seen;
 * - `dsm`, a digital surface model: that highest surface's height per pixel centre, float32,
 *   GDAL_NODATA where unseen.
 *
 * The mesh is rasterised in strips of rows (top-view.ts); each strip feeds both writers, which
 * keep one row of tiles per overview level and append the compressed tiles to spill files
 * beside the outputs until the COGs are assembled. Memory beyond the mesh and its texture is
 * therefore about width · (28 · stripRows + 16 · tileSize) bytes: 0.18 GB at the default cap of
 * 10 000 px a side, whatever the raster's height (measured with one set of strip rows, before
 * the double buffering: 185 MB more peak RSS at 10 000², bench.ts).
 *
 * The model frame is the one the pipeline uses for a georeferenced job (raster-grid.ts): x east,
 * y up, z south, metres from `offset` = (easting, northing, height).
 */
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Mesh, ProgressFn, StageReport, TexturedMesh } from "../../scene/index.js";
import { CogWriter, type CogSpec, type CogSummary } from "./cog.js";
import { crsInfo } from "./crs.js";
import { dsmRows } from "./dsm.js";
import type { GeoReference } from "./geokeys.js";
import { orthoRows } from "./ortho.js";
import { chooseGrid, projectTopView, type GeoOffset, type SurveyGrid } from "./raster-grid.js";
import { allocateStrip, faceSpans, rasteriseStrip } from "./top-view.js";

export { CogWriter, writeCog, type CogSpec, type CogSummary, type GeoReference } from "./cog.js";
export { crsInfo, type CrsInfo } from "./crs.js";
export { chooseGrid, projectTopView, type GeoOffset, type SurveyGrid } from "./raster-grid.js";

export const NAME = "survey";

export type SurveyProduct = "ortho" | "dsm";

export interface Options {
  /** Folder the files are written to. */
  outDir: string;
  /** File names are `<baseName>-ortho.tif` and `<baseName>-dsm.tif`. */
  baseName: string;
  /** Which rasters to write. */
  products: SurveyProduct[];
  /** Tile side, pixels (GDAL's COG default 512; 256 keeps a viewer's first requests small). */
  tileSize: number;
  /** The DSM's nodata value (GDAL_NODATA), metres; far below any height on Earth. */
  nodata: number;
  /** zlib level 1–9 (6: zlib's default, within a few per cent of 9's size at a third of its time). */
  deflateLevel: number;
  /** Horizontal predictor (2 for the ortho's bytes, 3 for the DSM's floats) before DEFLATE. */
  predictor: boolean;
  /** Longest raster side, pixels; a finer GSD over a larger site is coarsened to fit (a warning says so). */
  maxRasterSide: number;
  /** Raster rows rasterised at once: bounds the strip buffers to stripRows · width · 28 bytes. */
  stripRows: number;
  /** Keep the compressed tiles in spill files in outDir until each COG is assembled (false: in memory). */
  spillTiles: boolean;
}

export const DEFAULTS: Omit<Options, "outDir"> = {
  baseName: "model",
  products: ["ortho", "dsm"],
  tileSize: 256,
  nodata: -9999,
  deflateLevel: 6,
  predictor: true,
  maxRasterSide: 10_000,
  stripRows: 512,
  spillTiles: true,
};

export interface Input {
  /** The surface; with `textured`, its mesh is the one used (the atlas splits vertices at chart seams). */
  mesh: Mesh;
  /** The photo texture; none: the ortho takes the vertex colours. */
  textured?: TexturedMesh | null;
  /** EPSG code of the projected CRS of the model frame (e.g. 32632, UTM zone 32N). */
  epsg: number;
  /** Easting, northing and height of the model frame's origin. */
  offset: GeoOffset;
  /** Ground sampling distance: the pixel side, metres. */
  gsd: number;
}

export interface SurveyFile {
  product: SurveyProduct;
  path: string;
  bytes: number;
}

export interface Output {
  files: SurveyFile[];
  /** The raster grid both files share. */
  grid: SurveyGrid;
  report: StageReport;
}

function cogSpec(product: SurveyProduct, grid: SurveyGrid, geo: GeoReference, opts: Options): CogSpec {
  const spillPath = opts.spillTiles ? path.join(opts.outDir, `.${opts.baseName}-${product}.tiles`) : undefined;
  const shared = { width: grid.width, height: grid.height, tileSize: opts.tileSize, deflateLevel: opts.deflateLevel, predictor: opts.predictor, geo, spillPath };
  return product === "ortho"
    ? { ...shared, kind: "uint8", samplesPerPixel: 4, photometric: "rgb", alpha: true }
    : { ...shared, kind: "float32", samplesPerPixel: 1, photometric: "minIsBlack", alpha: false, nodata: opts.nodata };
}

function checkInput(input: Input, opts: Options): void {
  if (!(input.gsd > 0) || !Number.isFinite(input.gsd)) throw new Error(`survey: GSD ${input.gsd} m`);
  if (!input.offset.every(Number.isFinite)) throw new Error("survey: the offset must be finite");
  if (opts.products.length === 0) throw new Error("survey: no product asked for");
  if (!(opts.stripRows >= 1)) throw new Error("survey: stripRows must be at least 1");
  if (input.textured && input.textured.mesh.faceCount !== input.textured.facePage.length) throw new Error("survey: the texture's facePage does not match its mesh");
}

/** Writes the orthophoto and the DSM of the mesh; see the module comment. */
export async function run(input: Input, options: Partial<Options> & Pick<Options, "outDir">, progress?: ProgressFn): Promise<Output> {
  const started = performance.now();
  const opts: Options = { ...DEFAULTS, ...options };
  checkInput(input, opts);
  const mesh = input.textured?.mesh ?? input.mesh;
  const crs = crsInfo(input.epsg);
  if (crs.modelType !== "projected") throw new Error(`survey: EPSG:${input.epsg} is geographic; the survey grid is in metres and needs a projected CRS`);
  const warnings: string[] = [];
  const { grid, coarsened } = chooseGrid(mesh, input.offset, input.gsd, opts.maxRasterSide);
  if (coarsened) warnings.push(`GSD ${input.gsd} m gives more than ${opts.maxRasterSide} px a side; the rasters use ${grid.pixelSize.toFixed(4)} m`);
  const geo: GeoReference = { epsg: crs.epsg, modelType: crs.modelType, originX: grid.originX, originY: grid.originY, pixelSize: grid.pixelSize, citation: crs.name };
  await mkdir(opts.outDir, { recursive: true });
  const writers = new Map<SurveyProduct, CogWriter>();
  try {
    for (const product of new Set(opts.products)) writers.set(product, new CogWriter(cogSpec(product, grid, geo, opts)));
    const { files, summaries, covered, rasterMs } = await rasterise(input, mesh, grid, opts, writers, progress);
    return { files, grid, report: buildReport(started, grid, mesh, covered, rasterMs, summaries, warnings) };
  } finally {
    // After an error the spill files go; after success finish has already freed them.
    for (const writer of writers.values()) await writer.discard();
  }
}

interface Rasterised {
  files: SurveyFile[];
  summaries: Map<SurveyProduct, CogSummary>;
  /** Pixels a surface covers. */
  covered: number;
  rasterMs: number;
}

/** Rasterises the mesh strip by strip into the writers and writes the files. */
async function rasterise(input: Input, mesh: Mesh, grid: SurveyGrid, opts: Options, writers: Map<SurveyProduct, CogWriter>, progress?: ProgressFn): Promise<Rasterised> {
  const vertices = projectTopView(mesh, input.offset, grid);
  const spans = faceSpans(mesh.indices, mesh.faceCount, vertices);
  const stripRows = Math.min(opts.stripRows, grid.height);
  const strip = allocateStrip(grid.width, stripRows);
  // Two sets of output rows: the writers deflate one strip's tiles on the thread pool while the
  // next strip is rasterised into the other set.
  const heights = [0, 1].map(() => new Float32Array(grid.width * stripRows)); // DSM rows of a strip
  const colours = [0, 1].map(() => new Uint8Array(4 * grid.width * stripRows)); // RGBA rows of a strip
  const surface = { mesh, textured: input.textured ?? null };
  let covered = 0, rasterMs = 0, k = 0;
  let writing: Promise<unknown> = Promise.resolve();
  for (let row0 = 0; row0 < grid.height; row0 += stripRows, k++) {
    const rows = Math.min(stripRows, grid.height - row0);
    const [dsmOut, orthoOut] = [heights[k % 2], colours[k % 2]];
    const rasterStarted = performance.now();
    rasteriseStrip(mesh.indices, vertices, spans, row0, rows, strip);
    covered += dsmRows(strip, input.offset[2], opts.nodata, dsmOut);
    if (writers.has("ortho")) orthoRows(strip, vertices, surface, orthoOut);
    rasterMs += performance.now() - rasterStarted;
    // The previous strip is written before this one is handed over (and before its set is reused).
    await writing;
    writing = Promise.all([writers.get("dsm")?.push(dsmOut, rows), writers.get("ortho")?.push(orthoOut, rows)]);
    progress?.(0.9 * ((row0 + rows) / grid.height));
  }
  await writing;

  const files: SurveyFile[] = [];
  const summaries = new Map<SurveyProduct, CogSummary>();
  for (const [product, writer] of writers) {
    const filePath = path.join(opts.outDir, `${opts.baseName}-${product}.tif`);
    const summary = await writer.finish(filePath);
    summaries.set(product, summary);
    files.push({ product, path: filePath, bytes: summary.bytes });
  }
  progress?.(1);
  return { files, summaries, covered, rasterMs };
}

function buildReport(started: number, grid: SurveyGrid, mesh: Mesh, covered: number, rasterMs: number, summaries: Map<SurveyProduct, CogSummary>, warnings: string[]): StageReport {
  const coverage = covered / (grid.width * grid.height);
  if (covered === 0) warnings.push("no face is visible from above: the rasters are empty");
  const counts: Record<string, number> = {
    width: grid.width,
    height: grid.height,
    gsd_m: grid.pixelSize,
    coverage,
    faces: mesh.faceCount,
    levels: summaries.values().next().value?.levels ?? 0,
    ms_raster: Math.round(rasterMs),
  };
  for (const [product, summary] of summaries) {
    counts[`tiles_${product}`] = summary.tiles;
    counts[`bytes_${product}`] = summary.bytes;
    counts[`compression_${product}`] = Math.round(100 * summary.compressionRatio) / 100;
  }
  return { stage: NAME, wallMs: performance.now() - started, counts, warnings };
}
