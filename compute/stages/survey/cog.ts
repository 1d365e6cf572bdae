/**
 * @module A Cloud Optimized GeoTIFF writer without native code: classic little-endian TIFF
 * (TIFF 6.0), square tiles, DEFLATE with the horizontal predictor, 2× overviews, GeoTIFF keys
 * (geokeys.ts), and the layout of GDAL's COG driver (https://gdal.org/drivers/raster/cog.html and
 * OGC 21-026, "Cloud Optimized GeoTIFF"):
 *
 *   header · ghost area (GDAL_STRUCTURAL_METADATA) · IFD of the full resolution · IFDs of the
 *   overviews, largest first · tiles of the smallest overview · … · tiles of the full resolution
 *
 * so that a reader fetching the first few kilobytes learns where every tile is, and the coarse
 * levels (what a viewer asks first) sit together near the front.
 *
 * Rows arrive top to bottom in blocks (`push`); each level keeps only one row of tiles
 * (cog-level.ts). The compressed tiles wait until `finish`, because the IFDs before them must
 * hold their offsets: in memory, or with `spillPath` in one spill file per level beside the
 * output (tile-sink.ts), deleted once the COG is written.
 *
 * Each tile carries GDAL's optional leader (its byte count, 4 bytes) and trailer (its last 4
 * bytes repeated), declared in the ghost area: with them GDAL reports LAYOUT=COG and a reader can
 * fetch a tile knowing only its offset. They lie outside TileOffsets/TileByteCounts, so plain
 * TIFF readers never see them.
 *
 * CONTRIBUTOR NOTES: BigTIFF is not written; a file over 4 GiB is refused (the survey stage caps
 * the raster side so that this cannot happen at its defaults).
 */
import { open } from "node:fs/promises";
import { buildLevels, type CogLevel, type LevelFormat } from "./cog-level.js";
import { BLOCK_LEADER_BYTES, BLOCK_TRAILER_BYTES, FileTileSink, MemoryTileSink } from "./tile-sink.js";
import { geoTiffEntries, type GeoReference } from "./geokeys.js";
import type { SampleKind } from "./tile-codec.js";
import { encodeIfd, ifdByteLength, TAG, TIFF_TYPE, type IfdEntry } from "./tiff-ifd.js";

export type { GeoReference } from "./geokeys.js";

export interface CogSpec {
  width: number;
  height: number;
  kind: SampleKind;
  /** 4 for RGBA (alpha last), 3 for RGB, 1 for a single band. */
  samplesPerPixel: number;
  /** RGB photometric interpretation (3 or 4 samples) or one grey / data band. */
  photometric: "rgb" | "minIsBlack";
  /** The last sample is unassociated alpha (ExtraSamples = 2, TIFF 6.0 section 18). */
  alpha: boolean;
  /** Written as GDAL_NODATA (float32 rasters); pads edge tiles and marks empty overview pixels. */
  nodata?: number;
  /** Tile side in pixels, a multiple of 16 (TIFF 6.0 section 15). */
  tileSize: number;
  /** zlib level 0–9. */
  deflateLevel: number;
  /** Predictor 2 (uint8) or 3 (float32); false: none. */
  predictor: boolean;
  geo: GeoReference;
  /** Keep the compressed tiles in files `<spillPath>.<level>` until `finish` instead of in memory. */
  spillPath?: string;
}

export interface CogSummary {
  bytes: number;
  /** Levels including the full resolution (overviews = levels − 1). */
  levels: number;
  tiles: number;
  /** Raw bytes of the tiles over their stored bytes. */
  compressionRatio: number;
}

/** TIFF Compression 8: "Adobe Deflate" (zlib), the code GDAL writes for COMPRESS=DEFLATE. */
const COMPRESSION_DEFLATE = 8;
const PHOTOMETRIC = { minIsBlack: 1, rgb: 2 } as const;
const SAMPLE_FORMAT = { uint8: 1, float32: 3 } as const;
const EXTRA_SAMPLE_UNASSOCIATED_ALPHA = 2;
const TIFF_HEADER_BYTES = 8;
const CLASSIC_TIFF_LIMIT = 2 ** 32;

