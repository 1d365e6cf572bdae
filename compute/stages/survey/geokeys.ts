/**
 * @module The GeoTIFF tags that place a raster on the Earth (OGC GeoTIFF 1.1, OGC 19-008r4):
 * ModelPixelScale and one ModelTiepoint (requirement class "Raster to Model Coordinate
 * Transformation", the common case of an axis-aligned north-up grid), and the GeoKey
 * directory naming the coordinate reference system by its EPSG code.
 */
import { TAG, TIFF_TYPE, type IfdEntry } from "./tiff-ifd.js";

/** Where a north-up raster lies in a coordinate reference system. */
export interface GeoReference {
  /** EPSG code of the CRS (e.g. 32632, WGS 84 / UTM zone 32N). */
  epsg: number;
  /** A projected CRS (eastings and northings, ProjectedCSTypeGeoKey) or a geographic one (GeographicTypeGeoKey). */
  modelType: "projected" | "geographic";
  /** CRS coordinates of the top-left corner of the top-left pixel (PixelIsArea). */
  originX: number;
  originY: number;
  /** Pixel side in CRS units (metres for a projected CRS in metres); rows go towards −Y. */
  pixelSize: number;
  /** The CRS's name for GTCitationGeoKey (readers show it; the EPSG code is what defines the CRS). */
  citation?: string;
}

/** GeoKey ids and values of OGC 19-008r4, section 7 and annex. */
const KEY = { GTModelType: 1024, GTRasterType: 1025, GTCitation: 1026, GeographicType: 2048, ProjectedCSType: 3072 } as const;
const MODEL_TYPE = { projected: 1, geographic: 2 } as const;
const RASTER_PIXEL_IS_AREA = 1;

/**
 * The three GeoTIFF tags (and GeoAsciiParams when there is a citation) for the full-resolution
 * IFD. Overviews carry none: readers take their georeferencing from the first IFD (the GDAL COG
 * layout does the same).
 */
export function geoTiffEntries(geo: GeoReference): IfdEntry[] {
  if (!Number.isInteger(geo.epsg) || geo.epsg <= 0 || geo.epsg > 65535) throw new Error(`survey: EPSG code ${geo.epsg} does not fit a GeoKey (SHORT)`);
  if (!(geo.pixelSize > 0)) throw new Error("survey: the pixel size must be positive");
  // A key is {id, location, count, value}; location 0 means the value is the SHORT itself,
  // location 34737 that it is `count` characters of GeoAsciiParams from offset `value`.
  const keys: number[][] = [
    [KEY.GTModelType, 0, 1, MODEL_TYPE[geo.modelType]],
    [KEY.GTRasterType, 0, 1, RASTER_PIXEL_IS_AREA],
  ];
  let ascii = "";
  if (geo.citation) {
    // Each GeoAsciiParams string ends with "|", counted in the key's count (OGC 19-008r4, 7.1.4).
    const text = geo.citation.replace(/\|/g, "/") + "|";
    keys.push([KEY.GTCitation, TAG.GeoAsciiParams, text.length, 0]);
    ascii = text;
  }
  keys.push(geo.modelType === "projected" ? [KEY.ProjectedCSType, 0, 1, geo.epsg] : [KEY.GeographicType, 0, 1, geo.epsg]);
  keys.sort((a, b) => a[0] - b[0]);
  // Header: KeyDirectoryVersion 1, KeyRevision 1, MinorRevision 0, number of keys. Revision
  // 1.0 rather than 1.1: the keys used here mean the same in both, and 1.0 is what GDAL writes
  // by default (GEOTIFF_VERSION=AUTO), so every reader knows it.
  const directory = [1, 1, 0, keys.length, ...keys.flat()];
  const entries: IfdEntry[] = [
    { tag: TAG.ModelPixelScale, type: TIFF_TYPE.DOUBLE, values: [geo.pixelSize, geo.pixelSize, 0] },
    // Raster point (0, 0, 0), the corner of the first pixel, ties to the model point (originX, originY, 0).
    { tag: TAG.ModelTiepoint, type: TIFF_TYPE.DOUBLE, values: [0, 0, 0, geo.originX, geo.originY, 0] },
    { tag: TAG.GeoKeyDirectory, type: TIFF_TYPE.SHORT, values: directory },
  ];
  if (ascii) entries.push({ tag: TAG.GeoAsciiParams, type: TIFF_TYPE.ASCII, values: ascii });
  return entries;
}
