/**
 * @module One resolution level of a Cloud Optimized GeoTIFF being written: it takes its rows
 * top to bottom in blocks of any height, cuts every completed row of tiles, encodes each tile
 * (tile-codec.ts) and hands it to its sink (tile-sink.ts), and hands the 2× reduction of those
 * rows to the next (coarser) level. The raster therefore never stands whole in memory: a level
 * holds one row of tiles (tileSize rows × its width).
 */
import { reduceRows } from "./overview.js";
import { deflateTile, predictTile, type SampleKind } from "./tile-codec.js";
import type { TileSink } from "./tile-sink.js";

/** What every level of one file shares. */
export interface LevelFormat {
  kind: SampleKind;
  samplesPerPixel: number;
  /** The last sample is an alpha channel (weights the colour means of the overviews). */
  alpha: boolean;
  tileSize: number;
  /** Value of the padding of partial edge tiles and of overview pixels with no valid source (float32). */
  fill: number;
  predict: boolean;
  deflateLevel: number;
}

export class CogLevel {
  readonly tilesAcross: number;
  readonly tilesDown: number;
  /** Byte count of each encoded tile, row-major (TIFF 6.0 section 15: "tiles are ordered left-to-right and top-to-bottom"). */
  readonly tileBytes: number[] = [];
  /** Rows of the current row of tiles: tileSize · width · samplesPerPixel samples. */
  private readonly band: Uint8Array | Float32Array;
  /** One tile being cut from `band`: tileSize² · samplesPerPixel samples. */
  private readonly tile: Uint8Array | Float32Array;
  private bandRows = 0;
  private rowsDone = 0;

  constructor(
    readonly width: number,
    readonly height: number,
    private readonly format: LevelFormat,
    private readonly next: CogLevel | null,
    /** Where the encoded tiles go, in order. */
    readonly sink: TileSink,
  ) {
    const { tileSize, samplesPerPixel, kind } = format;
    this.tilesAcross = Math.ceil(width / tileSize);
    this.tilesDown = Math.ceil(height / tileSize);
    const bandSamples = tileSize * width * samplesPerPixel, tileSamples = tileSize * tileSize * samplesPerPixel;
    this.band = kind === "uint8" ? new Uint8Array(bandSamples) : new Float32Array(bandSamples);
    this.tile = kind === "uint8" ? new Uint8Array(tileSamples) : new Float32Array(tileSamples);
  }

  get complete(): boolean {
    return this.rowsDone === this.height;
  }

  /**
   * Appends `rows` rows (row-major, width · samplesPerPixel samples each) below those given
   * before. `data` may be reused once the promise settles.
   */
  async push(data: Uint8Array | Float32Array, rows: number): Promise<void> {
    const rowSamples = this.width * this.format.samplesPerPixel;
    if (data.length < rows * rowSamples) throw new Error("survey: a block of rows is shorter than its row count");
    if (this.rowsDone + rows > this.height) throw new Error(`survey: ${this.rowsDone + rows} rows given to a level of ${this.height}`);
    let taken = 0;
    while (taken < rows) {
      const n = Math.min(rows - taken, this.format.tileSize - this.bandRows);
      this.band.set(data.subarray(taken * rowSamples, (taken + n) * rowSamples), this.bandRows * rowSamples);
      this.bandRows += n;
      this.rowsDone += n;
      taken += n;
      if (this.bandRows === this.format.tileSize || this.rowsDone === this.height) await this.flushBand();
    }
  }

  /** Encodes the row of tiles in `band` (deflating them together) and passes its reduction on. */
  private async flushBand(): Promise<void> {
    const { tileSize, samplesPerPixel, fill, predict, deflateLevel, kind, alpha } = this.format;
    const rowSamples = this.width * samplesPerPixel, tileRowSamples = tileSize * samplesPerPixel;
    const deflating: Array<Promise<Buffer>> = [];
    for (let tx = 0; tx < this.tilesAcross; tx++) {
      const x0 = tx * tileSize, cols = Math.min(tileSize, this.width - x0);
      // Edge tiles are stored whole (TIFF 6.0 section 15); the padding is the fill value, which
      // readers crop away and which compresses to almost nothing.
      if (cols < tileSize || this.bandRows < tileSize) this.tile.fill(fill);
      for (let y = 0; y < this.bandRows; y++) {
        const from = y * rowSamples + x0 * samplesPerPixel;
        this.tile.set(this.band.subarray(from, from + cols * samplesPerPixel), y * tileRowSamples);
      }
      deflating.push(deflateTile(predictTile(this.tile, tileSize, samplesPerPixel, predict), deflateLevel));
    }
    for (const encoded of await Promise.all(deflating)) {
      this.tileBytes.push(encoded.byteLength);
      this.sink.append(encoded);
    }
    // tileSize is even, so only the last band can end on an unpaired row; the reduction takes it alone.
    if (this.next) {
      const reduced = reduceRows({ data: this.band.subarray(0, this.bandRows * rowSamples), width: this.width, rows: this.bandRows }, kind, samplesPerPixel, alpha, fill);
      await this.next.push(reduced.data, reduced.rows);
    }
    this.bandRows = 0;
  }
}

/**
 * The levels of a raster of width × height: full resolution first, then 2× reductions until the
 * whole image fits in one tile (GDAL's COG driver default, OVERVIEW_COUNT "until the largest
 * dimension is smaller than or equal to the tile size").
 */
export function buildLevels(width: number, height: number, format: LevelFormat, sinkOf: (level: number) => TileSink): CogLevel[] {
  const sides: Array<[number, number]> = [[width, height]];
  let [w, h] = [width, height];
  while (w > format.tileSize || h > format.tileSize) {
    w = Math.ceil(w / 2);
    h = Math.ceil(h / 2);
    sides.push([w, h]);
  }
  const levels: CogLevel[] = [];
  let next: CogLevel | null = null;
  for (let i = sides.length - 1; i >= 0; i--) {
    next = new CogLevel(sides[i][0], sides[i][1], format, next, sinkOf(i));
    levels.unshift(next);
  }
  return levels;
}