/** GDAL's ghost area: what a reader may rely on about the layout (GDAL COG driver, "Header ghost area"). */
function ghostArea(): string {
  const body = "LAYOUT=IFDS_BEFORE_DATA\nBLOCK_ORDER=ROW_MAJOR\nBLOCK_LEADER=SIZE_AS_UINT4\nBLOCK_TRAILER=LAST_4_BYTES_REPEATED\nKNOWN_INCOMPATIBLE_EDITION=NO\n";
  const text = `GDAL_STRUCTURAL_METADATA_SIZE=${String(body.length).padStart(6, "0")} bytes\n${body}`;
  return text.length % 2 === 0 ? text : text + " "; // the first IFD must start on a word boundary
}

function checkSpec(spec: CogSpec): void {
  const { width, height, tileSize, samplesPerPixel, kind, photometric, alpha } = spec;
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) throw new Error(`survey: a raster of ${width} × ${height}`);
  if (!(tileSize >= 16 && tileSize % 16 === 0)) throw new Error(`survey: tile side ${tileSize} is not a multiple of 16`);
  if (photometric === "rgb" && samplesPerPixel !== (alpha ? 4 : 3)) throw new Error("survey: an RGB raster has 3 samples, or 4 with alpha");
  if (photometric === "minIsBlack" && samplesPerPixel !== (alpha ? 2 : 1)) throw new Error("survey: a single-band raster has 1 sample, or 2 with alpha");
  if (kind === "float32" && spec.nodata === undefined) throw new Error("survey: a float32 raster needs a nodata value");
}

export class CogWriter {
  private readonly levels: CogLevel[];
  private readonly format: LevelFormat;

  constructor(private readonly spec: CogSpec) {
    checkSpec(spec);
    this.format = {
      kind: spec.kind,
      samplesPerPixel: spec.samplesPerPixel,
      alpha: spec.alpha,
      tileSize: spec.tileSize,
      fill: spec.nodata ?? 0,
      predict: spec.predictor,
      deflateLevel: spec.deflateLevel,
    };
    const { spillPath } = spec;
    this.levels = buildLevels(spec.width, spec.height, this.format, (level) => (spillPath ? new FileTileSink(`${spillPath}.${level}`) : new MemoryTileSink()));
  }

  /** Appends `rows` full-resolution rows (width · samplesPerPixel samples each, interleaved); `data` may be reused once it settles. */
  async push(data: Uint8Array | Float32Array, rows: number): Promise<void> {
    if ((this.spec.kind === "uint8") !== data instanceof Uint8Array) throw new Error(`survey: rows of the wrong sample type for a ${this.spec.kind} raster`);
    await this.levels[0].push(data, rows);
  }

  /** The tags of one level's IFD, with its tile offsets. */
  private entries(level: number, offsets: ArrayLike<number>, byteCounts: ArrayLike<number>): IfdEntry[] {
    const { spec } = this;
    const { width, height } = this.levels[level];
    const bits = spec.kind === "uint8" ? 8 : 32;
    const perSample = (value: number): number[] => new Array(spec.samplesPerPixel).fill(value);
    const entries: IfdEntry[] = [
      // 0 for the full resolution, 1 ("reduced-resolution version of another image") for overviews.
      { tag: TAG.NewSubfileType, type: TIFF_TYPE.LONG, values: [level === 0 ? 0 : 1] },
      { tag: TAG.ImageWidth, type: TIFF_TYPE.LONG, values: [width] },
      { tag: TAG.ImageLength, type: TIFF_TYPE.LONG, values: [height] },
      { tag: TAG.BitsPerSample, type: TIFF_TYPE.SHORT, values: perSample(bits) },
      { tag: TAG.Compression, type: TIFF_TYPE.SHORT, values: [COMPRESSION_DEFLATE] },
      { tag: TAG.PhotometricInterpretation, type: TIFF_TYPE.SHORT, values: [PHOTOMETRIC[spec.photometric]] },
      { tag: TAG.SamplesPerPixel, type: TIFF_TYPE.SHORT, values: [spec.samplesPerPixel] },
      { tag: TAG.PlanarConfiguration, type: TIFF_TYPE.SHORT, values: [1] }, // chunky: RGBARGBA…
      { tag: TAG.TileWidth, type: TIFF_TYPE.SHORT, values: [spec.tileSize] },
      { tag: TAG.TileLength, type: TIFF_TYPE.SHORT, values: [spec.tileSize] },
      { tag: TAG.TileOffsets, type: TIFF_TYPE.LONG, values: offsets },
      { tag: TAG.TileByteCounts, type: TIFF_TYPE.LONG, values: byteCounts },
      { tag: TAG.SampleFormat, type: TIFF_TYPE.SHORT, values: perSample(SAMPLE_FORMAT[spec.kind]) },
    ];
    if (spec.predictor) entries.push({ tag: TAG.Predictor, type: TIFF_TYPE.SHORT, values: [spec.kind === "uint8" ? 2 : 3] });
    if (spec.alpha) entries.push({ tag: TAG.ExtraSamples, type: TIFF_TYPE.SHORT, values: [EXTRA_SAMPLE_UNASSOCIATED_ALPHA] });
    // GDAL writes its nodata text on every level, so a reader of one overview alone knows it too.
    if (spec.nodata !== undefined) entries.push({ tag: TAG.GdalNodata, type: TIFF_TYPE.ASCII, values: String(spec.nodata) });
    if (level === 0) entries.push(...geoTiffEntries(spec.geo));
    return entries;
  }

  /** Writes the file (replacing it) once every row has been pushed. */
  async finish(filePath: string): Promise<CogSummary> {
    if (!this.levels.every((level) => level.complete)) throw new Error("survey: finish called before every row was pushed");
    const ghost = ghostArea();
    const firstIfd = TIFF_HEADER_BYTES + ghost.length;
    // The IFDs' sizes do not depend on the offsets they hold: lay them out with zeros first.
    const ifdAt: number[] = [];
    let at = firstIfd;
    this.levels.forEach((level, i) => {
      ifdAt.push(at);
      const zeros = new Array<number>(level.tileBytes.length).fill(0);
      at += ifdByteLength(this.entries(i, zeros, zeros));
    });
    // Tile data: the smallest overview first, the full resolution last (COG layout).
    for (const level of this.levels) {
      const framedBytes = level.tileBytes.reduce((sum, bytes) => sum + BLOCK_LEADER_BYTES + bytes + BLOCK_TRAILER_BYTES, 0);
      if (level.sink.bytes !== framedBytes) throw new Error(`survey: a level's sink holds ${level.sink.bytes} bytes, its tiles ${framedBytes}`);
    }
    const offsets = this.levels.map((level) => new Array<number>(level.tileBytes.length));
    for (let i = this.levels.length - 1; i >= 0; i--) {
      this.levels[i].tileBytes.forEach((bytes, t) => {
        offsets[i][t] = at + BLOCK_LEADER_BYTES; // the tile's own bytes, after its leader
        at += BLOCK_LEADER_BYTES + bytes + BLOCK_TRAILER_BYTES;
      });
    }
    if (at >= CLASSIC_TIFF_LIMIT) {
      await this.discard();
      throw new Error(`survey: ${at} bytes need BigTIFF, which this writer does not write; use a coarser pixel size`);
    }
    const head = new Uint8Array(firstIfd);
    const view = new DataView(head.buffer);
    head.set([0x49, 0x49], 0); // "II": little-endian
    view.setUint16(2, 42, true);
    view.setUint32(4, firstIfd, true);
    for (let i = 0; i < ghost.length; i++) head[TIFF_HEADER_BYTES + i] = ghost.charCodeAt(i);
    const ifds = this.levels.map((level, i) => encodeIfd(this.entries(i, offsets[i], level.tileBytes), ifdAt[i], i + 1 < this.levels.length ? ifdAt[i + 1] : 0));
    const handle = await open(filePath, "w");
    try {
      await handle.writev([head, ...ifds]);
      for (let i = this.levels.length - 1; i >= 0; i--) await this.levels[i].sink.copyTo(handle);
    } finally {
      await handle.close();
      await this.discard();
    }
    return this.summary(at);
  }

  /** Frees the encoded tiles (deletes the spill files); after an error, or done by `finish`. */
  async discard(): Promise<void> {
    for (const level of this.levels) await level.sink.discard();
  }

  private summary(bytes: number): CogSummary {
    const sampleBytes = this.spec.kind === "uint8" ? 1 : 4;
    const tileBytes = this.spec.tileSize ** 2 * this.spec.samplesPerPixel * sampleBytes;
    let tiles = 0, stored = 0;
    for (const level of this.levels) {
      tiles += level.tileBytes.length;
      for (const bytes of level.tileBytes) stored += bytes;
    }
    return { bytes, levels: this.levels.length, tiles, compressionRatio: stored > 0 ? (tiles * tileBytes) / stored : 0 };
  }
}

/** A whole raster in memory written as a COG (tests, small rasters). */
export async function writeCog(filePath: string, spec: CogSpec, data: Uint8Array | Float32Array): Promise<CogSummary> {
  const writer = new CogWriter(spec);
  await writer.push(data, spec.height);
  return writer.finish(filePath);
}
